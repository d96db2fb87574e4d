"""The fast frontmatter reader returns what yaml.safe_load returns, or None (then YAML reads the file)."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from memory_curator.core.model import MemoryItem
from memory_curator.core.vault import plain_yaml
from memory_curator.core.vault.codec import encode_memory
from memory_curator.core.vault.yaml_handler import HANDLER, FrontmatterError

TRICKY = [
    "plain", "two words", "Caroline (1:56 pm on 8 May, 2023)", "yes", "No", "on", "OFF", "null", "~", "true",
    "123", "0.85", "012", "1:30", "2025-11-25", "2025-11-25T14:30:00Z", "-5", "+3", "1e5", ".inf", "a: b",
    "a #b", "C#", "ends:", "it's", "'quoted'", '"dq"', "back\\slash", "tab\there", "日本語のタイトル",
    "Muistin käyttö", "- dash", "[list]", "{map}", "&anchor", "*alias", "!tag", "|", ">", "%", "@at", "`tick",
    " lead", "trail ", "", "=", "<<", "line\u2028sep", "nbsp\u00a0x", "ctl\x07", "x\u0085y", "Ünïcode", "a,b",
]


def _item(rng: random.Random) -> MemoryItem:
    when = datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    def pick() -> str:
        return rng.choice(TRICKY) if rng.random() < 0.05 else rng.choice(["alpha", "beta gamma", "Delta-9"])

    return MemoryItem(
        id=pick() or "x", content="body", title=pick() or "t", category="context", created_at=when,
        updated_at=when, session_id=pick() or None, source="user", keywords=tuple(pick() for _ in range(3)),
        salience=rng.choice([0.0, 0.5, 1.0, 0.8123]), scope=pick() or None, pinned=rng.random() < 0.3,
        extra={"custom_" + str(rng.randint(0, 3)): rng.choice([pick(), 7, 1.5, True, None, [pick()], {"k": 1}])}
        if rng.random() < 0.3 else {},
    )


def _front(text: str) -> str:
    return text.split("---\n", 2)[1]


def test_agrees_with_yaml_on_generated_files():
    rng = random.Random(5)
    fast_hits = 0
    for _ in range(1500):
        block = _front(encode_memory(_item(rng)))
        got = plain_yaml.load(block)
        if got is not None:
            fast_hits += 1
            assert got == yaml.safe_load(block), block
    assert fast_hits > 150  # the fast path is really taken


@pytest.mark.parametrize("value", TRICKY)
def test_agrees_with_yaml_on_hand_written_scalars(value):
    for block in (f"k: {value}\n", f"k:\n- {value}\n- x\n", f"{value}: 1\n"):
        try:
            want = yaml.safe_load(block)
        except yaml.YAMLError:
            assert plain_yaml.load(block) is None
            continue
        got = plain_yaml.load(block)
        assert got is None or got == want, block


def test_the_apps_own_frontmatter_takes_the_fast_path():
    when = datetime(2025, 11, 25, 14, 30, tzinfo=timezone.utc)
    item = MemoryItem(id="550e8400-e29b-41d4-a716-446655440000", content="x", title="Python + FastAPI",
                      category="decisions", created_at=when, updated_at=when, session_id="session_004",
                      keywords=("python", "backend"), salience=0.85)
    block = _front(encode_memory(item))
    assert plain_yaml.load(block) == yaml.safe_load(block)
    assert plain_yaml.load(block)["created_at"] == "2025-11-25T14:30:00Z"


@pytest.mark.parametrize("block", ["k: v\n# comment\n", "k:\n  nested: 1\n", "k: 'open\n", "k: v\nk: w\n",
                                   "k: |\n  text\n", "k: [a, b]\n", "k: v\n  continued\n", "true: 1\n"])
def test_unsure_cases_go_to_yaml(block):
    assert plain_yaml.load(block) is None


_LINE = st.sampled_from(["k: v", "k:", "k: ", "k:v", "k:: v", ":", "a_1: 2", "1a: x", "Ä: x", "k : v", "- item", "-  x",
                         "- ", "-", "  - x", "k: []", "k: {}", "k: [ ]", "", "\r", "k: v\r", "- a\r", "x: 'q'", "é: 1"])


@given(st.lists(_LINE | st.text(alphabet="ak:- \r'\"#[]{}1", max_size=8), max_size=12).map("\n".join))
def test_agrees_with_yaml_on_any_lines(block):
    got = plain_yaml.load(block)
    if got is not None:
        assert got == (yaml.safe_load(block) or {})  # blank lines only: no keys (YAML says None)


_PIECE = st.sampled_from(["---", "---\n", "\n---", "\n---\n", "--- \t", "---\r\n", "\r\n---\r\n", "\n----\n", "\n--- x\n",
                          "\n", "a", " ", "\r", "-", "\n-- -\n", "k: v"])


@given(st.lists(_PIECE | st.text(alphabet="-\n\r \ta", max_size=6), max_size=14).map("".join))
def test_the_header_splits_where_python_frontmatter_splits_it(text):
    """The closing line is looked for line by line (a rebuild's shortcut), not by the pattern at every character."""
    if not HANDLER.detect(text):
        return
    try:
        _, want_block, want_body = HANDLER.FM_BOUNDARY.split(text, 2)
    except ValueError:
        with pytest.raises(FrontmatterError):
            HANDLER.split(text)
    else:
        assert HANDLER.split(text) == (want_block, want_body)
