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
                rank: int = 64) -> Corpus:
    rng = np.random.default_rng(seed)
    vocab = _vocabulary(20_000, rng)
    zipf = 1.0 / np.arange(1, len(vocab) + 1) ** 1.05
    zipf /= zipf.sum()
    topic_words = [rng.choice(len(vocab), 60, replace=False) for _ in range(topics)]
    centres = rng.standard_normal((topics, dim)).astype(np.float32)
    basis = rng.standard_normal((rank, dim)).astype(np.float32) / np.sqrt(rank)
    topic_of = rng.integers(0, topics, n)

    titles, contents, keywords, categories = [], [], [], []
    for i in range(n):
        t = topic_of[i]
        k = int(rng.integers(25, 90))
        common = rng.choice(len(vocab), k, p=zipf)
        own = rng.choice(topic_words[t], max(3, k // 4))
        body = [vocab[w] for w in np.concatenate([common, own])]
        rng.shuffle(body)
        titles.append(f"{vocab[own[0]].capitalize()} {vocab[common[0]]} {i}")
        contents.append(" ".join(body) + ".")
        keywords.append([vocab[w] for w in own[:2]])
        categories.append(CATEGORIES[i % 3])

    vectors = _topic_vectors(rng, centres[topic_of], basis)
    targets = rng.integers(0, n, n_queries).tolist()
    queries = []
    for q in targets:
        words = [w for w in contents[q].rstrip(".").split() if w not in STOPWORDS]  # what people type
        queries.append(" ".join(rng.choice(words, min(len(words), int(rng.integers(2, 5))), replace=False)))
    qv = _near(rng, vectors[targets])
    return Corpus(titles, contents, keywords, categories, vectors.astype(np.float32), queries,
                  qv.astype(np.float32), targets)


def _topic_vectors(rng: np.random.Generator, centres: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """Unit vectors: a topic centre, plus noise in a shared low-rank subspace, plus a little full-rank noise."""
    n, dim = centres.shape
    v = centres + rng.standard_normal((n, basis.shape[0])).astype(np.float32) @ basis * 2.0
    v += 0.3 * rng.standard_normal((n, dim)).astype(np.float32)
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


def write_vault_files(root: Path, corpus: Corpus) -> None:
    """Write the corpus as markdown files straight to disk (setup, not measured; no fsync per file)."""
    start = datetime(2025, 1, 1, tzinfo=timezone.utc)
    for i, title in enumerate(corpus.titles):
        when = start + timedelta(minutes=i)
        item = MemoryItem(id=f"00000000-0000-4000-8000-{i:012d}", content=corpus.contents[i], title=title,
                          category=corpus.categories[i], created_at=when, updated_at=when,
                          keywords=tuple(corpus.keywords[i]), session_id=f"s{i // 50}")
        folder = root / item.category
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{when:%Y-%m-%d}_{slugify(title)}.md").write_text(encode_memory(item), encoding="utf-8")


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class PrecomputedEmbedder:
    """Bench-only Embedder: returns the vector prepared for a text (matched by the title line of a chunk,
    or by the exact query). Satisfies core.embed.base.Embedder."""

    provider = "bench"
    model = "precomputed"
    multilingual = True
    max_chunk_tokens = 512

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
