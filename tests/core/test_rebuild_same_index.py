"""A rebuild makes the index that keeping it in step file by file makes: the same memory rows, the same words
in the full-text index (where and in which column), the same entity mentions and links, the same problems.

A rebuild takes another road (rows made in helper processes, inserted into empty tables in bulk) for speed,
so every shortcut it takes is held against the road of a sync that reads one changed file at a time."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from memory_curator.core import bulk_read, indexing
from memory_curator.core.errors import Cancelled
from memory_curator.core.index import bulk
from memory_curator.core.index.store import IndexStore
from memory_curator.core.progress import CancelToken
from memory_curator.core.service import MemoryService

FILES = {
    "context/ja.md": "---\ntitle: 東京タワーの会議\nkeywords: [東京, 会議]\n---\n\n山田太郎さんと東京タワーで会議をしました。\n",
    "context/fi.md": "---\ntitle: Tietokannan valinta\nactors:\n- Mikko Virtanen\n---\n\nPäätimme Helsingissä, että "
                     "tietokantaan tallennetaan muisteja. Mikko Virtanen ja Tuuli Laine olivat paikalla.\n",
    "context/plain.md": "# A note from Obsidian\n\nNo frontmatter. Links to [[Note 3]], [[Note 7|seven]], [[Gone#Head]].\n",
    "context/comment.md": "---\n# a comment\nid: c1\ntitle: Commented  # not a comment\nkeywords:\n  - a\n  - b\n"
                          "extra_key: NO\nwhen: 2020-01-01\nnested: {a: [1, 2, {b: c}]}\n---\nBody with `code Name` "
                          "and ```\nFenced Code\n```\n",
    "context/anchors.md": "---\nid: anc\nbase: &b {x: 1, y: [1, 2]}\nother: *b\n---\nAnchored.\n",
    "context/crlf.md": "---\r\nid: crlf\r\ntitle: Windows File\r\nkeywords:\r\n- win\r\n---\r\n\r\nBy Bill Gates.\r\n",
    "context/bom.md": "\ufeff---\nid: bom\ntitle: Bommed\n---\nA body about NASA and SQLite.\n",
    "context/quoted.md": "---\nid: q\ntitle: \"dq title\"\nsource: 'single ''quoted'''\n"
                         "keywords: ['a', \"b\", 012, 1.10, yes, ~, 12:30]\n---\nq\n",
    "context/super.md": "---\nid: sup\nsupersedes: [note-1]\nsuperseded_by: note-2\nconsolidated_from: [a, b]\n"
                        "provenance: {parts: [p1, p2], parent: par, source: x.pdf}\npinned: true\nscope: project\n"
                        "expires_at: '2030-01-01T00:00:00Z'\nsummary: A short summary\nvalence: 0.5\n"
                        "event_timestamp: 2025-01-01T10:00:00Z\nlabels: {work: 0.9}\n---\n"
                        "Dr. Who met The Beatles in Old Trafford.\n",
    "context/onlyfm.md": "---\nid: onlyfm\ntitle: ' '\n---\n",
    "context/ .md": "",
    "Ideas/caps.md": "---\ntitle: Caps folder\n---\nA file in a capitalised folder, by Ada Lovelace.\n",
    "ünï/u.md": "---\ntitle: Unicode folder\n---\nÜber Åsa Ørsted.\n",
    # Three files with one id: one wins (updated last, in its category's folder), two are reported.
    "context/dup1.md": "---\nid: same-id\ntitle: First copy\nupdated_at: '2025-01-01T00:00:00Z'\n---\none\n",
    "context/dup2.md": "---\nid: same-id\ntitle: Second copy\nupdated_at: '2025-02-01T00:00:00Z'\n---\ntwo\n",
    "decisions/dup3.md": "---\nid: same-id\ntitle: Third\nupdated_at: '2025-02-01T00:00:00Z'\ncategory: decisions\n"
                         "---\nthree\n",
    "context/conflict.md": "---\nid: conf\ntitle: Conflicted\n---\n<<<<<<< HEAD\nours, Ada Lovelace\n=======\n"
                           "theirs\n>>>>>>> other\n",
    # Unreadable: reported, never indexed.
    "context/broken.md": "---\nid: [oops\n---\nbody\n",
    "context/unclosed.md": "---\nid: abc\nbody without end\n",
    "context/deep.md": "---\nid: deep\nv: " + "[" * 100 + "]" * 100 + "\n---\ndeep\n",
    "context/wrongtypes.md": "---\nid: wt\nsalience: high\n---\nx\n",
    "context/dates.md": "---\nid: dates\ncreated_at: 2025-13-45\n---\nx\n",
}
PEOPLE = ["Ada Lovelace", "Mikko Virtanen", "Grace Hopper", "Tuuli Laine", "Alan Turing"]


def _write_vault(root: Path) -> None:
    for i in range(40):  # enough files for several hand-overs of the helpers (CHUNK is made small below)
        a, b = PEOPLE[i % 5], PEOPLE[(i * 3 + 1) % 5]
        link = f" See [[Note {i - 1}]]." if i else ""
        FILES[f"context/2025-01-01_note-{i}.md"] = (
            f"---\nid: note-{i}\ntitle: Note {i}\nkeywords:\n- meeting\n- k{i % 4}\nactors: [user_{i % 3}]\n---\n\n"
            f"We met {a} and {b} in Helsinki. Muistiinpanot tietokannasta {i}.{link}\n")
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    (root / "context" / "binary.md").write_bytes(b"\x00\x01 binary")
    (root / "context" / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    if hasattr(os, "symlink"):
        os.symlink(root / "context" / "bom.md", root / "context" / "link.md")


def _contents(svc: MemoryService) -> dict[str, list]:
    """What the index holds, by memory id (row numbers are the index's own business)."""
    conn = svc.store.conn
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_words USING fts5vocab(main, memories_fts, instance)")
    columns = [r[1] for r in conn.execute("PRAGMA table_info(memories)") if r[1] != "pk"]
    ids = dict(conn.execute("SELECT pk, id FROM memories"))
    return {
        "memories": sorted(conn.execute(f"SELECT {', '.join(columns)} FROM memories")),
        "full text": sorted((ids[d], t, c, o) for t, d, c, o in conn.execute("SELECT * FROM temp.fts_words")),
        "fts rows": [conn.execute("SELECT COUNT(*) FROM memories_fts_docsize").fetchone()[0]],
        "fts settings": _fts_settings(svc),
        "mentions": sorted((ids[p], k, n, s) for p, k, n, s in conn.execute("SELECT * FROM graph_mentions")),
        "edges": sorted((ids[p], t, k) for p, t, k in conn.execute("SELECT * FROM graph_edges")),
        "link names": sorted((ids[p], *names) for p, *names in conn.execute("SELECT * FROM link_names")),
        "problems": sorted(conn.execute("SELECT file_path, reason FROM vault_problems")),
        "schema": _schema(svc),
        # Kept by triggers in a sync, counted once at the end of a rebuild (on a connection of its own)
        "counts": [sorted(conn.execute(f"SELECT * FROM {table}"))
                   for table in ("keyword_counts", "label_counts", "facet_counts", "content_totals")],
    }


def _fts_settings(svc: MemoryService) -> list[tuple[str, int]]:
    return sorted(svc.store.conn.execute("SELECT k, v FROM memories_fts_config"))


def _schema(svc: MemoryService) -> list[tuple[str, str]]:
    return sorted(svc.store.conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL"))


@pytest.mark.parametrize(("helpers", "chunk"), [(False, 1000), (False, 7), (True, 7)],
                         ids=["one chunk", "chunks of 7", "helper processes"])
def test_a_rebuild_makes_the_index_a_sync_makes(vault_dir, config, monkeypatch, helpers, chunk):
    """In one chunk, the copies of an id meet before any row is written; in chunks of 7, some across chunks."""
    MemoryService.open(vault_dir, embedder="none", config=config).close()  # an empty index: the sync goes file by file
    _write_vault(vault_dir)
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        synced = _contents(svc)
        monkeypatch.setattr(bulk_read, "CHUNK", chunk)
        monkeypatch.setattr(bulk_read, "HELPER_MIN_FILES", 10 if helpers else 10**9)
        during = []
        report = svc.rebuild_index(embed=False, progress=lambda *_: during.append(_fts_settings(svc)))
        assert ("automerge", 0) in during[len(during) // 2]  # merged once at the end instead
        assert ("hashsize", bulk.HASHSIZE) in during[len(during) // 2]
        rebuilt = _contents(svc)
        # The rows were cleared with foreign keys unchecked; they are checked again, and nothing refers to a gap.
        assert svc.store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert svc.store.conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert report.added == len(synced["memories"])
    for part, rows in synced.items():
        assert rebuilt[part] == rows, part
    # The vault is varied enough for the comparison to mean something.
    assert len(synced["memories"]) > 50 and len(synced["problems"]) >= 10
    assert {m[3] for m in synced["mentions"]} == {"actor", "wikilink", "keyword", "name"}
    assert any(w == "東京" for _, w, _, _ in synced["full text"])
    assert any(k == "wikilink" for _, _, k in synced["edges"])
    assert all(synced["counts"])  # keywords, labels, categories and sessions, characters


def test_the_dropped_indexes_are_made_over_the_last_chunks(vault_dir, config, monkeypatch):
    """Made at the end, they were a 100,000-file rebuild's last ~2 s, the helpers done and a core idle: they are
    made while the helpers read the last chunks, and the last rows are written with them in place."""
    _write_vault(vault_dir)
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        schema = _schema(svc)
        monkeypatch.setattr(bulk_read, "CHUNK", 7)
        monkeypatch.setattr(bulk_read, "HELPER_MIN_FILES", 10)
        seen = []
        real_insert = IndexStore.insert_rows

        def insert_rows(store, rows):
            seen.append(len(_schema(svc)))
            real_insert(store, rows)

        monkeypatch.setattr(IndexStore, "insert_rows", insert_rows)
        svc.rebuild_index(embed=False)
        assert seen[0] < len(schema)  # dropped for the load
        assert seen[-1] == len(schema)  # every one made again before its last chunk
        assert _schema(svc) == schema


@pytest.mark.parametrize("seconds", [60, 0], ids=["groups", "a group held too long"])
def test_the_full_text_index_is_written_once_a_group_of_chunks(vault_dir, config, monkeypatch, seconds):
    """FTS5 writes its pending terms out as a segment at each commit and at each savepoint, and merges the segments
    at the end: a transaction of GROUP chunks is one segment, unless a statement's savepoint wrote it out sooner. A
    transaction open GROUP_SECONDS is committed after its chunk (others' saves wait for the write lock)."""
    _write_vault(vault_dir)
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        monkeypatch.setattr(bulk_read, "CHUNK", 7)
        monkeypatch.setattr(bulk_read, "HELPER_MIN_FILES", 10**9)  # read here: no index made over the last chunks
        monkeypatch.setattr(indexing, "GROUP", 4)
        monkeypatch.setattr(indexing, "GROUP_SECONDS", seconds)
        files = sum(1 for _ in svc.vault.scan())
        segments = []
        real_optimize = IndexStore.optimize_fulltext

        def optimize_fulltext(store):
            segments.append(store.conn.execute("SELECT COUNT(DISTINCT segid) FROM memories_fts_idx").fetchone()[0])
            real_optimize(store)

        monkeypatch.setattr(IndexStore, "optimize_fulltext", optimize_fulltext)
        svc.rebuild_index(embed=False)
    chunks = -(-files // 7)
    assert chunks > 8
    assert segments == [-(-chunks // 4) if seconds else chunks]


def test_the_log_is_copied_into_the_database_less_often_while_a_rebuild_loads(vault_dir, config, monkeypatch):
    """At SQLite's 1,000 pages each commit of a load checkpointed (two fsyncs each, 80-97 at 100,000 files): the
    bound is LOAD_CHECKPOINT_PAGES while the tables fill, SQLite's again after the load, and after a cancelled one."""
    _write_vault(vault_dir)
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        monkeypatch.setattr(bulk_read, "CHUNK", 7)

        def pages() -> int:
            return svc.store.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]

        assert pages() == bulk.CHECKPOINT_PAGES
        during: list[int] = []
        svc.rebuild_index(embed=False, progress=lambda *_: during.append(pages()))
        assert len(during) > 4 and during[len(during) // 2] == bulk.LOAD_CHECKPOINT_PAGES
        assert pages() == bulk.CHECKPOINT_PAGES
        token = CancelToken()
        with pytest.raises(Cancelled):
            svc.rebuild_index(embed=False, progress=lambda *_: token.cancel(), cancel=token)
        assert pages() == bulk.CHECKPOINT_PAGES


def test_a_cancelled_rebuild_leaves_every_index_of_the_schema(vault_dir, config):
    """A rebuild drops the secondary indexes while it fills the tables (core/index/bulk.py); cancelled, it
    makes them again before it stops."""
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        for i in range(5):
            svc.save(f"note {i}", category="decisions")
        schema = _schema(svc)
        token = CancelToken()
        with pytest.raises(Cancelled):
            svc.rebuild_index(embed=False, progress=lambda *_: token.cancel(), cancel=token)
        assert _schema(svc) == schema


def test_the_collector_runs_less_often_during_a_rebuild_and_as_before_after_it(vault_dir, config):
    before = gc.get_threshold()
    seen = []
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        for i in range(3):
            svc.save(f"note {i}", category="decisions")
        svc.rebuild_index(embed=False, progress=lambda *_: seen.append(gc.get_threshold()))
        assert gc.get_threshold() == before
        token = CancelToken()
        with pytest.raises(Cancelled):
            svc.rebuild_index(embed=False, progress=lambda *_: token.cancel(), cancel=token)
    assert gc.get_threshold() == before
    assert (50_000, *before[1:]) in seen


def test_indexes_a_killed_rebuild_dropped_are_made_when_the_vault_is_next_opened(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        svc.save("a note about zeppelins", category="decisions")
        schema = _schema(svc)
        settings = _fts_settings(svc)
        with svc.store.transaction():  # what a rebuild does first; then it was killed
            svc.store.drop_secondary_indexes()
        assert len(_schema(svc)) < len(schema)
        assert _fts_settings(svc) != settings
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        assert _schema(svc) == schema
        assert _fts_settings(svc) == settings
        assert [r.memory.title for r in svc.search("zeppelins", mode="keyword")] == ["a note about zeppelins"]
