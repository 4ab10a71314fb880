"""The real Codex CLI with `lessons init --codex --mcp`, against the fake Responses API:
the server registered in the trusted project's .codex/config.toml starts, its tools are
found through Codex's `tool_search` (Codex defers MCP tools and offers them in a namespace,
`mcp__lessons`), and the model's calls reach it.

What the assertions read is what reached the model: the items of the requests the fake
model received, and the lesson file the add left in the repo.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e import codex_project
from tests.e2e.fake_responses import ANNOUNCED, output_text
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import APP_RULE, saved_lesson

pytestmark = pytest.mark.e2e

NAMESPACE = "mcp__lessons"
NEW_RULE = "Run scripts/release.sh only from a clean checkout of main."


def _items(request: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [item for item in request.get("input", []) if item.get("type") == kind]


def test_the_model_finds_and_calls_the_lessons_tools(codex: codex_project.Project) -> None:
    """Once Codex announces the namespace, tool_search returns the lessons tools in it;
    the namespaced query returns the fenced rule for src/app.py, the add saves a lesson."""
    assert "registered the lessons MCP server for codex" in codex.lessons(
        "init", "--codex", "--mcp"
    )
    codex.fake.scenarios["mcp"] = [
        ToolCall("tool_search", {"query": "project lessons rules", "limit": 8}),
        ToolCall(f"{NAMESPACE}/lessons_query", {"file": "src/app.py"}),
        ToolCall(
            f"{NAMESPACE}/lessons_add",
            {"rule": NEW_RULE, "topic": "release", "files": ["scripts/release.sh"]},
        ),
    ]
    codex.codex("SCENARIO:mcp look up and keep")
    last = codex.fake.requests[-1]
    announced = [
        said.group(0)
        for item in _items(last, "message")
        for part in item.get("content", [])
        if (said := ANNOUNCED.search(str(part.get("text", ""))))
    ]
    assert announced
    assert announced[0].endswith(f"- {NAMESPACE}:")
    (search,) = _items(last, "tool_search_output")
    (namespace,) = search["tools"]
    assert namespace["name"] == NAMESPACE
    offered = {tool["name"] for tool in namespace["tools"]}
    assert {"lessons_query", "lessons_add", "lessons_show"} <= offered
    calls = {item["call_id"]: item for item in _items(last, "function_call")}
    outputs = {item["call_id"]: output_text(item) for item in _items(last, "function_call_output")}
    by_name = {calls[call]["name"]: text for call, text in outputs.items() if call in calls}
    assert all(
        calls[c].get("namespace") == NAMESPACE for c in calls if "lessons" in calls[c]["name"]
    )
    assert APP_RULE in by_name["lessons_query"]
    saved = saved_lesson(codex.root, NEW_RULE)
    assert f"saved {saved['id']}" in by_name["lessons_add"]
