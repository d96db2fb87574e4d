"""`serve` and `mcp` log an older index's upgrade line by line on stderr before they serve (a service's log;
stdout is the MCP protocol over stdio)."""

from __future__ import annotations

import subprocess
import threading

import pytest

from old_index import old_vault

from .shared_vault import CLI, ENV, _wait_for, free_port, stop


@pytest.mark.parametrize("face", ["serve", "mcp"])
def test_a_server_logs_the_upgrade(face, vault_dir, config, tmp_path):
    old_vault(vault_dir, config)
    token_file = tmp_path / "api-token"
    token_file.write_text("s" * 43 + "\n")
    args = ["serve", "--port", str(free_port())] if face == "serve" else ["mcp"]
    server = subprocess.Popen([*CLI, "--vault", str(vault_dir), "--embedder", "none", *args],
                              env={**ENV, "MEMORY_CURATOR_TOKEN_FILE": str(token_file)}, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    upgraded = threading.Event()

    def read() -> None:
        for line in server.stderr:
            lines.append(line.rstrip("\n"))
            if line.startswith("memory-curator: The index is upgraded"):
                upgraded.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert upgraded.wait(120), lines
    finally:
        stop(server)
    assert lines[:4] == [
        "memory-curator: Upgrading the index (1 of 4, migration 16): indexing the sessions' filter columns",
        "memory-curator: Upgrading the index (2 of 4, migration 17): adding the unreadable share's column",
        "memory-curator: Upgrading the index (3 of 4, migration 18): giving each memory's link names a table of "
        "their own",
        "memory-curator: Upgrading the index (3 of 4, migration 18): the names links use, memory by memory: 1 of 1",
    ]


@pytest.mark.parametrize("face", ["serve", "mcp"])
def test_a_server_says_it_creates_a_new_index(face, vault_dir, tmp_path):
    token_file = tmp_path / "api-token"
    token_file.write_text("s" * 43 + "\n")
    port = free_port()
    args = ["serve", "--port", str(port)] if face == "serve" else ["mcp"]
    server = subprocess.Popen([*CLI, "--vault", str(vault_dir), "--embedder", "none", *args],
                              env={**ENV, "MEMORY_CURATOR_TOKEN_FILE": str(token_file)}, stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        if face == "serve":  # it answers once the vault is open
            _wait_for(f"http://127.0.0.1:{port}", "s" * 43, server)
        else:  # MCP over stdio ends when its input does
            server.stdin.close()
            server.wait(timeout=60)
    finally:
        stop(server)
    lines = server.stderr.read().decode().splitlines()
    assert [line for line in lines if line.startswith("memory-curator:")] == ["memory-curator: Creating the index"]
