"""The installed ``memory-curator`` console script, run as a real process: pipes in, pipes out."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).with_name("memory-curator")


@pytest.fixture
def run(vault_dir):
    if not SCRIPT.exists():
        pytest.fail(f"{SCRIPT} is missing: install the package into the venv (`pip install -e .`).")
    env = {**os.environ, "MEMORY_CURATOR_VAULT": str(vault_dir)}

    def go(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([str(SCRIPT), "--embedder", "none", *args], input=stdin, capture_output=True,
                              text=True, env=env, timeout=60)

    return go


def test_add_from_a_pipe_then_search_json(run, vault_dir):
    p = run("add", "-c", "decisions", "-k", "sqlite", "--json", stdin="We chose SQLite for the index.\n")
    assert p.returncode == 0, p.stderr
    item = json.loads(p.stdout)
    assert Path(item["file_path"]).parent == vault_dir / "decisions"  # $MEMORY_CURATOR_VAULT was used
    p = run("search", "sqlite", "--mode", "keyword", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["results"][0]["memory"]["id"] == item["id"]


def test_output_into_a_reader_that_stops_early(run):
    """`memory-curator get ID | head -1`: the reader closes the pipe; no traceback, exit 0."""
    big = "\n".join(f"Line {i}: a long memory that fills the pipe buffer many times over." for i in range(20000))
    item = json.loads(run("add", "-", "--json", stdin=big).stdout)
    proc = subprocess.Popen([str(SCRIPT), "--embedder", "none", "get", item["id"]], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "MEMORY_CURATOR_VAULT": str(Path(item["file_path"]).parents[1])})
    first = proc.stdout.readline()
    proc.stdout.close()  # like `head -1` exiting
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 0
    assert first.startswith(b"id:") and err == ""


@pytest.mark.model
def test_ctrl_c_while_waiting_on_ollama_exits_130(vault_dir, ollama_server):
    env = {**os.environ, "MEMORY_CURATOR_VAULT": str(vault_dir), "OLLAMA_HOST": ollama_server.url}
    added = subprocess.run([str(SCRIPT), "--embedder", "none", "add", "Waiting to be embedded."], env=env,
                           capture_output=True, text=True, timeout=60)
    assert added.returncode == 0, added.stderr
    ollama_server.hang = True  # Ollama accepts the request and never answers (the client's timeout is 30 s)
    proc = subprocess.Popen([str(SCRIPT), "--embedder", "ollama", "reindex"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while ollama_server.held == 0 and time.monotonic() < deadline:
            time.sleep(0.05)  # until it is really waiting on Ollama
        assert ollama_server.held == 1, "the CLI never reached the server"
        # The embedding waits on a thread of its own and the main thread in short slices, so the signal acts
        # whichever thread the kernel hands it to (it used to wait out the 30 s timeout, exit 3, when the
        # signal reached another thread than the one blocked in the request).
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)  # far below the client's 30 s: the interrupt did not wait for it
    finally:
        proc.kill()
    assert proc.returncode == 130 and err.strip().endswith("memory-curator: Interrupted.") and "Traceback" not in err
    assert ollama_server.held == 1  # the request was still unanswered when the process had exited
    ollama_server.hang = False
    ollama_server.stop()  # releases the held request
    ollama_server.start()
    p = subprocess.run([str(SCRIPT), "--embedder", "none", "list", "--json"], env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0 and len(json.loads(p.stdout)) == 1  # the vault is intact


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX")
def test_trash_empty_asks_on_a_terminal(run, vault_dir):
    """#18.11: `trash empty` deleted for good without asking; in a terminal it asks, and 'n' keeps the trash."""
    import pty

    item = json.loads(run("add", "to be trashed", "--json").stdout)
    assert run("delete", item["id"]).returncode == 0
    for answer, code, left in ((b"n\n", 1, 1), (b"y\n", 0, 0)):
        leader, follower = pty.openpty()
        proc = subprocess.Popen([str(SCRIPT), "--embedder", "none", "trash", "empty"], stdin=follower,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env={**os.environ, "MEMORY_CURATOR_VAULT": str(vault_dir)})
        os.close(follower)
        os.write(leader, answer)  # the terminal buffers it until the prompt reads
        out, err = proc.communicate(timeout=60)
        os.close(leader)
        assert proc.returncode == code and b"for good?" in err, err
        assert len(json.loads(run("trash", "list", "--json").stdout)) == left


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX")
def test_ctrl_c_stops_classify_after_the_batch_in_progress(vault_dir, config):
    """`memory-curator classify` over 1,000 memories, Ctrl-C once its progress shows: exit 130, the JSON says how
    far it got, and what it labelled keeps its new labels."""
    import pty

    from memory_curator.core.service import MemoryService

    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        svc.save_batch([{"content": f"The party saved wizard {i} from the collapsing tower."} for i in range(1000)])
        svc.graph.labels.set_label_set({"quest": ["tower"]})
    leader, follower = pty.openpty()
    proc = subprocess.Popen([str(SCRIPT), "--embedder", "none", "classify", "--json"], stderr=follower,
                            stdout=subprocess.PIPE, env={**os.environ, "MEMORY_CURATOR_VAULT": str(vault_dir)})
    os.close(follower)
    try:
        shown = b""
        while b"labelling: " not in shown:  # the progress line on the terminal: the run has begun
            shown += os.read(leader, 1024)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        proc.kill()
        os.close(leader)
    data = json.loads(out)
    assert proc.returncode == 130 and data["status"] == "cancelled" and data["cancelled"] is True
    assert 0 < data["done"] < data["total"] == 1000 and data["changed"] == data["done"]
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert svc.graph.labels.counts().get("quest") == data["done"]


def test_the_app_and_the_cli_start_without_the_ollama_client_until_ollama_is_used(vault_dir):
    """The ``ollama`` package costs ~0.3 s to import: a keyword-only command never pays it, Ollama's use does."""
    code = ("import sys; from pathlib import Path; import memory_curator.gui.app, memory_curator.cli.main\n"
            "from memory_curator.core.service import MemoryService\n"
            "with MemoryService.open(Path(sys.argv[1]), embedder='none') as svc: svc.save('a note')\n"
            "before = 'ollama' in sys.modules\n"
            "from memory_curator.core.embed.ollama import OllamaEmbedder\n"
            "OllamaEmbedder(host='http://127.0.0.1:9').status()\n"
            "print(before, 'ollama' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(vault_dir)], capture_output=True, text=True, check=True,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.stdout.split() == ["False", "True"]
