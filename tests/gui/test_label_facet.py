"""Labels as a browse facet (issue 11 item 3): the browse tree lists the vault's classification labels with
their counts; picking one lists its memories."""

from __future__ import annotations

from test_browse import select_filter, titles

from memory_curator.core.service import MemoryService
from memory_curator.gui.models.memory_table import ListFilter


def group_rows(w, title: str) -> list[str]:
    model = w.browse_model
    group = next(model.index(r, 0) for r in range(model.rowCount()) if model.index(r, 0).data() == title)
    return [model.index(r, 0, group).data() for r in range(model.rowCount(group))]


def test_labels_are_a_browse_facet_with_counts(harness, vault_dir, config):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        svc.save("The wizard owes us a favour: a debt he promised to repay.", title="Debt")
        svc.save("The innkeeper owes us a reward for the rescue.", title="Reward")
        svc.save("We met at the tavern in the city and celebrated.", title="Party")
        svc.save("Buy milk.", title="Milk")
        counts = svc.graph.labels.counts()
    assert counts["favor_owed"] == 2
    w = harness.open(vault_dir)
    shown = group_rows(w, "Labels")
    assert "favor_owed (2)" in shown and all(f"{k} ({n})" in shown for k, n in counts.items())
    select_filter(harness, ListFilter(labelled="favor_owed"))
    assert titles(w.list_model) == {"Debt", "Reward"}
    assert w.list_label.text() == "Label: favor_owed: 2"
    select_filter(harness, ListFilter(labelled="location"))
    assert "Party" in titles(w.list_model) and "Milk" not in titles(w.list_model)


def test_the_search_bar_filters_by_label(harness, vault_dir, config, qtbot):
    with MemoryService.open(vault_dir, embedder="none", config=config) as svc:
        svc.save("The wizard owes us a favour: a debt he promised to repay.", title="Debt")
        svc.save("The wizard lives in the tower.", title="Home")
    w = harness.open(vault_dir)
    bar = w.search_bar
    assert bar.label.findData("favor_owed") > 0  # the vault's labels are offered
    bar.mode.setCurrentIndex(bar.mode.findData("keyword"))
    with qtbot.waitSignal(w.results_model.modelReset, timeout=20000):
        bar.edit.setText("wizard")
    assert {r.memory.title for r in w.results_model._rows} == {"Debt", "Home"}
    with qtbot.waitSignal(w.results_model.modelReset, timeout=20000):
        bar.label.setCurrentIndex(bar.label.findData("favor_owed"))
    assert [r.memory.title for r in w.results_model._rows] == ["Debt"]
