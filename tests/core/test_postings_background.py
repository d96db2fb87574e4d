"""The kept postings built word by word while others write, and the rows written since folded back
(core/index/postings.py, core/index/postings_unit.py): at every point where queries read them the ranking is
FTS5's own, row for row and float for float."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from filelock import FileLock
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_curator.core.config import MemoryConfig
from memory_curator.core.index import postings, search_rows
from memory_curator.core.index.filters import Filters
from memory_curator.core.index.postings_unit import LOCK_NAME, PostingsUnit
from memory_curator.core.index.rows import memory_row
from memory_curator.core.index.store import IndexStore
from memory_curator.core.model import MemoryItem, utcnow
from memory_curator.core.search import BM25_WEIGHTS, keyword_ranked
from memory_curator.core.service import MemoryService
from memory_curator.core.text import tokens

WORDS = ["river", "rivers", "plans", "planning", "stone", "Stone", "café", "quokka", "running", "garden", "window"]
FILLER = ["lorem", "ipsum", "dolor", "amet"]


def _item(i: int, title: str, content: str, keywords: tuple[str, ...]) -> MemoryItem:
    now = utcnow()
    return MemoryItem(id=f"m{i}", content=content, title=title, category="context", created_at=now,
                      updated_at=now, keywords=keywords)


def _plain(store: IndexStore, words: list[str], weights=BM25_WEIGHTS) -> list[tuple[int, float]]:
    w = ", ".join(str(float(x)) for x in weights)
    return [tuple(r) for r in store.conn.execute(
        f"SELECT rowid, bm25(memories_fts, {w}) AS r FROM memories_fts WHERE memories_fts MATCH ? "
        "ORDER BY r, rowid", (tokens.fts_match(words),))]


def _edit(store: IndexStore, i: int, new) -> None:
    with store.transaction():
        if new is None:
            store.delete(f"m{i}")
        else:
            store.upsert(_item(i, *new), f"context/m{i}.md", 0, 0)


def _check(store: IndexStore, words: list[str], depth: int) -> None:
    kept = postings.ranked(store.conn, words, BM25_WEIGHTS, depth)
    if postings.has_base(store.conn):
        assert kept == _plain(store, words)[:depth]
    else:
        assert kept is None


text = st.lists(st.sampled_from(WORDS + FILLER), min_size=0, max_size=10).map(" ".join)
doc = st.tuples(text, text, st.lists(st.sampled_from(WORDS), max_size=2).map(tuple))
edit = st.tuples(st.integers(0, 45), st.one_of(st.none(), doc))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(doc, min_size=1, max_size=40), during=st.lists(st.lists(edit, max_size=3), max_size=12),
       after=st.lists(edit, max_size=12), folding=st.lists(st.lists(edit, max_size=3), max_size=6),
       chunk=st.sampled_from([1, 2, 5]), common=st.sampled_from([1, 2, 5]),
       words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3, unique=True),
       depth=st.sampled_from([1, 3, 100]))
def test_a_base_built_and_folded_in_steps_between_writes_ranks_as_fts5(docs, during, after, folding, chunk, common,
                                                                      words, depth):
    """Words read in one transaction and written in a later one, other writes landing between the two; then
    more writes, and a fold in steps between yet more writes: FTS5's ranking whenever the base is complete."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = IndexStore.open(root / "index.db", root)
        try:
            for i, d in enumerate(docs):
                _edit(store, i, d)
            conn = store.conn
            with store.transaction():
                epoch = postings.start(conn)
            terms, sizes = postings.candidates(conn, common), postings.Sizes.read(conn)
            edits = iter(during)
            for at in range(0, len(terms), chunk):
                read = [postings.read_word(conn, t, sizes) for t in terms[at : at + chunk]]
                for i, new in next(edits, []):
                    _edit(store, i, new)
                with store.transaction():
                    for word in read:
                        assert postings.put_word(conn, word, epoch)
                _check(store, words, depth)  # not complete yet: FTS5 ranks
            with store.transaction():
                assert postings.finish(conn, epoch)
            _check(store, words, depth)
            for i, new in after:
                _edit(store, i, new)
            _check(store, words, depth)
            stamp = postings.current_seq(conn)  # a pass reads the written rows once; more are written meanwhile
            left, written = postings.unfolded(conn, stamp), postings.Written.read(conn)
            edits = iter(folding)
            while left:
                with store.transaction():
                    left = left[postings.fold(conn, left[:chunk], written_=written, stamp=stamp) :]
                for i, new in next(edits, []):
                    _edit(store, i, new)
                _check(store, words, depth)
            with store.transaction():
                postings.drop_folded(conn)
            _check(store, words, depth)
            assert conn.execute("SELECT count(*) FROM fts_postings_dirty").fetchone()[0] <= sum(map(len, folding))
            newly, sizes = postings.candidates(conn, common), postings.Sizes.read(conn)  # made common since
            for i, new in after:  # written between a new word's read and its write
                _edit(store, i, new)
            with store.transaction():
                for word in [postings.read_word(conn, t, sizes) for t in newly]:
                    assert postings.put_word(conn, word, epoch)
            _check(store, words, depth)
        finally:
            store.close()


