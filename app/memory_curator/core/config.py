"""Engine configuration: a value passed in by a composition root, never read from globals here."""

from __future__ import annotations

from dataclasses import dataclass, field


def _default_decay() -> dict[str, float]:
    return {"decisions": 1.0, "summaries": 0.99, "context": 0.90}


@dataclass(frozen=True)
class MemoryConfig:
    # Embeddings
    embedder: str = "auto"  # "auto" | "ollama" | "local" | "none"
    ollama_host: str = "http://localhost:11434"
    ollama_model: str = "nomic-embed-text"
    ollama_timeout_s: float = 30.0
    embed_batch_size: int = 32
    embedder_retry_s: float = 60.0  # after a provider failure, skip it this long before trying again
    # A search waits this long for a remote provider's query vector, then answers by keyword with a warning.
    query_embed_wait_s: float = 3.0
    # Closing waits this long for the memories this process wrote to be embedded (the CLI: it exits next).
    embed_close_wait_s: float = 0.0
    # The bundled offline model: its dynamically quantized derivation (about twice as fast) or the file as it
    # ships, "all-MiniLM-L6-v2" (core/embed/local.py). A vault on the other one moves to it (re-embedded).
    local_model: str = "all-MiniLM-L6-v2-dynamic-int8"
    # Where the quantized model is kept once derived (the composition roots give the user's cache folder);
    # None: derived in memory once per process.
    model_cache_dir: str | None = None

    # Chunking (parent-child): tokens are words, or single CJK characters
    chunk_size: int = 512
    chunk_overlap: int = 50

    # Search
    default_search_limit: int = 5
    max_search_limit: int = 100
    keyword_weight: float = 0.5  # the keyword side's share of a hybrid score (core/fusion.py)
    # The graph leg's weight in hybrid search (entities the query names; 0 = off). LoCoMo dev: see README.
    graph_weight: float = 0.0
    # Keyword ranking from kept postings (core/index/postings.py), built in the background from this many rows
    # up for the words in ``postings_common`` rows or more; rows written since are folded back past
    # ``postings_fold_at`` of them.
    postings_min_rows: int = 50_000  # core/index/postings.py MIN_ROWS: why there
    postings_common: int = 100
    postings_fold_at: int = 1_000

    # Lifecycle
    default_salience: float = 0.8
    category_decay_rates: dict[str, float] = field(default_factory=_default_decay)
    salience_decay_days: int = 7
    cleanup_threshold: float = 0.1
    dedup_threshold: float = 0.95
    access_log_days: int = 30

    # Sessions (seed 000): past this many tokens (characters / 4, get_session_token_count) a session is worth
    # summarizing; the caller (its LLM) writes the summary, the engine never calls a model to write one.
    summarize_token_threshold: int = 50_000

    # OCR of images and scanned PDF pages on import (Tesseract; the installed ones of these languages are used)
    ocr_command: str = "tesseract"
    ocr_languages: tuple[str, ...] = ("eng", "fin", "jpn")

    # Other programs' edits: file events where they reach (poll_changes starts a watcher), else a stat scan
    watch_files: bool = True

    # Bad input
    max_content_bytes: int = 10 * 1024 * 1024
