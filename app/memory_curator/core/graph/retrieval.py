"""The graph leg of hybrid search (seed 002's Nexus): memories linked to the entities a query names.

1. Entities named: the query's word n-grams (and names found in it) that are entity names in the index, or
   names of an entity by the user's merges (aliases). Common words and hidden names are left out.
2. Query expansion: each named entity brings its other names (aliases) and the entities closely linked to it
   (mentioned together in at least ``CLOSE_SHARE`` of its memories).
3. Ranking: a memory mentioning a named entity scores its rarity (idf, by source); one mentioning a closely
   linked entity scores a fraction; memories one hop from the best (wikilinks, supersedes, parts, links
   added by hand) score half of what linked them. The ranked list is fused with keyword and semantic ranks.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from memory_curator.core.graph.corrections import Corrections
from memory_curator.core.graph.extract import fold
from memory_curator.core.graph.names import STARTERS, names
from memory_curator.core.index.store import IndexStore
from memory_curator.core.text import japanese
from memory_curator.core.text.tokens import has_cjk

MAX_NGRAM = 4
SOURCE_WEIGHT = {"actor": 1.0, "wikilink": 1.0, "name": 1.0, "keyword": 0.7}
CLOSE_SHARE = 0.3  # an entity mentioned with a named one in this share of its memories is closely linked
CLOSE_WEIGHT = 0.3
HOP_WEIGHT = 0.5
HOP_FROM = 20  # the best direct hits whose links are followed
MAX_DF_SHARE = 0.05  # an entity in more memories than this share says little about a query (a hub)
MAX_FETCH = 2000  # mentions read per entity at most (a rare entity is the useful one)
_WORDS = re.compile(r"[\w'’\-]+", re.U)


@dataclass
class GraphLeg:
    ranked: list[tuple[int, float]] = field(default_factory=list)  # (memory pk, score), best first
    entities: list[str] = field(default_factory=list)  # named in the query (display names)
    expansion: list[str] = field(default_factory=list)  # aliases and closely linked entities added
    why: dict[int, str] = field(default_factory=dict)  # memory pk -> how the graph reached it


def candidates(query: str) -> dict[str, str]:
    """Folded word n-grams of the query, and the names found in it, that could name an entity (with the
    words as the query wrote them)."""
    out: list[tuple[str, str]] = []
    words = [w for w in _WORDS.findall(query) if not has_cjk(w)]
    for n in range(1, MAX_NGRAM + 1):
        for i in range(len(words) - n + 1):
            gram = words[i : i + n]
            if n == 1 and gram[0].lower() in STARTERS:
                continue
            out.append((fold(" ".join(gram)), " ".join(gram)))
    if has_cjk(query):
        jw = [w for w in japanese.words(query) if w.strip()]
        for n in range(1, MAX_NGRAM + 1):
            for i in range(len(jw) - n + 1):
                out.append((fold("".join(jw[i : i + n])), "".join(jw[i : i + n])))
    out += [(fold(n), n) for n in names(query)]
    found: dict[str, str] = {}
    for key, surface in out:
        if len(key) >= 2:
            found.setdefault(key, surface)
    return found


def rank(store: IndexStore, fix: Corrections, query: str, where: str, params: Sequence, n: int) -> GraphLeg:
    leg = GraphLeg()
    gr = store.graph_rows
    cands = candidates(query)
    # Names of entities merged by the user count too, whether or not a memory spells them that way.
    named = {fix.key_of(c) for c in cands if c in fix.canonical}
    counts = gr.memory_counts(list(cands))
    shown = {fix.key_of(c): fix.display.get(fix.key_of(c), surface) for c, surface in cands.items()}
    named |= {fix.key_of(c) for c in counts}
    named = {k for k in named if not fix.is_hidden(k)}
    if not named:
        return leg
    total = max(1, store.count())
    keys_of = {canon: fix.members(canon) for canon in named}
    counts.update(gr.memory_counts([k for ks in keys_of.values() for k in ks if k not in counts]))
    df = {canon: sum(counts.get(k, 0) for k in ks) for canon, ks in keys_of.items()}
    limit_df = max(10, int(total * MAX_DF_SHARE))
    named = {c for c in named if 0 < df[c] <= limit_df}
    # A named entity inside a longer named one ("tower" in "wizard tower") is the longer one's word.
    named = {c for c in named if not any(c != o and f" {c} " in f" {o} " for o in named)}
    if not named:
        return leg
    leg.entities = sorted(shown.get(c, c) for c in named)

    score: dict[int, float] = defaultdict(float)
    why: dict[int, str] = {}

    def idf(d: int) -> float:
        return math.log(1 + total / max(1, d))

    for canon in named:
        aliases = [k for k in keys_of[canon] if k != canon and counts.get(k)]
        leg.expansion += aliases
        seen: set[int] = set()
        for pk, _key, source in gr.mentioning(keys_of[canon], MAX_FETCH):
            w = idf(df[canon]) * SOURCE_WEIGHT.get(source, 1.0)
            if pk in seen:
                continue  # one entity counts once per memory, by its strongest source seen first
            seen.add(pk)
            score[pk] += w
            why.setdefault(pk, f"mentions {shown.get(canon, canon)}")
        # Closely linked entities: mentioned together with this one in a good share of its memories.
        for other, other_name, together in gr.co_mentioned(keys_of[canon], 8):
            o = fix.key_of(other)
            if o in named or fix.is_hidden(o) or together < 2 or together < CLOSE_SHARE * min(df[canon], 300):
                continue
            odf = gr.memory_counts([other]).get(other, 0)
            if not 0 < odf <= limit_df:
                continue
            leg.expansion.append(fix.display.get(o, other_name))
            for pk, _key, _source in gr.mentioning([other], MAX_FETCH):
                score[pk] += CLOSE_WEIGHT * idf(odf)
                why.setdefault(pk, f"mentions {fix.display.get(o, other_name)}, linked to {shown.get(canon, canon)}")

    best = sorted(score, key=lambda p: -score[p])[:HOP_FROM]
    hops = gr.links_from(best) + gr.links_to(best)
    for a, b, kind in hops:
        src, dst = (a, b) if a in score else (b, a)
        if dst not in score or score[dst] < HOP_WEIGHT * score[src]:
            why.setdefault(dst, f"{kind} link to a memory that mentions {', '.join(leg.entities)}")
        score[dst] = max(score[dst], HOP_WEIGHT * score[src])
    if fix.added:
        ids = gr.ids_of_pks(best)
        pks = gr.pks_of_ids([x for pair in fix.added for x in pair if any(i in pair for i in ids.values())])
        for pk in best:
            for pair in fix.added:
                if ids.get(pk) in pair:
                    other = pks.get(next(iter(pair - {ids[pk]}), ""))
                    if other is not None:
                        score[other] = max(score[other], HOP_WEIGHT * score[pk])
                        why.setdefault(other, "linked by hand to a memory about the query's entities")

    ordered = sorted(score, key=lambda p: (-score[p], p))
    allowed = gr.allowed(ordered[: n * 4], where, params)
    leg.ranked = [(pk, score[pk]) for pk in ordered[: n * 4] if pk in allowed][:n]
    leg.why = {pk: why.get(pk, "") for pk, _ in leg.ranked}
    leg.expansion = list(dict.fromkeys(leg.expansion))
    return leg
