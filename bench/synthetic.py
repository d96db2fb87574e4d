"""Synthetic memories with precomputed vectors, so benchmarks measure the engine and never an embedder.

Words follow a Zipf law over a made-up vocabulary whose most frequent words are English stop words (as in
real text, where function words are the most common); every memory belongs to one of a few hundred topics that
shape both its words and its vector (topic centre plus noise in a low-rank subspace, like real embeddings),
so keyword and semantic search have real structure to find.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from memory_curator.core.model import EmbedderStatus, MemoryItem
from memory_curator.core.text.tokens import STOPWORDS
from memory_curator.core.vault.codec import encode_memory
from memory_curator.core.vault.slug import slugify
from memory_curator.core.vault.yaml_handler import HANDLER

_SYLLABLES = "ka ri to mo ne sa lu vi ex or an is ut pel dor gra mi zen tal ros fin bel cor".split()
CATEGORIES = ("decisions", "summaries", "context")


def _vocabulary(size: int, rng: np.random.Generator) -> list[str]:
    words: dict[str, None] = dict.fromkeys(sorted(STOPWORDS))
    while len(words) < size:
        n = int(rng.integers(2, 5))
        words.setdefault("".join(rng.choice(_SYLLABLES, n)), None)
    return list(words)


@dataclass
class Corpus:
    titles: list[str]
    contents: list[str]
    keywords: list[list[str]]
    categories: list[str]
    vectors: np.ndarray  # (n, dim) float32, L2-normalised
    queries: list[str]
    query_vectors: np.ndarray
    query_targets: list[int]  # the memory each query was drawn from


def make_corpus(n: int, dim: int = 768, n_queries: int = 200, seed: int = 7, topics: int = 400,
                rank: int = 64, block: int = 100_000) -> Corpus:
    """Made in blocks of ``block`` memories with whole-block draws (1,000,000 memories in about a minute; one
    ``rng.choice`` per memory took 30 minutes), so memory stays at the result's size plus one block's."""
    rng = np.random.default_rng(seed)
    vocab = _vocabulary(20_000, rng)
    words = np.asarray(vocab, dtype=object)
    zipf = 1.0 / np.arange(1, len(vocab) + 1) ** 1.05
    cdf = np.cumsum(zipf)
    cdf /= cdf[-1]
    topic_words = np.stack([rng.choice(len(vocab), 60, replace=False) for _ in range(topics)])
    centres = rng.standard_normal((topics, dim)).astype(np.float32)
    basis = rng.standard_normal((rank, dim)).astype(np.float32) / np.sqrt(rank)
    topic_of = rng.integers(0, topics, n)

    titles: list[str] = []
    contents: list[str] = []
    keywords: list[list[str]] = []
    vectors = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, block):
        end = min(n, start + block)
        topic = topic_of[start:end]
        k = rng.integers(25, 90, end - start)  # words drawn by frequency (Zipf)
        own_k = np.maximum(3, k // 4)  # and words of the memory's topic
        common = np.minimum(np.searchsorted(cdf, rng.random(int(k.sum())), side="right"), len(vocab) - 1)
        own = topic_words[np.repeat(topic, own_k), rng.integers(0, 60, int(own_k.sum()))]
        c_at = np.concatenate([[0], np.cumsum(k)[:-1]])
        o_at = np.concatenate([[0], np.cumsum(own_k)[:-1]])
        # Each memory's words shuffled together: sort by (memory, random key).
        member = np.concatenate([np.repeat(np.arange(end - start), k), np.repeat(np.arange(end - start), own_k)])
        order = np.lexsort((rng.random(len(member)), member))
        body = words[np.concatenate([common, own])[order]].tolist()
        ends = np.cumsum(k + own_k).tolist()
        first_own, second_own, first_common = words[own[o_at]], words[own[o_at + 1]], words[common[c_at]]
        lo = 0
        for j, hi in enumerate(ends):
            i = start + j
            titles.append(f"{first_own[j].capitalize()} {first_common[j]} {i}")
            contents.append(" ".join(body[lo:hi]) + ".")
            keywords.append([first_own[j], second_own[j]])
            lo = hi
        vectors[start:end] = _topic_vectors(rng, centres[topic], basis)
    categories = [CATEGORIES[i % 3] for i in range(n)]

    targets = rng.integers(0, n, n_queries).tolist()
    queries = []
    for q in targets:
        qwords = [w for w in contents[q].rstrip(".").split() if w not in STOPWORDS]  # what people type
        queries.append(" ".join(rng.choice(qwords, min(len(qwords), int(rng.integers(2, 5))), replace=False)))
    qv = _near(rng, vectors[targets])
    return Corpus(titles, contents, keywords, categories, vectors, queries, qv.astype(np.float32), targets)


def _topic_vectors(rng: np.random.Generator, centres: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """Unit vectors: a topic centre, plus noise in a shared low-rank subspace, plus a little full-rank noise."""
    n, dim = centres.shape
    v = centres + rng.standard_normal((n, basis.shape[0]), dtype=np.float32) @ basis * 2.0
    v += 0.3 * rng.standard_normal((n, dim), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v.astype(np.float32)


def _near(rng: np.random.Generator, targets: np.ndarray) -> np.ndarray:
    """Queries close to given vectors (a question about one memory)."""
    q = targets + 0.04 * rng.standard_normal(targets.shape).astype(np.float32)
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)


def make_vectors(n: int, dim: int = 768, n_queries: int = 200, seed: int = 7, topics: int = 400,
                 rank: int = 64, block: int = 100_000) -> tuple[np.ndarray, np.ndarray]:
    """Vectors as ``make_corpus`` makes them, without the text (1,000,000 x 768 is 3 GB; made in blocks), and
    queries near some of them."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((topics, dim)).astype(np.float32)
    basis = rng.standard_normal((rank, dim)).astype(np.float32) / np.sqrt(rank)
    out = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, block):
        end = min(n, start + block)
        out[start:end] = _topic_vectors(rng, centres[rng.integers(0, topics, end - start)], basis)
    return out, _near(rng, out[rng.integers(0, n, n_queries)])