def test_a_build_the_base_was_cleared_under_writes_nothing(tmp_path):
    store = IndexStore.open(tmp_path / "index.db", tmp_path)
    for i in range(6):
        _edit(store, i, ("river", "stone river", ()))
    with store.transaction():
        epoch = postings.start(store.conn)
    word = postings.read_word(store.conn, "river", postings.Sizes.read(store.conn))
    store.clear_all_at_once()  # a rebuild
    with store.transaction():
        assert not postings.put_word(store.conn, word, epoch)
        assert not postings.finish(store.conn, epoch)
    assert store.conn.execute("SELECT count(*) FROM fts_postings").fetchone()[0] == 0


CONFIG = MemoryConfig(postings_min_rows=20, postings_common=3, postings_fold_at=5, watch_files=False)


def _fill(svc: MemoryService, n: int, start: int = 0) -> None:
    svc.save_batch([{"content": f"river stone {FILLER[i % 4]}" + " quokka" * (i % 3) + " garden" * (i % 5 == 0),
                     "title": "note" if i % 2 else "river plans", "category": "context"} for i in range(start, start + n)])


def _same_as_fts5(store: IndexStore) -> None:
    for words in (["river", "quokka"], ["garden"], ["stone", "lorem", "plans"]):
        plain = [(pk, r) for pk, r, ok in search_rows.fts_top(store, tokens.fts_match(words), BM25_WEIGHTS,
                                                               Filters(), 200) if ok]
        assert keyword_ranked(store, words, Filters(), 100) == plain[:100]


def test_a_vault_opened_with_a_pending_base_answers_as_fts5_while_and_after_it_is_built(tmp_path):
    """The unit builds in the background (kicked by a poll) while this thread saves and searches; searches are
    FTS5's ranking throughout, and once built (and after the fold the saves call for) they read the base."""
    svc = MemoryService.open(tmp_path, embedder="none", config=CONFIG)
    try:
        _fill(svc, 60)
        assert not postings.has_base(svc.store.conn)
        svc.poll_changes()
        deadline = time.monotonic() + 60
        n = 60
        while time.monotonic() < deadline:
            _fill(svc, 2, n)
            n += 2
            _same_as_fts5(svc.store)
            if postings.has_base(svc.store.conn) and svc.postings.progress.state == "idle":
                break
        assert postings.has_base(svc.store.conn)
        _fill(svc, 8, n)  # past fold_at: the next poll folds them back
        svc.poll_changes()
        assert svc.postings.wait_idle(60)
        assert svc.store.conn.execute("SELECT count(*) FROM fts_postings_dirty").fetchone()[0] < CONFIG.postings_fold_at
        _same_as_fts5(svc.store)
    finally:
        svc.close()


def test_words_made_common_after_the_build_join_the_base_at_the_next_fold(tmp_path):
    svc = MemoryService.open(tmp_path, embedder="none", config=CONFIG)
    try:
        _fill(svc, 60)
        postings.build(svc.store.conn, common=CONFIG.postings_common, min_rows=CONFIG.postings_min_rows)
        assert postings.has_base(svc.store.conn)
        svc.save_batch([{"content": f"wombat sighting number {i}", "category": "context"} for i in range(8)])
        kept = {t for (t,) in svc.store.conn.execute("SELECT term FROM fts_postings_terms")}
        assert "wombat" not in kept  # FTS5 reads it on every query meanwhile
        svc.poll_changes()  # past fold_at: folds, then adds the words made common
        assert svc.postings.wait_idle(60)
        kept = {t for (t,) in svc.store.conn.execute("SELECT term FROM fts_postings_terms")}
        assert "wombat" in kept
        for words in (["wombat"], ["wombat", "river"]):
            plain = [(pk, r) for pk, r, ok in search_rows.fts_top(svc.store, tokens.fts_match(words), BM25_WEIGHTS,
                                                                   Filters(), 200) if ok]
            assert keyword_ranked(svc.store, words, Filters(), 100) == plain[:100]
        _same_as_fts5(svc.store)
    finally:
        svc.close()


