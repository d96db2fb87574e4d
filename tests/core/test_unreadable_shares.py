"""Each memory's unreadable share (how far an English-only model's vector of it is noise) kept with its row
(core/index/unreadable.py): the same number hybrid search computed from the embedded text, written by every
write path, filled in the background for an index made before the column, and the same search results
whether a row's value is written yet or not."""

from __future__ import annotations

import pytest

from embed_helpers import embedded
from memory_curator.core.index import unreadable
from memory_curator.core.index.db import connect
from memory_curator.core.index.unreadable import UnreadableFill
from memory_curator.core.service import MemoryService
from memory_curator.core.text import tokens
from old_index import schema, write_old_index

TEXTS = {
    "english": "We cache session state in Redis with a TTL of one day.",
    "latin": "Päivitä olemassa oleva muisti ja säilytä kokonaisina: déjà vu, naïve café.",
    "japanese": "重複対策（オプション）：保存時に埋め込みを近傍検索して、類似度が閾値を超える既存 summary があったら新規追加 or マージ を選べる。",
    "half": "Redis は TTL 管理（デフォルト 24時間）。summary（Chroma）は TTL が無い限り長期残る（運用で promote など可能）。",
    "all_cjk": "埋め込み対象にする。",
    "late_cjk": "x " * 1000 + "埋め込み対象にする。" * 50,  # the CJK begins past the 2,000 characters read
}
SUMMARIES = {"summary_ja": ("An English text whose summary is Japanese.", "埋め込み対象の要約。"),
             "summary_en": ("日本語の本文。埋め込み対象にする。", "An English summary of a Japanese text."),
             "summary_empty": (TEXTS["all_cjk"], "")}


def fill(svc):
    ids = {k: svc.save(t, title=k).id for k, t in TEXTS.items()}
    ids.update({k: svc.save(c, title=k, summary=s).id for k, (c, s) in SUMMARIES.items()})
    return ids


def from_text(svc) -> dict[int, float]:
    """The shares as search computed them before they were kept: from the embedded text, read in SQL."""
    rows = svc.store.conn.execute("SELECT pk, substr(coalesce(json_extract(meta_json, '$.summary'), content), 1, 2000) "
                                  "FROM memories")
    return {pk: u for pk, text in rows if (u := tokens.unreadable(text)) > 0}


def stored(svc) -> dict[int, float | None]:
    return dict(svc.store.conn.execute("SELECT pk, unreadable FROM memories"))


def shares(svc) -> dict[int, float]:
    pks = [pk for (pk,) in svc.store.conn.execute("SELECT pk FROM memories")]
    return unreadable.shares(svc.store.conn, pks)


def kept(conn) -> dict[int, float]:
    """What searches read once the fill is done: the rows above 0 in their table."""
    return dict(conn.execute(f"SELECT pk, share FROM {unreadable.TABLE}"))


def as_before_the_column(svc) -> None:
    """The rows as an index made before migration 17 holds them: no value written, the fill not begun."""
    with svc.store.transaction():
        svc.store.conn.execute("UPDATE memories SET unreadable = NULL")
        svc.store.set_meta(unreadable.KEY, "0")


def test_the_kept_share_is_the_one_computed_from_the_embedded_text(svc):
    ids = fill(svc)
    expected = from_text(svc)
    pk = svc.store.pk_of
    # "half" reads as English; an empty summary is no summary (the file keeps none)
    assert set(expected) == {pk(ids[k]) for k in ("japanese", "all_cjk", "summary_ja", "summary_empty")}
    assert expected[pk(ids["all_cjk"])] == 1.0
    assert {p: u for p, u in stored(svc).items() if u} == expected
    assert all(u == 0.0 for u in stored(svc).values() if not u)  # written (0), not unknown (NULL)
    assert shares(svc) == expected
    assert unreadable.pending(svc.store.conn) is False


