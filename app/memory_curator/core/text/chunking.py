"""Parent-child chunking: long content is split into overlapping windows of tokens for embedding.

A token here is a run of word characters or a single CJK character, which tracks model tokens well enough
for sizing and keeps every chunk a slice of the original text (so a snippet is always real text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|\w+|[^\w\s]", re.UNICODE)


@dataclass(frozen=True)
class Chunk:
    index: int
    start: int  # character offsets into the content
    end: int
    text: str


def chunk_text(text: str, size: int = 512, overlap: int = 50) -> list[Chunk]:
    if size <= 0 or not 0 <= overlap < size:
        raise ValueError("chunk size must be positive and overlap smaller than it")
    # Most texts fit in one chunk: counting their tokens costs half of recording where each one lies.
    if len(text) <= size or len(_TOKEN.findall(text)) <= size:
        return [Chunk(0, 0, len(text), text)] if text.strip() else []
    spans = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    chunks = []
    step = size - overlap
    i = 0
    while True:
        window = spans[i : i + size]
        start, end = window[0][0], window[-1][1]
        chunks.append(Chunk(len(chunks), start, end, text[start:end]))
        if i + size >= len(spans):
            break
        i += step
    return chunks
