"""The Ollama path over real HTTP on loopback: ``python bench/ollama_path.py [--memories N] [--repeat R]``.

The server is tests/ollama_server.py (Ollama's API, vectors from the bundled all-MiniLM-L6-v2), so the
figures are the client's and the protocol's overhead on top of the model, not a real Ollama's speed.

- a query embedded directly vs through /api/embed (the HTTP + JSON cost per request)
- save_batch of N memories through Ollama at provider batch sizes 1, 8 and 32
- a save and a search while Ollama is down (connection refused): they must not wait on it
- the ``memory-curator`` console script's start-up (``list`` on a small vault)
"""

from __future__ import annotations

import argparse
import logging
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "app"))

from timing import print_table, row, time_each  # noqa: E402

from memory_curator.core.config import MemoryConfig  # noqa: E402
from memory_curator.core.embed.local import LocalEmbedder  # noqa: E402
from memory_curator.core.embed.ollama import OllamaEmbedder  # noqa: E402
from memory_curator.core.service import MemoryService  # noqa: E402
from ollama_server import OllamaServer  # noqa: E402


def texts(n: int, tag: str) -> list[str]:
    return [f"{tag} note {i}: we reviewed the deploy pipeline and kept SQLite for the index, item {i}." for i in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=30)
    opts = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)  # the "embeddings disabled" warnings are expected here

    local = LocalEmbedder()
    local.dimension()  # load the model before timing
    server = OllamaServer(local).start()
    config = MemoryConfig(ollama_host=server.url, ollama_timeout_s=5.0)
    rows = []

    queries = [f"which database did we pick, variant {i}?" for i in range(opts.repeat)]
    for q in queries[:5]:  # warm the model up so the first timed row does not pay for it
        local.embed_query(q)
    rows.append(row("query embedding, direct", time_each(local.embed_query, queries)))
    ollama = OllamaEmbedder("nomic-embed-text", server.url, timeout=5.0)
    rows.append(row("query embedding, /api/embed", time_each(ollama.embed_query, queries), note="loopback HTTP"))
    ollama.close()

    with tempfile.TemporaryDirectory() as tmp:
        for batch in (1, 8, 32):
            cfg = replace(config, embed_batch_size=batch)
            with MemoryService.open(Path(tmp) / f"b{batch}", embedder="ollama", config=cfg) as svc:
                svc.save("warm up")
                svc.embedding.wait(600)
                items = [{"content": t} for t in texts(opts.memories, f"b{batch}")]
                server.reset_log()
                t = time.perf_counter()
                svc.save_batch(items)
                svc.embedding.wait(600)  # written and embedded (the vectors come after, in the background)
                ms = (time.perf_counter() - t) * 1000
                rows.append(row(f"save_batch {opts.memories}, batch {batch}", [ms / opts.memories],
                                note=f"per memory; {len(server.embed_inputs)} requests"))

        vault = Path(tmp) / "down"
        with MemoryService.open(vault, embedder="ollama", config=replace(config, embedder_retry_s=0.0)) as svc:
            svc.save("Saved while Ollama was up.")
            server.stop()
            rows.append(row("save, Ollama down (each retried)", time_each(svc.save, texts(opts.repeat, "down")),
                            note="connection refused"))
            rows.append(row("hybrid search, Ollama down", time_each(svc.search, queries), note="keyword fallback"))
        with MemoryService.open(vault, embedder="ollama", config=config) as svc:
            svc.save("first failure starts the retry window")
            rows.append(row("save, Ollama down (in retry window)", time_each(svc.save, texts(opts.repeat, "skip")),
                            note="provider skipped"))

        script = Path(sys.executable).with_name("memory-curator")
        cmd = [str(script), "--vault", str(vault), "--embedder", "none", "list", "-n", "5"]
        rows.append(row("console script start-up + list", time_each(
            lambda _: subprocess.run(cmd, capture_output=True, check=True), range(max(3, opts.repeat // 6)))))
    print_table(rows)


if __name__ == "__main__":
    main()