def test_a_build_cut_short_goes_on_from_the_words_written(tmp_path):
    """A close between steps (or a kill: each step is a transaction) leaves words written and no base yet;
    the next process's unit builds the rest, and the base ranks as FTS5."""
    svc = MemoryService.open(tmp_path, embedder="none", config=CONFIG)
    try:
        _fill(svc, 60)
    finally:
        svc.close()
    store = IndexStore.open(tmp_path / "index.db", tmp_path)
    try:
        with store.transaction():
            epoch = postings.start(store.conn)
        terms, sizes = postings.candidates(store.conn, 3), postings.Sizes.read(store.conn)
        with store.transaction():
            for t in terms[: len(terms) // 2]:
                postings.put_word(store.conn, postings.read_word(store.conn, t, sizes), epoch)
        _fill_store(store)
    finally:
        store.close()
    svc = MemoryService.open(tmp_path, embedder="none", config=CONFIG)
    try:
        assert not postings.has_base(svc.store.conn)
        svc.poll_changes()
        assert svc.postings.wait_idle(60)
        assert postings.has_base(svc.store.conn)
        _same_as_fts5(svc.store)
    finally:
        svc.close()


def _fill_store(store: IndexStore) -> None:
    with store.transaction():
        store.insert_rows([memory_row(_item(500 + j, "river", "quokka garden stone", ()), f"context/x{j}.md", 0, 0)
                           for j in range(3)])


def _saved(root: Path, n: int) -> None:
    svc = MemoryService.open(root, embedder="none", config=CONFIG, background=False)
    try:
        _fill(svc, n)
    finally:
        svc.close()


def test_one_process_builds_at_a_time(tmp_path):
    _saved(tmp_path, 40)
    unit = PostingsUnit(tmp_path / "index.db", tmp_path / ".memory-curator", min_rows=20, common=3)
    other = FileLock(tmp_path / ".memory-curator" / LOCK_NAME)  # another process building
    other.acquire()
    try:
        unit.kick()
        assert unit.wait_idle(30)
        store = IndexStore.open(tmp_path / "index.db", tmp_path)
        assert not postings.has_base(store.conn)
        other.release()
        unit.kick()
        assert unit.wait_idle(30)
        assert postings.has_base(store.conn)
        store.close()
    finally:
        unit.close()
        if other.is_locked:
            other.release()


def test_close_stops_a_build_at_its_next_step(tmp_path):
    _saved(tmp_path, 40)
    unit = PostingsUnit(tmp_path / "index.db", tmp_path / ".memory-curator", min_rows=20, common=1, pause_s=3600)
    unit.kick()
    deadline = time.monotonic() + 30
    while unit.progress.state != "building" and time.monotonic() < deadline:
        time.sleep(0.01)
    unit.close(timeout=30)  # in its hour-long pause after the first step
    assert unit.progress.state == "closed"
    store = IndexStore.open(tmp_path / "index.db", tmp_path)
    assert not postings.has_base(store.conn)
    store.close()


def test_a_rebuild_leaves_the_base_to_the_background(tmp_path):
    """A rebuild clears the base and does not build it (115 s of a 1,000,000 rebuild); the next poll's unit
    does, and it ranks as FTS5."""
    svc = MemoryService.open(tmp_path, embedder="none", config=CONFIG)
    try:
        _fill(svc, 60)
        svc.poll_changes()
        assert svc.postings.wait_idle(60) and postings.has_base(svc.store.conn)
        svc.rebuild_index(embed=False)
        assert not postings.has_base(svc.store.conn)
        _same_as_fts5(svc.store)
        svc.poll_changes()
        assert svc.postings.wait_idle(60) and postings.has_base(svc.store.conn)
        _same_as_fts5(svc.store)
    finally:
        svc.close()


def test_a_failing_build_waits_before_it_tries_again(tmp_path, caplog):
    """A build that fails (here: the lock file's folder is a file, as a vault it may not write to) is logged once
    and not tried again at every poll; after the wait it is."""
    _saved(tmp_path, 40)
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")

    def failures_after(kicks: int, retry_s: float) -> int:
        unit = PostingsUnit(tmp_path / "index.db", blocked, min_rows=20, common=3, retry_s=retry_s)
        try:
            for _ in range(kicks):
                unit.kick()
                assert unit.wait_idle(30)
        finally:
            unit.close()
        return len([r for r in caplog.records if "keyword postings failed" in r.getMessage()])

    assert failures_after(3, retry_s=3600) == 1
    assert failures_after(2, retry_s=0) == 3
