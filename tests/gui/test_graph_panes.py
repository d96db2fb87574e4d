"""The graph's panes in the real window, offscreen: Entities (counts, merge, rename, hide), the graph view of
the selected memory (click opens), backlinks, labels (editable), and [[wikilinks]] that open their memory."""

from __future__ import annotations

from dataclasses import replace

from gui_helpers import select_title
from PySide6.QtCore import QPoint, Qt, QUrl

from memory_curator.core.graph.classify import labels_of
from memory_curator.core.service import MemoryService
from memory_curator.gui.widgets.graph_view import MEMORY_ID


def make_vault(vault_dir, config) -> dict[str, str]:
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        home = svc.save("Gandros lives in Eldoria with his cat Mirri.", title="Home of the wizard")
        debt = svc.save("Gandros owes the party a favor. See [[Home of the wizard]].", title="Debt")
        tea = svc.save("The old wizard drinks tea in Eldoria.", title="Tea", actors=["npc_wizard"])
    return {"home": home.id, "debt": debt.id, "tea": tea.id}


def rows(pane) -> dict[str, int]:
    model = pane.proxy
    return {model.index(r, 0).data(): int(model.index(r, 1).data()) for r in range(model.rowCount())}


def test_entities_pane_lists_counts_and_merges_renames_hides(harness, vault_dir, config):
    make_vault(vault_dir, config)
    w = harness.open(vault_dir)
    pane = w.graph_panes.entities
    w.show_pane(pane)
    harness.qtbot.waitUntil(lambda: "Gandros" in rows(pane), timeout=20000)
    assert rows(pane)["Eldoria"] == 2 and rows(pane)["Gandros"] == 2
    # Select Gandros and npc_wizard, merge into Gandros.
    sel = pane.table.selectionModel()
    for r in range(pane.proxy.rowCount()):
        if pane.proxy.index(r, 0).data() in ("Gandros", "npc_wizard"):
            sel.select(pane.proxy.index(r, 0), sel.SelectionFlag.Select | sel.SelectionFlag.Rows)
    assert pane.merge_button.isEnabled() and not pane.rename_button.isEnabled()
    pane.merge_selected(into="Gandros")
    harness.qtbot.waitUntil(lambda: "npc_wizard" not in rows(pane) and rows(pane).get("Gandros") == 3, timeout=20000)
    assert "npc_wizard" in (vault_dir / "entities.yaml").read_text(encoding="utf-8")

    pane.filter.setText("eldo")
    harness.qtbot.waitUntil(lambda: list(rows(pane)) == ["Eldoria"], timeout=5000)
    pane.table.selectRow(0)
    harness.qtbot.waitUntil(lambda: pane.memories.count() == 2, timeout=20000)
    pane.rename_selected("Eldoria City")
    pane.filter.clear()
    harness.qtbot.waitUntil(lambda: "Eldoria City" in rows(pane), timeout=20000)
    pane.filter.setText("Mirri")
    harness.qtbot.waitUntil(lambda: pane.proxy.rowCount() == 1, timeout=5000)
    pane.table.selectRow(0)
    pane.hide_selected()
    harness.qtbot.waitUntil(lambda: pane.proxy.rowCount() == 0, timeout=20000)


