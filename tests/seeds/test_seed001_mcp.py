"""Seed 001 (llm-memory v1.1.0) over MCP: search_mode, importance_weight (default 0) and sort_by on
memory_search; memory_batch_store up to 100 with rollback and skip (a bad item reported by its index);
memory_get_score / memory_set_score."""

from __future__ import annotations

from seeds.mcp_session import error, ok, run


def test_search_with_importance_weight(vault_dir):
    async def scenario(c):
        schema = {t.name: t for t in (await c.list_tools()).tools}["memory_search"].input_schema["properties"]
        assert schema["importance_weight"]["default"] == 0.0 and schema["search_mode"]["default"] == "hybrid"
        strong = (await ok(c, "memory_store", {"content": "Deploy checklist: deploy the deploy scripts, deploy.",
                                               "title": "Deploy deploy"}))["memory_id"]
        weak = (await ok(c, "memory_store", {"content": "Meeting notes; one line mentions the deploy.",
                                             "title": "Meeting notes"}))["memory_id"]
        await ok(c, "memory_set_score", {"memory_id": strong, "score": 0.0})
        assert (await ok(c, "memory_get_score", {"memory_id": weak}))["score"] != 1.0
        await ok(c, "memory_set_score", {"memory_id": weak, "score": 1.0})
        plain = await ok(c, "memory_search", {"query": "deploy", "search_mode": "keyword"})
        assert [h["memory"]["id"] for h in plain["results"]] == [strong, weak] and plain["query"] == "deploy"
        blended = await ok(c, "memory_search", {"query": "deploy", "search_mode": "keyword",
                                                "importance_weight": 0.9})
        assert [h["memory"]["id"] for h in blended["results"]] == [weak, strong]
        by_importance = await ok(c, "memory_search", {"query": "deploy", "search_mode": "keyword",
                                                      "sort_by": "importance"})
        assert by_importance["results"][0]["memory"]["id"] == weak
        assert "importance_weight" in await error(c, "memory_search", {"query": "deploy", "importance_weight": 2})

    run(vault_dir, scenario)


def test_batch_store_rollback_and_skip(vault_dir):
    async def scenario(c):
        items = [{"content": "first"}, {"content": "second", "salience": 7}, {"content": "third"},
                 {"title": "no content"}]
        refused = await error(c, "memory_batch_store", {"items": items, "mode": "rollback"})
        assert refused.startswith("VALIDATION_ERROR")
        assert (await ok(c, "memory_list", {}))["count"] == 0  # all or nothing
        skipped = await ok(c, "memory_batch_store", {"items": items, "mode": "skip"})
        assert skipped["success_count"] == 2 and skipped["error_count"] == 2
        assert [e["index"] for e in skipped["errors"]] == [1, 3]
        assert [e["code"] for e in skipped["errors"]] == ["OUT_OF_RANGE", "MISSING_FIELD"]
        assert (await ok(c, "memory_list", {}))["count"] == 2
        too_many = await error(c, "memory_batch_store", {"items": [{"content": "x"}] * 101, "mode": "skip"})
        assert too_many.startswith("VALIDATION_ERROR") and "items" in too_many
        full = await ok(c, "memory_batch_store", {"items": [{"content": f"n {i}"} for i in range(100)]})
        assert full["success_count"] == 100 and len(full["created_ids"]) == 100

    run(vault_dir, scenario)