def write_vault_files(root: Path, corpus: Corpus, check_every: int = 1000) -> None:
    """Write the corpus as markdown files straight to disk (setup, not measured; no fsync per file).

    The header is filled into the text ``encode_memory`` gives these memories (YAML's own spelling of each
    keyword, cached), about ten times faster than dumping YAML per file; every ``check_every``-th file is
    compared with ``encode_memory``'s text and a difference stops the run."""
    start = datetime(2025, 1, 1, tzinfo=timezone.utc)
    for category in set(corpus.categories):
        (root / category).mkdir(parents=True, exist_ok=True)
    spelled: dict[str, str] = {}

    def yaml_word(word: str) -> str:
        if word not in spelled:
            spelled[word] = HANDLER.export({"k": word}).removeprefix("k: ").rstrip("\n")
        return spelled[word]

    for i, title in enumerate(corpus.titles):
        when = start + timedelta(minutes=i)
        stamp = f"{when:%Y-%m-%dT%H:%M:%S}Z"
        kw = "".join(f"- {yaml_word(w)}\n" for w in corpus.keywords[i])
        text = (f"---\nid: 00000000-0000-4000-8000-{i:012d}\ntitle: {title}\ncategory: {corpus.categories[i]}\n"
                f"created_at: '{stamp}'\nupdated_at: '{stamp}'\nsession_id: s{i // 50}\nsource: user\n"
                f"keywords:\n{kw}salience: 0.8\n---\n\n{corpus.contents[i]}\n")
        if i % check_every == 0:
            item = MemoryItem(id=f"00000000-0000-4000-8000-{i:012d}", content=corpus.contents[i], title=title,
                              category=corpus.categories[i], created_at=when, updated_at=when,
                              keywords=tuple(corpus.keywords[i]), session_id=f"s{i // 50}")
            if text != encode_memory(item):
                raise AssertionError(f"memory {i}: the filled-in header differs from encode_memory's")
        with open(root / corpus.categories[i] / f"{when:%Y-%m-%d}_{slugify(title)}.md", "w", encoding="utf-8") as fh:
            fh.write(text)


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class PrecomputedEmbedder:
    """Bench-only Embedder: returns the vector prepared for a text (matched by the title line of a chunk,
    or by the exact query). Satisfies core.embed.base.Embedder."""

    provider = "bench"
    model = "precomputed"
    multilingual = True
    max_chunk_tokens = 512
    answers_at_once = True  # a dict lookup: the search calls it on its own thread (issue 14 excludes embedding)

    def __init__(self, corpus: Corpus):
        self._dim = corpus.vectors.shape[1]
        self._by_title = {t: i for i, t in enumerate(corpus.titles)}
        self._vectors = corpus.vectors
        self._queries = {_key(q): corpus.query_vectors[i] for i, q in enumerate(corpus.queries)}

    @property
    def key(self) -> str:
        return f"{self.provider}:{self.model}"

    def dimension(self) -> int:
        return self._dim

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vectors[self._by_title[t.split("\n", 1)[0]]] for t in texts]  # type: ignore[misc]

    def embed_query(self, text: str) -> list[float]:
        return self._queries[_key(text)]  # type: ignore[return-value]

    def status(self) -> EmbedderStatus:
        return EmbedderStatus(self.provider, self.model, True, "precomputed vectors")
