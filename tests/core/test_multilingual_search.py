"""Text in every language of the seeds: Japanese words inside running text, Finnish inflected forms, and
hybrid search that never ranks worse than keyword search on text the embedder cannot read."""

from __future__ import annotations

import pytest

from embed_helpers import embedded
from memory_curator.core.embed.base import is_multilingual
from memory_curator.core.text import finnish, tokens

# Sentences from seed 003 (Japanese) and seed 000 (Finnish).
JAPANESE = {
    "embed": "summary があれば summary を埋め込み対象にする。なければ text（raw）を埋め込み対象にする。",
    "ttl": "Redis は TTL 管理（デフォルト 24時間）。summary（Chroma）は TTL が無い限り長期残る（運用で promote など可能）。",
    "dedup": "重複対策（オプション）：保存時に埋め込みを近傍検索して、類似度が閾値を超える既存 summary があったら新規追加 or マージ を選べる。",
    "chunk": "text が大きすぎる場合はサーバ側でチャンク分割し、各チャンクを個別の Chroma ドキュメントとして登録する。",
}
FINNISH = {
    "session": "Hae kaikki session muistit aikajärjestyksessä.",
    "cleanup": "Poista muistit joiden salience on alle kynnyksen.",
    "update": "Päivitä olemassa oleva muisti.",
    "chunking": "Parent-Child chunking = pitkät dokumentit pilkotaan hakua varten, mutta säilytetään kokonaisina.",
    "storage": "Embeddings tallennetaan erilliseen memory_chunks-tauluun. Yksi MemoryItem voi vastata useaa vektoria pitkissä dokumenteissa.",
}
ENGLISH = {
    "redis": "We cache session state in Redis with a TTL of one day.",
    "summary": "Store a short summary next to each long memory so the list view stays readable.",
    "sqlite": "We chose SQLite with sqlite-vec for the vector index.",
    "dog": "I took the dog for a long walk in the park this morning.",
}


def fill(svc, texts):
    return {key: svc.save(text, title=text[:30]).id for key, text in texts.items()}


@pytest.fixture
def mixed(svc):
    ids = {}
    for texts in (JAPANESE, FINNISH, ENGLISH):
        ids.update(fill(svc, texts))
    return svc, ids


def ids_of(results):
    return [r.memory.id for r in results]


@pytest.mark.parametrize(
    ("query", "key"),
    [("埋め込み", "embed"), ("近傍検索", "dedup"), ("類似度", "dedup"), ("閾値", "dedup"), ("チャンク", "chunk"),
     ("分割", "chunk"), ("長期", "ttl"), ("重複", "dedup"), ("デフォルト", "ttl")],
)
def test_japanese_words_inside_running_text_are_found(mixed, query, key):
    svc, ids = mixed
    assert ids_of(svc.search(query, mode="keyword", limit=3))[0] == ids[key]


def test_a_japanese_question_finds_its_sentence(mixed):
    svc, ids = mixed
    assert ids_of(svc.search("保存時に重複を検索するには？", mode="keyword", limit=3))[0] == ids["dedup"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("muistin", {"session", "cleanup", "update"}),  # genitive; the texts have muisti / muistit
        ("muisteja", {"session", "cleanup", "update"}),  # partitive plural
        ("muistit", {"session", "cleanup", "update"}),
        ("dokumentteja", {"chunking", "storage"}),  # the texts have dokumentit / dokumenteissa
        ("tallennus", {"storage"}),  # the text has tallennetaan
        ("kynnys", {"cleanup"}),  # the text has kynnyksen
    ],
)
def test_finnish_inflected_forms_meet(mixed, query, expected):
    svc, ids = mixed
    found = set(ids_of(svc.search(query, mode="keyword", limit=10)))
    assert {ids[k] for k in expected} <= found
    assert not found & {ids[k] for k in ENGLISH}


def test_finnish_prefix_stems():
    assert {finnish.prefix_stem(w) for w in ("muisti", "muistin", "muistit", "muisteja", "muisteissa", "muistiin")} == {"muist"}
    assert finnish.prefix_stem("päätöksen") == finnish.prefix_stem("päätös")[:4] and finnish.prefix_stem("haku") == "haku"


def test_snowball_stems_are_stored_only_where_they_differ_from_the_word():
    assert finnish.snowball_stems(["tietokannan", "tietokantaan", "haku"]) == {
        "tietokannan": "tietokan", "tietokantaan": "tietokan", "haku": "haku"}
    assert finnish.index_stems(["tietokannan", "tietokantaan", "haku", "sqlite3"]) == "tietokan"


def test_english_matches_are_not_reordered_by_stemming(mixed):
    svc, ids = mixed
    # Words that match as typed come first; stems only fill the list after them.
    assert ids_of(svc.search("summary", mode="keyword", limit=10))[0] in {ids["summary"], ids["embed"], ids["ttl"], ids["dedup"]}
    assert not any("sqlite" in m for m in tokens.stem_matches(["sqlite"]))