def test_search_reads_only_the_table_of_the_rows_above_zero_which_every_write_keeps(svc):
    ids = fill(svc)
    conn = svc.store.conn
    assert kept(conn) == from_text(svc) and len(kept(conn)) == 4
    assert svc.delete(ids["japanese"]) and svc.delete(ids["english"])  # the row goes with its memory
    svc.update(ids["all_cjk"], content=TEXTS["half"])  # now read as English
    svc.update(ids["latin"], content=TEXTS["late_cjk"] + TEXTS["all_cjk"])  # still English in what is read
    svc.update(ids["summary_ja"], summary="埋め込み対象にする。")  # a share changed
    assert kept(conn) == from_text(svc) and len(kept(conn)) == 2
    assert kept(conn)[svc.store.pk_of(ids["summary_ja"])] == 1.0


def test_the_share_follows_edits_syncs_and_rebuilds(svc, vault_dir):
    item = svc.save(TEXTS["english"])
    pk = svc.store.pk_of(item.id)
    assert shares(svc) == {}
    svc.update(item.id, content=TEXTS["japanese"])
    assert shares(svc) == {pk: from_text(svc)[pk]} and stored(svc)[pk] > 0
    svc.update(item.id, summary="An English summary now.")
    assert shares(svc) == {} and stored(svc)[pk] == 0.0
    # Another program edits the file: the sync writes the row and its share.
    path = vault_dir / svc.get(item.id).file_path
    path.write_text(path.read_text().replace("An English summary now.", TEXTS["all_cjk"]))
    svc.sync()
    assert shares(svc) == {pk: 1.0}
    fill(svc)
    expected = from_text(svc)
    svc.rebuild_index(embed=False)
    assert {p: u for p, u in stored(svc).items() if u} == from_text(svc)
    assert None not in stored(svc).values() and len(from_text(svc)) == len(expected)
    assert shares(svc) == from_text(svc)


def test_rows_not_yet_filled_give_the_same_shares_before_during_and_after_the_fill(svc):
    fill(svc)
    for i in range(30):
        svc.save(f"Note {i}: plain English text about caches and replicas.")
    expected = from_text(svc)
    as_before_the_column(svc)
    assert set(stored(svc).values()) == {None}
    assert shares(svc) == expected  # computed from the text meanwhile
    conn = svc.store.conn
    unreadable.PART, part = 4, unreadable.PART
    try:
        assert unreadable.fill_step(conn, budget_s=0.0)
        # Writes meanwhile carry their value: an English row not yet read becomes Japanese, a new one comes.
        last = svc.store.conn.execute("SELECT id FROM memories ORDER BY pk DESC LIMIT 1").fetchone()[0]
        svc.update(last, content=TEXTS["all_cjk"])
        svc.save(TEXTS["japanese"])
        expected = from_text(svc)
        assert shares(svc) == expected and len(expected) == 6
        while unreadable.fill_step(conn, budget_s=0.0):  # one part per step
            assert shares(svc) == expected
            assert int(svc.store.get_meta(unreadable.KEY)) > 0
    finally:
        unreadable.PART = part
    assert not unreadable.pending(conn)
    assert shares(svc) == expected
    assert {p: u for p, u in stored(svc).items() if u} == expected  # only rows above 0 were written
    assert sum(u is None for u in stored(svc).values()) == len(stored(svc)) - len(expected)
    assert kept(conn) == expected  # the triggers added each share the fill wrote
    # A rebuild writes every row's value: no fill is left, and the table is full (the triggers stay through it).
    as_before_the_column(svc)
    assert kept(conn) == {}
    svc.rebuild_index(embed=False)
    assert kept(conn) == from_text(svc)
    assert not unreadable.pending(conn) and shares(svc) == from_text(svc)  # (numbered anew)
    assert sorted(shares(svc).values()) == sorted(expected.values())


def test_an_old_index_gets_the_column_at_open_and_its_rows_filled_by_the_unit(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        item = svc.save(TEXTS["all_cjk"])
        rel = svc.store.file_info(item.id).file_path
    write_old_index(vault_dir, 16, item.id, rel, "古い", TEXTS["all_cjk"], [])
    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False) as svc:
        conn = svc.store.conn
        assert conn.execute("SELECT 1 FROM schema_migrations WHERE version = 17").fetchone()  # the column's migration
        assert stored(svc) == {1: None} and svc.store.get_meta(unreadable.KEY) == "0"
        assert kept(conn) == {}  # filled as the fill writes the shares
        assert shares(svc) == {1: 1.0}  # from the text, until the fill has read it
        svc.poll_changes()  # a poll kicks the fill
        assert svc.syncing.fill is not None and svc.syncing.fill.wait_idle(30)
        assert svc.syncing.fill.ended  # nothing left: its thread and connection are gone
        assert stored(svc) == {1: 1.0} and not unreadable.pending(conn) and kept(conn) == {1: 1.0}
        assert shares(svc) == {1: 1.0}
    with MemoryService.open(vault_dir / "new", embedder="none", config=config) as svc:
        assert not unreadable.pending(svc.store.conn) and kept(svc.store.conn) == {}  # no rows to fill
        with svc.store.transaction():  # another writer holds the lock: the unit only reads, and ends
            svc.poll_changes()
            assert svc.syncing.fill.wait_idle(30) and svc.syncing.fill.ended


