"""The real Qwen Code with `lessons init --qwen --mcp`: the server registered in
.qwen/settings.json starts beside the hooks, its tools are named `mcp__lessons__<tool>`,
and the model's calls reach it (fake chat completions model, as in test_qwen.py).

Qwen Code defers MCP tools: a headless run starts its servers after the first tool list
is fixed, so their schemas stay out of `tools` and a reminder in the prompt names them as
reachable through `tool_search` (the schema) and `tool_call` (the call). The model here
does what that reminder says.

A server from the project's settings is one the user approves once per machine (Qwen's
startup dialog records it in ~/.qwen/mcpApprovals.json, bound to a hash of the entry);
`--yolo`, which these runs use, starts it unapproved.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

import pytest

from tests.e2e.fake_chat_completions import request_text, tool_results
from tests.e2e.fake_server import ToolCall
from tests.e2e.qwen_project import QWEN, QwenProject, edit_call, read_call
from tests.e2e.sample_repo import APP_RULE, saved_lesson

pytestmark = pytest.mark.e2e

PREFIX = "mcp__lessons__"
QUERY = f"{PREFIX}lessons_query"
ADD = f"{PREFIX}lessons_add"
NEW_RULE = "Run scripts/release.sh only from a clean checkout of main."


@pytest.fixture
def project(qwen_project: QwenProject) -> Iterator[QwenProject]:
    """The repo wired with `--qwen --mcp`; afterwards, proof that no hook call failed."""
    qwen_project.lessons("init", "--qwen", "--mcp")
    yield qwen_project
    hook_log = qwen_project.root / ".lessons" / "local" / "hook.log"
    assert not hook_log.exists() or hook_log.read_text() == ""


def bridged(name: str, arguments: dict[str, object]) -> ToolCall:
    return ToolCall("tool_call", {"name": name, "arguments": arguments})


def test_the_model_queries_and_adds_lessons_through_the_mcp_tools(project: QwenProject) -> None:
    """The first request names the five tools; the schema search, the query (the fenced
    rule) and the add (the saved lesson) come back in the request after each call; the
    edit hook after them adds nothing: the server took the session Qwen Code announced
    to it, the hooks' own."""
    fake = project.fake
    fake.scenarios["mcp"] = [
        ToolCall("tool_search", {"query": f"select:{QUERY},{ADD}"}),
        bridged(QUERY, {"file": "src/app.py"}),
        bridged(ADD, {"rule": NEW_RULE, "topic": "release", "files": ["scripts/release.sh"]}),
        read_call(project.root),  # Qwen edits only files read in the session
        edit_call(project.root, "VALUE = 1", "VALUE = 2"),
    ]
    project.qwen("SCENARIO:mcp look up and keep")
    first = fake.requests[0]
    offered = {tool["function"]["name"] for tool in first["tools"]}
    assert {"tool_search", "tool_call"} <= offered
    assert not any(name.startswith(PREFIX) for name in offered)
    for tool in ("query", "show", "add", "topics", "deprecate"):
        assert f'"{PREFIX}lessons_{tool}"' in request_text(first)
    answers = [tool_results(request) for request in fake.requests]
    assert answers[0] == []
    assert f'"name":"{QUERY}"' in answers[1][0]  # the schema, from the server's tool list
    assert APP_RULE in answers[2][1]
    saved = saved_lesson(project.root, NEW_RULE)
    assert answers[3][2] == f"saved {saved['id']}"
    assert "has been updated" in answers[-1][-1]
    assert request_text(fake.requests[-1]).count(APP_RULE) == 1  # the query's, only
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 2\n"


def test_a_direct_call_by_the_tools_name_runs_too(project: QwenProject) -> None:
    """A model that calls the deferred tool by name, skipping the bridge, gets the rule."""
    fake = project.fake
    fake.scenarios["direct"] = [ToolCall(QUERY, {"file": "src/app.py"})]
    project.qwen("SCENARIO:direct look up")
    (result,) = tool_results(fake.requests[1])
    assert APP_RULE in result


def test_without_yolo_the_server_starts_once_approved(project: QwenProject) -> None:
    """A headless run in the default approval mode leaves an unapproved project server
    out, silently; with the approval record the dialog writes for this entry, it starts."""
    fake = project.fake
    fake.scenarios["hello"] = []

    def names_the_tools() -> bool:
        start = len(fake.requests)
        project.run_client([str(QWEN), "-p", "SCENARIO:hello say hi"], project.env())
        return QUERY in request_text(fake.requests[start])

    assert not names_the_tools()
    settings = json.loads((project.root / ".qwen" / "settings.json").read_text())
    # Qwen's hashMcpServerConfig: SHA-256 of the entry as JSON with its keys sorted.
    entry = json.dumps(settings["mcpServers"]["lessons"], sort_keys=True, separators=(",", ":"))
    record = {"hash": hashlib.sha256(entry.encode()).hexdigest(), "status": "approved"}
    approvals = project.home / ".qwen" / "mcpApprovals.json"
    approvals.write_text(json.dumps({str(project.root): {"lessons": record}}))
    assert names_the_tools()
