"""Japanese retrieval: keyword vs hybrid on a QA set derived from the Japanese manual pages (Debian manpages-ja).

No Japanese QA data set ships in a package on PyPI (those on PyPI download theirs from a hub at run time),
so this one is derived from public Japanese text that ships in a Debian package:

- a memory per manual page: its Japanese description section (説明), roff markup removed, first 800 chars;
- a query per page: the page's one-line Japanese summary from its name section (名前), e.g. ``ls`` ->
  「ディレクトリの内容をリスト表示する」; the relevant memory is that page's description. A second query set
  asks the same as a question (「…にはどのコマンドを使いますか？」), which adds words found everywhere; a third
  asks in English (the same page's summary from the English manual, "list directory contents"): an English
  query over Japanese memories.

Pages whose summary or description is not mostly Japanese, and summaries shared by several pages, are left
out. Modes: keyword, semantic, hybrid (the engine's CJK-aware fusion), and hybrid-naive (the same model
declared multilingual, so ranks are fused at full weight: what the engine did before it knew better).

    apt-get install manpages-ja && python bench/eval_ja_manpages.py [--limit 300] [--embedder local|none] [--vault DIR]
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_metrics import score  # noqa: E402
from timing import print_table  # noqa: E402

from memory_curator.core.config import MemoryConfig  # noqa: E402
from memory_curator.core.embed.local import DEFAULT, MODELS, LocalEmbedder  # noqa: E402
from memory_curator.core.service import MemoryService  # noqa: E402
from memory_curator.core.text.tokens import cjk_share  # noqa: E402

MAN_DIR = Path("/usr/share/man/ja")
EN_MAN_DIR = Path("/usr/share/man")
CONFIG = MemoryConfig(ollama_host="http://127.0.0.1:9")
QUESTION = "{}にはどのコマンドを使いますか？"
BODY_CHARS = 800  # the opening of the description: a memory-sized text
_FONT = re.compile(r"\\f(\[[^\]]*\]|\(..|.)")
_ESCAPES = {r"\-": "-", r"\&": "", r"\(em": "—", r"\(en": "–", r"\e": "\\", r"\ ": " ", r"\~": " ", r"\,": "",
            r"\/": "", r"\(aq": "'", r"\(dq": '"', r"\(co": "©", r"\|": "", r"\^": ""}
_SECTION = re.compile(r"^\.SH\s+\"?([^\"\n]*)\"?\s*$", re.M)


def plain(roff: str) -> str:
    """Text of roff source: macro lines dropped except their arguments (.B word -> word), escapes undone."""
    out = []
    for line in roff.splitlines():
        if line.startswith(('.\\"', "'\\\"")):
            continue
        if line.startswith("."):
            parts = line.split(None, 1)
            if len(parts) < 2 or parts[0] not in (".B", ".I", ".BR", ".IR", ".RB", ".RI", ".BI", ".IB", ".SM"):
                out.append("")
                continue
            line = parts[1].replace('"', "")
        line = _FONT.sub("", line)
        for esc, rep in _ESCAPES.items():
            line = line.replace(esc, rep)
        out.append(line.strip())
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def sections(roff: str) -> dict[str, str]:
    marks = list(_SECTION.finditer(roff))
    return {m.group(1).strip(): roff[m.end() : (marks[i + 1].start() if i + 1 < len(marks) else len(roff))]
            for i, m in enumerate(marks)}


def english_summary(page: str, section_dir: str) -> str | None:
    """The English one-line summary of the same page, from the English manual (``ls`` -> "list directory
    contents")."""
    try:
        roff = gzip.open(EN_MAN_DIR / section_dir / f"{page}.gz", "rt", encoding="utf-8", errors="replace").read()
    except OSError:
        return None
    name = sections(roff).get("NAME")
    line = plain(name).replace("\n", " ") if name else ""
    return line.split(" - ", 1)[1].strip() if " - " in line else None


def load_pages(limit: int) -> list[tuple[str, str, str, str | None]]:
    """(page name, summary, description, English summary) for pages with a Japanese summary and description."""
    pages, seen = [], {}
    for path in sorted(MAN_DIR.glob("man*/*.gz")):
        try:
            roff = gzip.open(path, "rt", encoding="utf-8", errors="strict").read()
        except (OSError, UnicodeDecodeError):
            continue
        secs = sections(roff)
        name, desc = secs.get("名前"), secs.get("説明")
        if not name or not desc:
            continue
        name_line = plain(name).replace("\n", " ")
        if " - " not in name_line:
            continue
        summary = name_line.split(" - ", 1)[1].strip()
        body = plain(desc)[:BODY_CHARS]
        if len(summary) < 6 or cjk_share(summary) < 0.6 or len(body) < 150 or cjk_share(body) < 0.4:
            continue
        seen[summary] = seen.get(summary, 0) + 1
        page = path.name.removesuffix(".gz")
        pages.append((page, summary, body, english_summary(page, path.parent.name)))
    pages = [p for p in pages if seen[p[1]] == 1]  # a summary two pages share has no single answer
    return pages[:limit]


class QueryCache:
    """The model with its query vectors remembered: every mode asks for the same queries."""

    def __init__(self, inner: LocalEmbedder, multilingual: bool | None = None):
        self._inner = inner
        self._vectors: dict[str, list[float]] = {}
        # multilingual=True: the same model claiming to read every language, so ranks are fused at full weight
        self.multilingual = inner.multilingual if multilingual is None else multilingual

    def embed_query(self, text: str) -> list[float]:
        if text not in self._vectors:
            self._vectors[text] = self._inner.embed_query(text)
        return self._vectors[text]

    def __getattr__(self, name):
        return getattr(self._inner, name)


def evaluate(svc: MemoryService, queries: list[tuple[str, str]], mode: str) -> dict[str, float]:
    runs = []
    for query, target in queries:
        ranked = [r.memory.id for r in svc.search(query, limit=10, mode=mode, record_access=False)]
        runs.append((ranked, {target}))
    return score(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=400, help="how many manual pages (default 400)")
    ap.add_argument("--embedder", choices=("local", "none"), default="local")
    ap.add_argument("--vault", type=Path, help="keep the embedded vault here and reuse it on the next run")
    ap.add_argument("--local-model", default=DEFAULT, choices=MODELS, help="the offline model")
    args = ap.parse_args()
    if not MAN_DIR.exists():
        sys.exit("Install the Japanese manual pages first: apt-get install manpages-ja")
    pages = load_pages(args.limit)
    print(f"{len(pages)} manual pages from {MAN_DIR} (Debian manpages-ja)")
    emb = QueryCache(LocalEmbedder(model=args.local_model)) if args.embedder == "local" else None
    with tempfile.TemporaryDirectory() as tmp:
        vault = args.vault or Path(tmp) / "vault"
        svc = MemoryService.open(vault, embedder=emb or "none", config=CONFIG)
        by_title = {it.title: it.id for it in svc.list_memories(limit=100_000)}
        todo = [{"content": body, "title": name, "category": "context"} for name, _, body, _ in pages
                if name not in by_title]
        start = time.perf_counter()
        by_title.update({it.title: it.id for it in svc.save_batch(todo)} if todo else {})
        svc.embedding.wait(3600)  # the vectors come after the save, from the background unit
        print(f"saved and embedded {len(todo)} pages in {time.perf_counter() - start:.1f} s")
        ids = [by_title[name] for name, _, _, _ in pages]
        sets = {
            "summary": [(summary, ids[i]) for i, (_, summary, _, _) in enumerate(pages)],
            "question": [(QUESTION.format(summary), ids[i]) for i, (_, summary, _, _) in enumerate(pages)],
            "english": [(en, ids[i]) for i, (_, _, _, en) in enumerate(pages) if en],
        }
        print(", ".join(f"{len(q)} {name} queries" for name, q in sets.items()))
        modes = ["keyword"] + (["semantic", "hybrid"] if emb else [])
        rows = []
        for set_name, queries in sets.items():
            for mode in modes:
                rows.append((set_name, mode, evaluate(svc, queries, mode)))
        svc.close()
        if emb:
            naive_emb = QueryCache(emb._inner, multilingual=True)
            naive_emb._vectors = emb._vectors
            with MemoryService.open(vault, embedder=naive_emb, config=CONFIG) as naive:
                for set_name, queries in sets.items():
                    rows.append((set_name, "hybrid-naive", evaluate(naive, queries, "hybrid")))
    order = {"summary": 0, "question": 1, "english": 2}
    rows.sort(key=lambda r: order[r[0]])
    print_table([{"queries": s, "mode": m, **{k: f"{v[k]:.3f}" for k in ("R@1", "R@5", "R@10", "MRR@10")}}
                 for s, m, v in rows])


if __name__ == "__main__":
    main()
