"""Finnish stems from Snowball in the full-text index and the query alike (migration 7), before the prefix
stems; an older index is refilled with them when it is opened."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memory_curator.core.service import MemoryService
from memory_curator.core.text import finnish, tokens
from old_index import write_old_index


def ids(results):
    return [r.memory.id for r in results]


def test_consonant_gradation_meets_through_the_stored_stems(svc):
    # The prefix stem of tietokantaan is tietokanta*, which misses tietokannan (nt -> nn); Snowball's stems meet.
    db_note = svc.save("Tietokannan varmuuskopio otetaan joka yö.", title="Varmuuskopio")
    time_note = svc.save("Ajat kirjataan lokiin.", title="Loki")
    svc.save("Kissa nukkuu sohvalla.", title="Kissa")
    assert ids(svc.search("tietokantaan", mode="keyword")) == [db_note.id]
    assert ids(svc.search("ajan", mode="keyword")) == [time_note.id]


def test_stored_stems_are_not_matched_as_typed_words(svc):
    # "sesio" is only the Snowball stem of "session": a search as typed does not see the stem column.
    svc.save("Hae session muistit.", title="Sessio")
    assert svc.search("sesio", mode="keyword") == []


def test_precise_stems_come_before_prefix_stems():
    rounds = tokens.stem_matches(["tietokantaan"])
    assert rounds[0] == '"tietokan"'
    assert rounds[1] == '{title content keywords} : ("tietokanta"*)'
    # English words are mostly their own Snowball stem: only the prefix round is left for them.
    assert [m[0] for m in tokens.stem_matches(["sqlite", "summary"])] == ["{"]


@given(st.lists(st.text(alphabet="aeiouyäöhjklmnprstvkd", min_size=1, max_size=14), max_size=30))
def test_index_stems_are_the_stems_not_among_the_words(words):
    stems = finnish.index_stems(words).split()
    assert len(stems) == len(set(stems))
    assert set(stems) == set(finnish.snowball_stems(words).values()) - set(words)


@given(st.text(alphabet=st.characters(max_codepoint=127)) | st.text(alphabet="aZ_9 .-\täöÅ東")
       | st.text())
def test_letter_words_are_the_pattern_s_runs_of_letters(text):
    """ASCII text is split through a byte table (a rebuild's shortcut); every text splits as the pattern does."""
    for t in (text, text.lower()):
        assert tokens.letter_words(t) == tokens._LETTERS.findall(t)


def test_a_memory_stores_stems_only_for_words_of_letters():
    row = tokens.fts_row("Tietokannan varmuus", "sqlite3 tietokantaan 検索する haun", "muistit")
    assert row[:3] == ("Tietokannan varmuus", "sqlite3 tietokantaan  検索 する  haun", "muistit")
    # Japanese words and digits are not stemmed; words that are their own stem are in the text already.
    assert set(row[3].split()) == {"tietokan", "muist"}


def test_an_index_without_stems_is_refilled_on_open(vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        item = svc.save("Tietokannan varmuuskopio otetaan joka yö.", title="Varmuuskopio")
        rel = svc.store.file_info(item.id).file_path
    # The index as schema 6 left it: the FTS table without a stems column.
    write_old_index(vault_dir, 6, item.id, rel, "Varmuuskopio", "Tietokannan varmuuskopio otetaan joka yö.", [])

    with MemoryService.open(vault_dir, embedder="none", config=config, sync=False) as svc:
        assert 7 in {v for (v,) in svc.store.conn.execute("SELECT version FROM schema_migrations")}
        assert ids(svc.search("tietokantaan", mode="keyword")) == [item.id]
        assert ids(svc.search("varmuuskopio", mode="keyword")) == [item.id]
