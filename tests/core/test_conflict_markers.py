"""Git's conflict markers read from untrusted files: the sides as git wrote them, nothing else taken for a
conflict, never an exception."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memory_curator.core.conflicts import markers

LINES = st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x0b\x0c"
                                                  "\x1c\x1d\x1e\x85\u2028\u2029"), max_size=30), max_size=6)


def _block(lines):
    return "".join(f"{ln}\n" for ln in lines)


@given(LINES, LINES, LINES, LINES, st.booleans())
def test_the_sides_come_back_as_git_wrote_them(before, ours, theirs, after, diff3):
    clean = [ln for part in (before, ours, theirs, after) for ln in part if not ln.startswith(("<<<<<<<", "|||||||",
                                                                                             "=======", ">>>>>>>"))]
    if len(clean) != sum(map(len, (before, ours, theirs, after))) or any("```" in ln or "~~~" in ln for ln in clean):
        return  # lines that are themselves markers or fences are other tests' matter
    base = "|||||||  base\nold\n" if diff3 else ""
    text = (_block(before) + "<<<<<<< HEAD\n" + _block(ours) + base + "=======\n" + _block(theirs)
            + ">>>>>>> origin/main\n" + _block(after))
    sides = markers.split(text)
    assert sides is not None
    assert sides.ours == _block(before) + _block(ours) + _block(after)
    assert sides.theirs == _block(before) + _block(theirs) + _block(after)
    assert (sides.base == _block(before) + "old\n" + _block(after)) if diff3 else sides.base is None


@given(st.text(max_size=400))
def test_any_text_is_read_without_an_exception(text):
    sides = markers.split(text)
    assert sides is None or (markers.OPEN in text and sides.ours.count("\n") <= text.count("\n"))


def test_what_is_not_a_conflict():
    assert markers.split("Title\n=======\n\ntext\n") is None  # a setext heading
    assert markers.split("<<<<<<< HEAD\nno end\n=======\n") is None  # unbalanced: not git's
    assert markers.split("```\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n```\n") is None  # quoted in a fence


def test_where_the_conflict_is():
    front = markers.split("---\nid: x\n<<<<<<< HEAD\ntitle: A\n=======\ntitle: B\n>>>>>>> o\n---\n\nbody\n")
    assert (front.in_frontmatter, front.in_body) == (True, False)
    body = markers.split("---\nid: x\n---\n\n<<<<<<< HEAD\nA\n=======\nB\n>>>>>>> o\n")
    assert (body.in_frontmatter, body.in_body) == (False, True)


def test_a_conflicted_file_whose_sides_are_both_broken_keeps_the_indexed_version(svc):
    item = svc.save("Kept as indexed.", title="Plan")
    rel = svc.store.file_info(item.id).file_path
    (svc.vault.root / rel).write_text("---\n<<<<<<< HEAD\n: [\n=======\n: {\n>>>>>>> o\n---\nbody\n")
    svc.sync()
    assert svc.get(item.id).content == "Kept as indexed."
    assert [p.path for p in svc.health().conflicts] == [rel]