def test_graph_view_backlinks_labels_and_wikilinks(harness, vault_dir, config):
    ids = make_vault(vault_dir, config)
    w = harness.open(vault_dir)
    graph = w.graph_panes.graph
    select_title(harness, "Home of the wizard")
    w.show_pane(graph)
    harness.qtbot.waitUntil(lambda: ids["debt"] in graph.view.nodes, timeout=20000)
    assert "entity:Gandros" in graph.view.nodes and ids["tea"] in graph.view.nodes  # shares Eldoria
    assert [graph.backlinks.item(i).text() for i in range(graph.backlinks.count())] == ["Debt"]
    assert "location" in graph.labels.text()  # "lives in" is the location label's

    # Zoom and pan change the view, not the scene.
    before = graph.view.transform().m11()
    graph.view.zoom(1.5)
    assert graph.view.transform().m11() > before

    # Clicking the Debt node opens it in the editor.
    node = graph.view.nodes[ids["debt"]]
    assert node.data(MEMORY_ID) == ids["debt"]
    pos = graph.view.mapFromScene(node.sceneBoundingRect().center())
    harness.qtbot.mouseClick(graph.view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(pos.x(), pos.y()))
    harness.qtbot.waitUntil(lambda: w.editor.loaded_id() == ids["debt"], timeout=20000)

    # Labels typed by the user are written and marked as theirs.
    w.show_pane(graph)
    graph.labels.setText("favor_owed 0.95, event")
    graph.apply_labels()
    harness.idle()
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        item = svc.get(ids["debt"], record_access=False)
        assert labels_of(item) == {"favor_owed": 0.95, "event": 1.0} and item.extra["labels_by"] == "user"
    harness.qtbot.waitUntil(lambda: graph.labels_by.text() == "(yours)", timeout=20000)

    # The preview renders [[Home of the wizard]] as a link that opens that memory.
    html = w.editor.preview.toHtml()
    assert "wikilink:" in html
    w.editor.preview.anchorClicked.emit(QUrl("wikilink:Home of the wizard"))
    harness.qtbot.waitUntil(lambda: w.editor.loaded_id() == ids["home"], timeout=20000)


def test_why_this_result_shows_the_graph_legs_part(harness, vault_dir, config):
    from memory_curator.gui.widgets.explanation import explain_html

    ids = make_vault(vault_dir, config)
    with MemoryService.open(vault_dir, embedder="none", config=replace(config, graph_weight=0.5)) as svc:
        hits = svc.search("Eldoria", mode="hybrid", limit=5)
    hit = next(h for h in hits if h.memory.id == ids["debt"])
    html = explain_html(hit)
    assert "Graph rank" in html and "wikilink link" in html


def test_entities_pane_loads_a_page_at_a_time_as_the_list_is_scrolled(harness, vault_dir, config, monkeypatch):
    from memory_curator.gui.widgets import entities_pane

    monkeypatch.setattr(entities_pane, "PAGE", 3)
    (vault_dir / "context").mkdir(parents=True, exist_ok=True)
    for i in range(150):  # files, as another editor writes them: quicker than 150 saves
        (vault_dir / "context" / f"meeting-{i}.md").write_text(f"Gandros met Visitor{i:03d} in Eldoria.\n")
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        total = len(svc.graph.entities())
    w = harness.open(vault_dir)
    pane = w.graph_panes.entities
    w.show_pane(pane)
    harness.qtbot.waitUntil(lambda: pane.model.rowCount() >= 3 and not pane._loading, timeout=20000)
    harness.idle()
    assert pane.model.rowCount() < total  # pages until the view is full, not the whole list
    assert "more as you scroll" in pane.summary.text()
    assert "Visitor149" not in rows(pane)  # the last of the list: not loaded yet, but the engine finds it
    pane.filter.setText("visitor149")
    harness.qtbot.waitUntil(lambda: list(rows(pane)) == ["Visitor149"], timeout=20000)
    pane.filter.clear()
    harness.qtbot.waitUntil(lambda: pane.model.rowCount() > 1 and not pane._loading, timeout=20000)
    bar = pane.table.verticalScrollBar()
    while pane.model.rowCount() < total:
        before = pane.model.rowCount()
        bar.setValue(bar.maximum())
        harness.qtbot.waitUntil(lambda b=before: pane.model.rowCount() > b, timeout=20000)
    assert rows(pane)["Eldoria"] == 150 and len(rows(pane)) == total
    harness.qtbot.waitUntil(lambda: pane.summary.text() == f"{total} entities", timeout=20000)