@pytest.mark.parametrize(
    "model",
    ["bge-m3", "bge-m3:latest", "nomic-embed-text-v2-moe", "nomic-embed-text-v2-moe:latest",
     "jeffh/intfloat-multilingual-e5-large:f16", "snowflake-arctic-embed2", "qwen3-embedding:0.6b"],
)
def test_multilingual_models_are_recognised(model):
    assert is_multilingual(model)


@pytest.mark.parametrize("model", ["nomic-embed-text", "all-minilm", "mxbai-embed-large", "all-MiniLM-L6-v2"])
def test_english_models_are_not(model):
    assert not is_multilingual(model)


# -- hybrid vs keyword with the real English-only model ---------------------------------------------------

# Targets are memories mostly in Japanese (the "ttl" one is half English: the model reads that half).
QUERIES = [
    ("埋め込み対象", "embed"), ("近傍検索 類似度", "dedup"), ("チャンク分割", "chunk"), ("TTL 管理", "ttl"),
    ("Chroma 登録", "chunk"), ("Chroma ドキュメント", "chunk"), ("summary 埋め込み", "embed"), ("マージ", "dedup"),
    ("merge option", "dedup"), ("raw text", "embed"), ("Chroma", "chunk"), ("summary", "dedup"),
]


def rank(results, memory_id):
    ids = ids_of(results)
    return ids.index(memory_id) + 1 if memory_id in ids else 10**6


@pytest.mark.model
def test_hybrid_ranks_japanese_memories_at_least_as_well_as_keyword(svc_local):
    ids = {}
    for texts in (JAPANESE, FINNISH, ENGLISH):
        ids.update(fill(svc_local, texts))
    embedded(svc_local)
    for query, key in QUERIES:
        kw = rank(svc_local.search(query, mode="keyword", limit=20), ids[key])
        hy = rank(svc_local.search(query, mode="hybrid", limit=20), ids[key])
        assert hy <= kw, (query, kw, hy)


@pytest.mark.model
def test_a_japanese_query_lists_no_noise_from_an_english_only_model(svc_local):
    # The semantic list is ignored for a Japanese query the model cannot read: memories it alone found have no
    # evidence and are not listed (they used to trail the keyword hits with a score of 0).
    ids = fill(svc_local, JAPANESE)
    fill(svc_local, ENGLISH)
    embedded(svc_local)
    results = svc_local.search("チャンク分割", mode="hybrid", limit=20)
    assert results and results[0].memory.id == ids["chunk"]
    assert all(r.score > 0 and r.explanation.keyword_rank for r in results)


@pytest.mark.model
def test_an_english_query_does_not_bury_a_japanese_memory_it_names(svc_local):
    """The query is English, so its semantic weight stays full; the mostly-Japanese memory's vector is noise
    and must not push it below English memories that keyword search does not find at all."""
    target = svc_local.save(JAPANESE["dedup"], title="重複対策")
    for i in range(8):
        svc_local.save(f"Cluster note {i}: we keep caches warm, merge replicas and watch thresholds of eviction.")
    embedded(svc_local)
    assert ids_of(svc_local.search("summary merge", mode="keyword", limit=5))[0] == target.id
    assert ids_of(svc_local.search("summary merge", mode="hybrid", limit=5))[0] == target.id


@pytest.mark.model
def test_summary_is_embedded_while_the_full_text_is_searched_and_shown(svc_local):
    """Seed 003: the summary, when present, is what is embedded; the text stays searchable and whole."""
    text = "Raw transcript: " + " ".join(f"line {i} of the zebra migration discussion" for i in range(40))
    item = svc_local.save(text, summary="Decision to move the database to PostgreSQL")
    svc_local.save("Grocery list: apples, bread, cheese")
    embedded(svc_local)
    row = svc_local.store.conn.execute(
        "SELECT group_concat(content_snippet, ' ') FROM memory_chunks WHERE memory_pk = ?",
        (svc_local.store.pk_of(item.id),)).fetchone()[0]
    assert row == "Decision to move the database to PostgreSQL"  # the chunks are the summary, not the text
    assert ids_of(svc_local.search("which database did we migrate to", mode="semantic", limit=1)) == [item.id]
    assert ids_of(svc_local.search("zebra", mode="keyword", limit=1)) == [item.id]  # only in the full text
    assert svc_local.get(item.id).content == text


def test_japanese_particles_are_not_query_terms():
    terms = tokens.query_terms("保存時に重複を検索するには？")
    assert {"保存", "重複", "検索"} <= set(terms) and not {"に", "を", "は"} & set(terms)
    assert tokens.query_terms("の") == ["の"]  # a query of nothing but particles still searches for them
