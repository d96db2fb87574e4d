"""Seed 000 (SPEC_02 Memory Service) through the Python API: its async interface, run off the event loop;
StorageError for a write that cannot happen, with nothing half-written; its MemoryConfig defaults."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import fields

import pytest

from memory_curator import AsyncMemoryService, MemoryService
from memory_curator.core.config import MemoryConfig
from memory_curator.core.errors import CuratorError, StorageError


def test_the_seeds_async_interface(vault_dir, config):
    async def scenario():
        async with await AsyncMemoryService.open(vault_dir, embedder="none", config=config) as svc:
            item = await svc.save("Valittiin SQLite-vec vektorihakuun.", "decisions", title="Vektorihaku",
                                  keywords=["sqlite"], session_id="s1", source="user")
            assert (await svc.get(item.id)).content == "Valittiin SQLite-vec vektorihakuun."
            updated = await svc.update(item.id, title="SQLite-vec")
            assert updated.title == "SQLite-vec"
            await svc.save("Session notes about the plan", "context", session_id="s1")
            hits = await svc.search("SQLite", limit=5, category="decisions", min_salience=0.0)
            assert [h.memory.id for h in hits] == [item.id] and hits.query == "SQLite"
            assert [m.id for m in await svc.search_by_keywords(["sqlite"])] == [item.id]
            assert len(await svc.get_session_context("s1")) == 2
            raw = await svc.get_raw_session_content("s1")
            assert await svc.get_session_token_count("s1") == len(raw) // 4
            assert (await svc.get_stats()).total_count == 2
            assert await svc.decay_salience(days_inactive=7) == 0 and await svc.cleanup(min_salience=0.1) == 0
            assert await svc.delete(item.id) is True and await svc.get(item.id) is None
            assert await svc.delete(item.id) is False

    asyncio.run(scenario())


def test_each_call_runs_off_the_event_loop(vault_dir, config):
    async def scenario():
        svc = await AsyncMemoryService.open(vault_dir, embedder="none", config=config)
        try:
            engine_thread = await svc.call(lambda s: threading.get_ident())
            assert engine_thread != threading.get_ident()
            ticks = 0

            async def ticker():
                nonlocal ticks
                while True:
                    ticks += 1
                    await asyncio.sleep(0)

            tick_task = asyncio.create_task(ticker())
            await asyncio.sleep(0)
            before = ticks
            await svc.save_batch([{"content": f"memory number {i} " * 20} for i in range(300)])
            assert ticks > before  # the loop kept running while the engine thread wrote 300 files
            tick_task.cancel()
            assert await svc.count() == 300
        finally:
            await svc.close()
        with pytest.raises(RuntimeError, match="closed"):
            await svc.get("x")

    asyncio.run(scenario())


def test_a_folder_blocked_by_a_file_is_a_storage_error_and_nothing_is_half_written(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        keep = svc.save("stays where it is")
        (vault_dir / "notes").write_text("a plain file where the category folder goes")
        before = sorted(p for p in vault_dir.rglob("*.md"))
        for attempt in (lambda: svc.save("new", category="notes"),
                        lambda: svc.save_batch([{"content": "a"}, {"content": "b", "category": "notes"}]),
                        lambda: svc.update(keep.id, category="notes")):
            with pytest.raises(StorageError) as err:
                attempt()
            assert err.value.code == "STORAGE_ERROR" and "notes" in str(err.value)
        assert sorted(p for p in vault_dir.rglob("*.md")) == before
        assert svc.count() == 1 and svc.get(keep.id).category == "context"
        assert not isinstance(err.value, OSError) and isinstance(err.value, CuratorError)


def test_async_face_raises_the_same_errors(vault_dir, config):
    async def scenario():
        async with await AsyncMemoryService.open(vault_dir, embedder="none", config=config) as svc:
            (vault_dir / "decisions").write_text("blocked")  # the category folder is made on first save
            with pytest.raises(StorageError):
                await svc.save("x", "decisions")
            assert await svc.count() == 0

    asyncio.run(scenario())


SEED_DEFAULTS = {  # the seed's MemoryConfig, field by field: ours under the same name, or the one it maps to
    "default_search_limit": 5,
    "category_decay_rates": {"decisions": 1.0, "summaries": 0.99, "context": 0.90},
    "salience_decay_days": 7,
    "cleanup_threshold": 0.1,
    "summarize_token_threshold": 50_000,
    "chunk_size": 512,
    "chunk_overlap": 50,
    "ollama_model": "nomic-embed-text",  # the seed's embedding_model
    "ollama_host": "http://localhost:11434",  # the seed's embedding_url
    "default_salience": 0.8,  # MemoryItem.salience's default in the seed
}


def test_memory_config_defaults_are_the_seeds():
    cfg = MemoryConfig()
    assert {k: getattr(cfg, k) for k in SEED_DEFAULTS} == SEED_DEFAULTS
    # The one number that differs on purpose (README, "Python API"): LLM clients and the app ask for more.
    assert cfg.max_search_limit == 100 and "max_search_limit" in {f.name for f in fields(MemoryConfig)}
