"""A sync reads a file found unreadable again only when its modification time or size changed (core/indexing
_compare): every sync read every unreadable file again (12 of them at every poll of the app in a hostile
vault). A fix changes the mtime; a file written in the last seconds is read again anyway, as a fix of the same
size in the same mtime step (1-2 s on ext3, FAT, HFS+) would keep both."""

from __future__ import annotations

import os
import time

from memory_curator.core.service import MemoryService

BROKEN = "---\ntitle: [unclosed\n---\nbody\n"
FIXED = "---\ntitle: unclosed!\n---\nbody\n"  # the same size: only the mtime tells the fix apart


def _write(path, text: str, age_s: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    when = time.time_ns() - int(age_s * 1e9)
    os.utime(path, ns=(when, when))


def _problems(svc) -> list[str]:
    return [p.path for p in svc.problems()]


def test_an_unreadable_file_is_not_read_again_until_it_changes(svc, vault_dir):
    assert len(FIXED) == len(BROKEN)
    svc.save("a readable memory", title="fine")
    broken = vault_dir / "context" / "broken.md"
    _write(broken, BROKEN, age_s=60)
    first = svc.sync()
    assert _problems(svc) == ["context/broken.md"] and first.problems
    again = svc.sync()
    assert again.unchanged == 2  # the broken file counted unchanged, not read (fails before: 1)
    assert _problems(svc) == ["context/broken.md"]  # still listed in Vault health
    _write(broken, FIXED, age_s=0)  # fixed: a new mtime, the same size
    fixed = svc.sync()
    assert (fixed.added, fixed.unchanged) == (1, 1) and _problems(svc) == []
    assert "unclosed!" in {m.title for m in svc.list_memories()}


def test_a_file_found_unreadable_just_after_it_was_written_is_read_again(svc, vault_dir):
    broken = vault_dir / "context" / "broken.md"
    _write(broken, BROKEN, age_s=0)
    svc.sync()
    assert svc.sync().unchanged == 0  # read again: its mtime was too recent to stand for its bytes
    _write(broken, BROKEN, age_s=60)
    svc.sync()
    assert svc.sync().unchanged == 1 and _problems(svc) == ["context/broken.md"]


def test_a_rebuild_reads_it_again_and_another_process_lists_it(svc, vault_dir, config):
    broken = vault_dir / "context" / "broken.md"
    _write(broken, BROKEN, age_s=60)
    svc.sync()
    assert svc.sync().unchanged == 1
    svc.rebuild_index(embed=False)
    assert _problems(svc) == ["context/broken.md"]
    assert svc.sync().unchanged == 0  # the rebuild read it without keeping its stat: read once more
    assert svc.sync().unchanged == 1
    with MemoryService.open(vault_dir, embedder="none", config=config) as other:
        assert other.sync().unchanged == 1 and _problems(other) == ["context/broken.md"]
