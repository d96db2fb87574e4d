"""Many writers, one vault: the HTTP server, the MCP server (stdio) and the CLI in their own processes, plus an
in-process service as the desktop app would hold it, all writing at once. Used by the stress test and by
bench/shared_vault_stress.py (which prints the figures).

Each writer changes only memories it created, so the final state of every memory is known: the vault's files,
the index and the writers' own records must agree exactly afterwards.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from mcp import Client, StdioServerParameters

from memory_curator.core.service import MemoryService

CLI = [sys.executable, "-m", "memory_curator.cli.main"]
ENV = {**os.environ, "OLLAMA_HOST": "http://127.0.0.1:9"}


@dataclass
class Tally:
    """What one writer did and what it expects the vault to hold."""

    name: str
    ops: int = 0
    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    expected: dict[str, str] = field(default_factory=dict)  # id -> content it last wrote
    deleted: set[str] = field(default_factory=set)

    def timed(self, fn: Callable[[], object]) -> object:
        t = time.perf_counter()
        try:
            return fn()
        finally:
            self.latencies_ms.append((time.perf_counter() - t) * 1000)
            self.ops += 1


def _text(writer: str, i: int, rng: random.Random) -> str:
    words = ["sqlite", "vector", "memory", "decision", "python", "deploy", "review", "session", "index", "vault"]
    return f"{writer} note {i}: " + " ".join(rng.choice(words) for _ in range(12))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- writers ----------------------------------------------------------------------------------------------


def http_writer(url: str, token: str, name: str, n_ops: int, seed: int) -> Tally:
    tally, rng = Tally(name), random.Random(seed)
    start = time.perf_counter()
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as c:
        for i in range(n_ops):
            mine = list(tally.expected)
            roll = rng.random()
            if roll < 0.55 or not mine:
                text = _text(name, i, rng)
                r = tally.timed(lambda text=text: c.post("/v1/memories", json={"content": text, "user_id": name}))
                if r.status_code == 201:
                    tally.expected[r.json()["memory_id"]] = text
                else:
                    tally.errors.append(f"store {r.status_code} {r.text[:200]}")
            elif roll < 0.75:
                r = tally.timed(lambda: c.post("/v1/search", json={"query": "sqlite decision", "search_mode": "keyword"}))
                if r.status_code != 200:
                    tally.errors.append(f"search {r.status_code} {r.text[:200]}")
            elif roll < 0.88:
                mid = rng.choice(mine)
                r = tally.timed(lambda mid=mid: c.get(f"/v1/memories/{mid}", params={"user_id": name}))
                if r.status_code != 200 or r.json()["content"] != tally.expected[mid]:
                    tally.errors.append(f"get {mid} {r.status_code} {r.text[:200]}")
            else:
                mid = rng.choice(mine)
                r = tally.timed(lambda mid=mid: c.delete(f"/v1/memories/{mid}", params={"user_id": name}))
                if r.status_code == 200 and r.json()["deleted"]:
                    del tally.expected[mid]
                    tally.deleted.add(mid)
                else:
                    tally.errors.append(f"delete {mid} {r.status_code} {r.text[:200]}")
    tally.seconds = time.perf_counter() - start
    return tally


def mcp_writer(vault: Path, name: str, n_ops: int, seed: int) -> Tally:
    tally, rng = Tally(name), random.Random(seed)
    params = StdioServerParameters(command=CLI[0], args=[*CLI[1:], "--vault", str(vault), "--embedder", "none",
                                                         "mcp", "--client", name], env=ENV)

    async def call(c: Client, tool: str, args: dict) -> dict | None:
        t = time.perf_counter()
        result = await c.call_tool(tool, args)
        tally.latencies_ms.append((time.perf_counter() - t) * 1000)
        tally.ops += 1
        if result.is_error:
            tally.errors.append(f"{tool}: {result.content[0].text[:200]}")
            return None
        return result.structured_content

    async def session() -> None:
        async with Client(params, read_timeout_seconds=120) as c:
            for i in range(n_ops):
                mine = list(tally.expected)
                roll = rng.random()
                if roll < 0.4 or not mine:
                    text = _text(name, i, rng)
                    out = await call(c, "memory_store", {"content": text})
                    if out:
                        tally.expected[out["memory_id"]] = text
                elif roll < 0.5:
                    texts = [_text(name, i * 10 + k, rng) for k in range(3)]
                    out = await call(c, "memory_batch_store", {"items": [{"content": t} for t in texts]})
                    if out:
                        tally.expected.update(zip(out["created_ids"], texts, strict=True))
                elif roll < 0.7:
                    mid, text = rng.choice(mine), _text(name, -i, rng)
                    if await call(c, "memory_update", {"memory_id": mid, "content": text}):
                        tally.expected[mid] = text
                elif roll < 0.88:
                    await call(c, "memory_search", {"query": "vault index", "search_mode": "keyword"})
                else:
                    mid = rng.choice(mine)
                    out = await call(c, "memory_delete", {"memory_id": mid})
                    if out and out["deleted"]:
                        del tally.expected[mid]
                        tally.deleted.add(mid)

    start = time.perf_counter()
    asyncio.run(session())
    tally.seconds = time.perf_counter() - start
    return tally


def cli_writer(vault: Path, name: str, n_ops: int, seed: int) -> Tally:
    tally, rng = Tally(name), random.Random(seed)
    base = [*CLI, "--vault", str(vault), "--embedder", "none"]
    start = time.perf_counter()
    for i in range(n_ops):
        mine = list(tally.expected)
        if rng.random() < 0.7 or not mine:
            text = _text(name, i, rng)
            done = tally.timed(lambda text=text: subprocess.run([*base, "add", "--json", "--source", "ai", text],
                                                                capture_output=True, text=True, env=ENV))
            if done.returncode == 0:
                tally.expected[json.loads(done.stdout)["id"]] = text
            else:
                tally.errors.append(f"add {done.returncode} {done.stderr[:200]}")
        else:
            mid, text = rng.choice(mine), _text(name, -i, rng)
            done = tally.timed(lambda mid=mid, text=text: subprocess.run(
                [*base, "update", mid, "--content", text, "--json"], capture_output=True, text=True, env=ENV))
            if done.returncode == 0:
                tally.expected[mid] = text
            else:
                tally.errors.append(f"update {done.returncode} {done.stderr[:200]}")
    tally.seconds = time.perf_counter() - start
    return tally


def app_writer(vault: Path, name: str, n_ops: int, seed: int, config) -> Tally:
    """The desktop app's engine: one service on its thread, polling for others' changes between edits."""
    tally, rng = Tally(name), random.Random(seed)
    start = time.perf_counter()
    with MemoryService.open(vault, embedder="none", config=config) as svc:
        for i in range(n_ops):
            mine = list(tally.expected)
            roll = rng.random()
            try:
                if roll < 0.45 or not mine:
                    text = _text(name, i, rng)
                    tally.expected[tally.timed(lambda text=text, i=i: svc.save(text, title=f"{name} {i}")).id] = text
                elif roll < 0.7:
                    mid, text = rng.choice(mine), _text(name, -i, rng)
                    tally.timed(lambda mid=mid, text=text: svc.update(mid, content=text))
                    tally.expected[mid] = text
                elif roll < 0.85:
                    tally.timed(svc.poll_changes)
                else:
                    mid = rng.choice(mine)
                    if tally.timed(lambda mid=mid: svc.delete(mid)):
                        del tally.expected[mid]
                        tally.deleted.add(mid)
            except Exception as exc:  # noqa: BLE001 - every failure is a finding of the stress run
                tally.errors.append(f"{type(exc).__name__}: {exc}")
    tally.seconds = time.perf_counter() - start
    return tally


# -- the run ----------------------------------------------------------------------------------------------


@dataclass
class StressReport:
    tallies: list[Tally]
    seconds: float
    files: dict[str, str]  # id -> content, read from the vault's files
    index: dict[str, str]  # id -> content, from the index
    trashed: set[str]
    problems: list[str]  # files the index could not read

    @property
    def expected(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for t in self.tallies:
            out.update(t.expected)
        return out

    @property
    def errors(self) -> list[str]:
        return [f"{t.name}: {e}" for t in self.tallies for e in t.errors]

    @property
    def ops(self) -> int:
        return sum(t.ops for t in self.tallies)


def run_stress(vault: Path, config, *, http_ops: int = 500, mcp_ops: int = 500, app_ops: int = 500,
               cli_ops: int = 30, http_clients: int = 2) -> StressReport:
    vault.mkdir(parents=True, exist_ok=True)
    MemoryService.open(vault, embedder="none", config=config).close()  # create the index once, up front
    token_file = vault.parent / "api-token"
    token_file.write_text("s" * 43 + "\n")
    port = free_port()
    server = subprocess.Popen([*CLI, "--vault", str(vault), "--embedder", "none", "serve", "--port", str(port)],
                              env={**ENV, "MEMORY_CURATOR_TOKEN_FILE": str(token_file)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url, token = f"http://127.0.0.1:{port}", "s" * 43
    try:
        _wait_for(url, token, server)
        jobs: list[tuple[Callable[..., Tally], tuple]] = [
            *[(http_writer, (url, token, f"http{k}", http_ops, k)) for k in range(http_clients)],
            (mcp_writer, (vault, "mcp", mcp_ops, 10)),
            (app_writer, (vault, "app", app_ops, 20, config)),
            (cli_writer, (vault, "cli", cli_ops, 30)),
        ]
        results: list[Tally | BaseException] = [None] * len(jobs)  # type: ignore[list-item]

        def work(k: int, fn: Callable[..., Tally], args: tuple) -> None:
            try:
                results[k] = fn(*args)
            except BaseException as exc:  # noqa: BLE001 - reported below
                results[k] = exc

        start = time.perf_counter()
        threads = [threading.Thread(target=work, args=(k, fn, args)) for k, (fn, args) in enumerate(jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        seconds = time.perf_counter() - start
    finally:
        stop(server)
    failures = [r for r in results if not isinstance(r, Tally)]
    if failures:
        raise RuntimeError(f"a writer crashed: {failures[0]!r}") from (failures[0] if isinstance(failures[0], BaseException) else None)
    return StressReport(results, seconds, *_final_state(vault, config))  # type: ignore[arg-type]


def stop(server: subprocess.Popen) -> None:
    """SIGTERM, as a service manager stops it; killed if it has not ended within 30 s."""
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()


def _wait_for(url: str, token: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the HTTP server exited: {server.stderr.read().decode()[:2000]}")
        try:
            if httpx.get(f"{url}/health", headers={"Authorization": f"Bearer {token}"}, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the HTTP server did not start within 60 s")


def _final_state(vault: Path, config) -> tuple[dict[str, str], dict[str, str], set[str], list[str]]:
    """What the files say and what the index says, read independently."""
    with MemoryService.open(vault, embedder="none", config=config, sync=False) as svc:
        files = {}
        for st in svc.vault.scan():
            item = svc.vault.read(st.rel)
            files[item.id] = item.content
        index = dict(svc.store.conn.execute("SELECT id, content FROM memories"))
        trashed = {t.id for t in svc.list_trash()}
        problems = [f"{p.path}: {p.reason}" for p in svc.problems()]
    return files, index, trashed, problems