def test_the_fill_stops_when_closed_and_a_later_one_goes_on(svc):
    for i in range(50):
        svc.save(f"{TEXTS['all_cjk']} {i}" if i % 5 == 0 else f"Note {i} in English.")
    expected = from_text(svc)
    as_before_the_column(svc)
    unit = UnreadableFill(svc.vault.index_path, pause_s=0.0)
    unit.close()  # before any kick: no thread
    unit.kick()
    assert not unit.ended and unreadable.pending(svc.store.conn)
    unreadable.PART, part = 5, unreadable.PART
    try:
        unit = UnreadableFill(svc.vault.index_path, pause_s=0.0)
        unit.kick()
        assert unit.wait_idle(30) and unit.ended
    finally:
        unreadable.PART = part
    assert not unreadable.pending(svc.store.conn) and shares(svc) == expected


@pytest.mark.model
def test_hybrid_results_are_the_same_with_and_without_the_kept_shares(svc_local):
    fill(svc_local)
    for text in ("Cluster note: we keep caches warm, merge replicas and watch thresholds of eviction.",
                 "Chroma stores a summary per document; Redis holds session state with a TTL."):
        svc_local.save(text)
    embedded(svc_local)
    queries = ["summary merge", "TTL 管理", "埋め込み", "Chroma summary", "cache replicas", "類似度 閾値"]

    def ranked():
        return [[(r.memory.id, round(r.score, 9)) for r in svc_local.search(q, mode="hybrid", limit=20,
                                                                              record_access=False)]
                for q in queries]

    kept = ranked()
    as_before_the_column(svc_local)
    assert ranked() == kept
    while unreadable.fill_step(svc_local.store.conn):
        pass
    assert ranked() == kept


def _at_schema_18(vault_dir, config, *, filled: bool) -> None:
    """An index that schema 18 left with a share written (a save after migration 17), its fill done (the
    partial index there, no key) or under way past that row (the key above it, no index)."""
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        item = svc.save(TEXTS["all_cjk"])
        rel = svc.store.file_info(item.id).file_path
    write_old_index(vault_dir, 18, item.id, rel, "古い", TEXTS["all_cjk"], [])
    conn = connect(vault_dir / "index.db")
    conn.execute("UPDATE memories SET unreadable = 1.0")
    if not filled:
        conn.execute(f"DROP INDEX {unreadable.INDEX}")
        conn.execute("INSERT INTO meta (key, value) VALUES (?, '7')", (unreadable.KEY,))
    conn.close()


def test_migration_19_copies_a_filled_index_into_the_table_and_drops_the_index(vault_dir, config):
    _at_schema_18(vault_dir, config, filled=True)
    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False) as svc:
        conn = svc.store.conn
        assert schema(vault_dir) == 19 and not unreadable.pending(conn)
        assert kept(conn) == {1: 1.0} and shares(svc) == {1: 1.0}
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (unreadable.INDEX,)).fetchone() is None


def test_migration_19_starts_a_fill_under_way_again_which_copies_the_shares_written_before(vault_dir, config):
    _at_schema_18(vault_dir, config, filled=False)
    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False) as svc:
        conn = svc.store.conn
        assert schema(vault_dir) == 19 and svc.store.get_meta(unreadable.KEY) == "0"
        assert kept(conn) == {} and shares(svc) == {1: 1.0}  # read from the row meanwhile
        assert not unreadable.fill_step(conn)
        assert not unreadable.pending(conn) and kept(conn) == {1: 1.0} and shares(svc) == {1: 1.0}
