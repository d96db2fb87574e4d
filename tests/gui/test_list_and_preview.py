"""The memory list fetches lazily as it scrolls; the markdown preview loads nothing and runs nothing."""

from __future__ import annotations

from PySide6.QtCore import Qt

from memory_curator.core.service import MemoryService
from memory_curator.gui.models.memory_table import PAGE
from memory_curator.gui.widgets.preview import SafePreview


def test_the_list_fetches_pages_as_the_view_scrolls(harness, vault_dir, config, qtmodeltester):
    total = PAGE * 2 + 37
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        svc.save_batch([{"content": f"Memory number {i}", "title": f"M{i:05d}"} for i in range(total)])
    w = harness.open(vault_dir)
    model = w.list_model
    assert model.rowCount() == PAGE and model.canFetchMore()
    for expected in (PAGE * 2, total):
        w.list_view.scrollToBottom()
        harness.qtbot.waitUntil(lambda e=expected: model.rowCount() == e, timeout=10000)
    assert not model.canFetchMore()
    ids = [model.item(r).id for r in range(model.rowCount())]
    assert len(set(ids)) == total  # no row twice, none missing
    qtmodeltester.check(model)


def test_preview_renders_markdown_without_remote_content_or_script(qtbot):
    view = SafePreview()
    qtbot.addWidget(view)
    view.show_markdown("# Title\n\n**bold** Hyvää 日本語\n\n![x](http://example.com/pixel.png)\n\n"
                       "<script>alert('x')</script>\n\n<img src='file:///etc/passwd'>")
    html = view.toHtml()
    assert "Title" in view.toPlainText() and "font-weight" in html
    assert "<script>alert('x')</script>" in view.toPlainText()  # shown as text, not run or hidden
    view.show()
    view.grab()  # layout and paint: the moment a browser would fetch images
    assert "http://example.com/pixel.png" in view.requested_resources  # asked for, and refused
    assert not view.openExternalLinks() and not view.openLinks()


def test_each_column_of_the_list_shows_its_field(harness, vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        item = svc.save("Deploy on Fridays is forbidden", title="Deploy rule", category="decisions", salience=0.35)
    w = harness.open(vault_dir)
    model = w.list_model
    cells = [model.index(0, c).data() for c in range(model.columnCount())]
    day = item.updated_at.astimezone().strftime("%Y-%m-%d")
    assert cells == ["Deploy rule", "decisions", "0.35", day, "0", "no"]
    assert model.index(0, 3).data(Qt.ItemDataRole.ToolTipRole).startswith(f"Updated {day} ")
    assert model.index(0, 2).data(Qt.ItemDataRole.TextAlignmentRole) is not None
    assert model.index(0, 0).data(Qt.ItemDataRole.BackgroundRole) is None
