"""The status bar while a long memory is embedded: the bar and its text move with the long memory's chunks, so
'Embedding 7 of 8…' does not stand still for the minutes a 10 MB memory takes with the offline model."""

from __future__ import annotations

import re
from dataclasses import replace

from embed_helpers import WAIT_S, GatedEmbedder, embedded
from memory_curator.core.service import MemoryService
from memory_curator.gui.widgets.status import EngineStatusBar

LONG = " ".join(f"word{i}" for i in range(400))


def test_the_bar_moves_while_a_long_memory_is_embedded(qtbot, vault_dir, config):
    emb = GatedEmbedder(gate_at=4)  # the short ones take 2 calls (4 texts each); then the long one's
    config = replace(config, embed_batch_size=4, chunk_size=16, chunk_overlap=4)
    with MemoryService.open(vault_dir, embedder=emb, config=config) as svc:
        svc.embedding.pause()
        svc.save_batch([{"content": f"note {i}", "title": f"t{i}"} for i in range(7)])
        svc.save(LONG, title="big")
        bar = EngineStatusBar()
        qtbot.addWidget(bar)
        bar.watch_embedding(lambda: svc.embedding)
        svc.embedding.resume()
        assert emb.reached.wait(WAIT_S)
        bar.poll_embedding()
        text = bar.pending.text()
        m = re.fullmatch(r"Embedding 7 of 8… \(a long memory: (\d+) %\)", text)
        assert m and 0 < int(m.group(1)) < 100, text
        assert 700 < bar.embed_progress.value() < bar.embed_progress.maximum() == 800
        emb.gate.set()
        embedded(svc)
        qtbot.waitUntil(lambda: not bar.embed_progress.isVisible(), timeout=int(WAIT_S * 1000))
