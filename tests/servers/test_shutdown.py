"""A server stopped by SIGTERM (a service manager, `kill`) closes its engine: the last changes reach git."""

from __future__ import annotations

import signal
import subprocess
import sys

import httpx
import pytest

from servers.shared_vault import CLI, ENV, _wait_for, free_port


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is a POSIX signal")
def test_sigterm_commits_the_last_history_batch(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=vault, check=True)
    token_file = tmp_path / "token"
    token_file.write_text("t" * 43 + "\n")
    port = free_port()
    server = subprocess.Popen([*CLI, "--vault", str(vault), "--embedder", "none", "serve", "--port", str(port)],
                              env={**ENV, "MEMORY_CURATOR_TOKEN_FILE": str(token_file)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url, headers = f"http://127.0.0.1:{port}", {"Authorization": "Bearer " + "t" * 43}
    try:
        _wait_for(url, "t" * 43, server)
        for text in ("First note", "Second note, inside the same history batch"):
            r = httpx.post(f"{url}/v1/memories", json={"content": text}, headers=headers, timeout=10)
            assert r.status_code in (200, 201), r.text
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
    finally:
        if server.poll() is None:
            server.kill()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=vault, capture_output=True, text=True, check=True)
    assert status.stdout == ""
    log = subprocess.run(["git", "log", "--format=%s"], cwd=vault, capture_output=True, text=True, check=True)
    assert "Second note" in log.stdout
