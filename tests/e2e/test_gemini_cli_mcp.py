"""The real Gemini CLI with `lessons init --gemini --mcp`: the server registered in
.gemini/settings.json starts in the trusted repo, its tools are offered to the model as
`mcp_lessons_<tool>`, and the model's calls reach it (fake Gemini API, as in
test_gemini_cli.py)."""

from __future__ import annotations

import pytest

from tests.e2e.fake_gemini import function_responses, response_text
from tests.e2e.fake_server import ToolCall
from tests.e2e.gemini_project import Project
from tests.e2e.sample_repo import APP_RULE, saved_lesson

pytestmark = pytest.mark.e2e

QUERY = "mcp_lessons_lessons_query"
ADD = "mcp_lessons_lessons_add"
NEW_RULE = "Run scripts/release.sh only from a clean checkout of main."


def test_the_model_queries_and_adds_lessons_through_the_mcp_tools(gemini: Project) -> None:
    """Every request offers the tools; the query's output (the fenced rule) is in the
    request right after the call, the add's in the one after that, and the lesson file
    exists."""
    gemini.lessons("init", "--gemini", "--mcp")
    fake = gemini.fake
    fake.scenarios["mcp"] = [
        ToolCall(QUERY, {"file": "src/app.py"}),
        ToolCall(ADD, {"rule": NEW_RULE, "topic": "release", "files": ["scripts/release.sh"]}),
    ]
    gemini.gemini("-p", "SCENARIO:mcp look up and keep")
    for request in fake.requests:
        offered = {
            declaration["name"]
            for tool in request["tools"]
            for declaration in tool.get("functionDeclarations", [])
        }
        assert {QUERY, ADD, "mcp_lessons_lessons_show"} <= offered
    answers = [function_responses(request) for request in fake.requests]
    assert answers[0] == []
    (query,) = answers[1]
    assert query["name"] == QUERY
    assert "error" not in query["response"]
    assert APP_RULE in response_text(query)
    assert [r["name"] for r in answers[2]] == [QUERY, ADD]
    saved = saved_lesson(gemini.root, NEW_RULE)
    # The client wraps what a server says: "<untrusted_context>\n...\n</untrusted_context>".
    assert f"\nsaved {saved['id']}\n" in response_text(answers[2][1])
