"""A consolidation of list items reads as sentences (#17 item 10): each item keeps or gains its full stop."""

from __future__ import annotations

from memory_curator.core.lifecycle.summarize import summarize


def test_list_items_are_joined_as_sentences():
    text = "- Use SQLite for the index\n- Deploy on Tuesdays\n- Keep the files as the truth.\n- Why not Postgres?"
    out = summarize([text], ratio=1.0)
    assert out == "Use SQLite for the index. Deploy on Tuesdays. Keep the files as the truth. Why not Postgres?"


def test_japanese_list_items_gain_a_japanese_full_stop_and_prose_lines_are_kept_as_written():
    out = summarize(["- データベースはSQLite\n- 毎週火曜日にリリース"], ratio=1.0)
    assert out == "データベースはSQLite。毎週火曜日にリリース。"
    assert summarize(["A heading-less line without a stop"], ratio=1.0) == "A heading-less line without a stop"
