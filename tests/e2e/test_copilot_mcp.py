"""The real Copilot CLI with `lessons init --copilot --mcp`: the server registered in
.github/mcp.json starts in the trusted repo, its tools are offered as `lessons-<tool>`,
and the model's calls reach it (fake chat completions model, as in test_copilot.py)."""

from __future__ import annotations

import pytest

from tests.e2e.copilot_project import CopilotProject, edit_call
from tests.e2e.fake_chat_completions import messages_of, request_text, text_of
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import APP_RULE, saved_lesson

pytestmark = pytest.mark.e2e

QUERY = "lessons-lessons_query"
ADD = "lessons-lessons_add"
NEW_RULE = "Run scripts/release.sh only from a clean checkout of main."


def test_the_model_queries_and_adds_lessons_through_the_mcp_tools(
    copilot_project: CopilotProject,
) -> None:
    """The query's result (the fenced rule) is the tool message of the next request; the
    add's says the lesson was saved and the file exists; the edit hook after them adds
    nothing: the server took the session Copilot announced to it, the hooks' own."""
    project = copilot_project
    project.lessons("init", "--copilot", "--mcp")
    fake = project.fake
    fake.scenarios["mcp"] = [
        ToolCall(QUERY, {"file": "src/app.py"}),
        ToolCall(ADD, {"rule": NEW_RULE, "topic": "release", "files": ["scripts/release.sh"]}),
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
    ]
    project.copilot("SCENARIO:mcp look up and keep", "--trust-folder")
    offered = {tool["function"]["name"] for tool in fake.requests[0]["tools"]}
    assert {QUERY, ADD} <= offered
    answers = [[m for m in messages_of(r) if m.get("role") == "tool"] for r in fake.requests]
    assert answers[0] == []
    (query,) = answers[1]
    assert APP_RULE in text_of(query)
    saved = saved_lesson(project.root, NEW_RULE)
    assert text_of(answers[2][1]) == f"saved {saved['id']}"
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 2\n"
    assert request_text(fake.requests[-1]).count(APP_RULE) == 1
