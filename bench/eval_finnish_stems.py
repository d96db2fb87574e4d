"""How well Finnish inflected forms meet in keyword search, by stemming method.

Finnish nouns and verbs take many suffixes, often with consonant gradation (haku / haun, tietokanta /
tietokannan). Each group below holds forms of one word, most of them from seed 000's Finnish text; a query
with one form should find a memory holding another (recall) and should not find forms of the other words
or the seed's other vocabulary (false matches).

A query word meets a stored word when keyword search would match them: the same word, the query word as a
prefix (the prefix round, words of 4+ letters), or the stem round of the method measured.

    python bench/eval_finnish_stems.py
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

GROUPS: dict[str, list[str]] = {
    "muisti": ["muisti", "muistin", "muistit", "muisteja", "muistien", "muistille", "muisteissa", "muistiin",
               "muistia"],
    "dokumentti": ["dokumentti", "dokumentin", "dokumentit", "dokumentteja", "dokumenteissa", "dokumentissa",
                   "dokumenttiin"],
    "tallennus": ["tallennus", "tallennuksen", "tallennuksesta", "tallennukset", "tallennusta"],
    "kynnys": ["kynnys", "kynnyksen", "kynnykset", "kynnystä", "kynnyksellä"],
    "päätös": ["päätös", "päätöksen", "päätökset", "päätöstä", "päätöksiä", "päätöksessä"],
    "haku": ["haku", "haun", "hakua", "haut", "hakuja", "haussa", "hausta", "hakuun"],
    "tietokanta": ["tietokanta", "tietokannan", "tietokantaan", "tietokannasta", "tietokannat", "tietokantoja"],
    "sessio": ["sessio", "session", "sessiot", "sessioiden", "sessiosta", "sessiossa", "sessioita"],
    "indeksi": ["indeksi", "indeksin", "indeksit", "indeksiä", "indeksiin", "indeksissä"],
    "kategoria": ["kategoria", "kategorian", "kategoriaan", "kategoriat", "kategorioilla", "kategorioille",
                  "kategorioita"],
    "vektori": ["vektori", "vektorin", "vektorit", "vektoreita", "vektorien", "vektoreiden"],
    "tiedosto": ["tiedosto", "tiedoston", "tiedostot", "tiedostojen", "tiedostosta", "tiedostoksi", "tiedostoon",
                 "tiedostoja"],
    "tiivistelmä": ["tiivistelmä", "tiivistelmän", "tiivistelmät", "tiivistelmiä", "tiivistelmään"],
    "käyttäjä": ["käyttäjä", "käyttäjän", "käyttäjälle", "käyttäjät", "käyttäjiä", "käyttäjien"],
    "päivitys": ["päivitys", "päivityksen", "päivitykset", "päivitystä", "päivityksiä"],
    "valinta": ["valinta", "valinnan", "valinnat", "valintaa", "valintoja"],
    "elinkaari": ["elinkaari", "elinkaaren", "elinkaarta", "elinkaareen"],
    "konteksti": ["konteksti", "kontekstin", "kontekstia", "kontekstiin"],
    "sisältö": ["sisältö", "sisällön", "sisältöä", "sisällöt", "sisältöön"],
    "teksti": ["teksti", "tekstin", "tekstille", "tekstiä", "tekstit"],
    "moduuli": ["moduuli", "moduulin", "moduulit", "moduuleihin", "moduuleja"],
    "komponentti": ["komponentti", "komponentin", "komponentit", "komponenttien", "komponentteja"],
    "prosessi": ["prosessi", "prosessin", "prosessit", "prosesseja"],
    "ristiriita": ["ristiriita", "ristiriidan", "ristiriidat", "ristiriitoja"],
    "hallinta": ["hallinta", "hallinnan", "hallinnasta", "hallintaa"],
    "toteutus": ["toteutus", "toteutuksen", "toteutuksessa", "toteutusta"],
    "määrä": ["määrä", "määrän", "määrää", "määrät"],
    "osuma": ["osuma", "osuman", "osumat", "osumia", "osumaa"],
    "järjestys": ["järjestys", "järjestyksen", "järjestyksessä", "järjestystä"],
    "kieli": ["kieli", "kielen", "kieltä", "kielet", "kieliä"],
    "lähde": ["lähde", "lähteen", "lähteet", "lähdettä", "lähteitä"],
    "tunniste": ["tunniste", "tunnisteen", "tunnisteet", "tunnistetta"],
    "avain": ["avain", "avaimen", "avaimet", "avainta"],
    "aika": ["aika", "ajan", "aikaa", "ajat", "aikoja"],
    "tapa": ["tapa", "tavan", "tapaa", "tavat", "tapoja"],
    "pöytä": ["pöytä", "pöydän", "pöytää", "pöydät"],
    "kuva": ["kuva", "kuvan", "kuvat", "kuvia", "kuvassa"],
    "tallentaa": ["tallentaa", "tallennetaan", "tallensi", "tallentanut", "tallentamaan", "tallennettu"],
    "käyttää": ["käyttää", "käytetään", "käytti", "käyttämällä", "käytettävissä"],
    "hakea": ["hakea", "haetaan", "hakee", "haki"],
    "poistaa": ["poistaa", "poistetaan", "poisti", "poistettu"],
    "päivittää": ["päivittää", "päivitetään", "päivitti", "päivitetty"],
}

SEED = Path("/work/shared/seeds/000_da9b1cac8b9036de.txt")
PREFIX_MIN = 4


def seed_vocabulary() -> set[str]:
    if not SEED.exists():
        return set()
    return set(re.findall(r"[a-zåäö]{4,}", SEED.read_text(encoding="utf-8").lower()))


def measure(name: str, stem_round: Callable[[str, str], bool]) -> dict[str, float]:
    """Recall over same-word pairs; false matches per query over every other word known."""
    group_of = {w: g for g, forms in GROUPS.items() for w in forms}
    others = seed_vocabulary() | set(group_of)

    def meets(q: str, d: str) -> bool:
        return q == d or (len(q) >= PREFIX_MIN and d.startswith(q)) or stem_round(q, d)

    hits = pairs = false = 0
    queries = 0
    for g, forms in GROUPS.items():
        for q in forms:
            queries += 1
            for d in forms:
                if d != q:
                    pairs += 1
                    hits += meets(q, d)
            false += sum(1 for d in others if group_of.get(d, d) != g and d not in forms and meets(q, d))
    return {"method": name, "recall": hits / pairs, "false per query": false / queries, "pairs": pairs,
            "queries": queries}


def methods() -> dict[str, Callable[[str, str], bool]]:
    from memory_curator.core.text import finnish

    def snow(w: str) -> str:
        return finnish.snowball_stems([w])[w]

    def prefix(q: str, d: str) -> bool:
        p = finnish.prefix_stem(q)
        return len(p) >= finnish.MIN_STEM and p != q and d.startswith(p)

    return {
        "prefix round only (no stems)": lambda q, d: False,
        "Snowball stems equal": lambda q, d: snow(q) == snow(d),
        "prefix stem (hand-written)": prefix,
        "Snowball stems equal, then prefix stem (shipped)": lambda q, d: snow(q) == snow(d) or prefix(q, d),
    }


def main() -> int:
    print(f"{len(GROUPS)} words, {sum(map(len, GROUPS.values()))} forms; seed vocabulary {len(seed_vocabulary())}")
    for name, fn in methods().items():
        m = measure(name, fn)
        print(f"{m['method']:<52} recall {m['recall']:.3f}  false matches per query {m['false per query']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
