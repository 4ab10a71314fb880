"""`lessons replay` on a session the real Claude Code CLI just ran with the hook on.

The live hook's answers come from the client's own records in the transcript: the
context it received from each hook run (``hook_additional_context`` attachments) and the
tool results of the calls the hook's gate refused. The replay, run afterwards in the same
repo, must give every call the same mode and the very same text, and leave the live
session's state alone.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from lessons_core.recall.render import estimate_tokens
from lessons_core.store.layout import SESSIONS, Layout
from tests.e2e.claude_project import TOOLS, Project, bash_call, edit_call, write_call
from tests.e2e.fake_server import ToolCall

pytestmark = pytest.mark.e2e

TAG_RULE = "Tag a release only from the main branch."
DEPLOY_RULE = "Run make check before make deploy; deploy does not build."
DOCS_RULE = "Write docs in British English."
WIRED = {"Bash", "Read", "Write", "Edit", "MultiEdit", "NotebookEdit"}
_DENIED = re.compile(r"^PreToolUse:\w+ hook error: ", re.S)


@dataclass
class Live:
    """What the live hook answered, by event, as the client recorded it."""

    tools: dict[str, tuple[str, str]] = field(default_factory=dict)  # tool_use_id -> answer
    prompts: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    nudges: list[str] = field(default_factory=list)
    tool_ids: dict[str, str] = field(default_factory=dict)  # every tool call -> its tool


def read_live(transcript: Path) -> Live:
    live = Live()
    for line in transcript.read_text().splitlines():
        record = json.loads(line)
        attachment = record.get("attachment") or {}
        content = (record.get("message") or {}).get("content")
        blocks = content if isinstance(content, list) else []
        if attachment.get("type") == "hook_additional_context":
            (text,) = attachment["content"]  # one hook per event: ours
            event = attachment["hookEvent"]
            if event == "PreToolUse":
                live.tools[attachment["toolUseID"]] = ("context", text)
            elif event == "UserPromptSubmit":
                live.prompts.append(("context", text))
            elif event == "SessionStart":
                live.notes.append(text)
            elif event == "PostToolUseFailure":
                live.nudges.append(text)
        for block in blocks:
            if block.get("type") == "tool_use":
                live.tool_ids[block["id"]] = block["name"]
        if (record.get("permissionDecision") or {}).get("source") == "hook":
            for block in blocks:
                reason = _DENIED.sub("", str(block["content"]))
                live.tools[block["tool_use_id"]] = ("gate", reason)
    return live


def run_session(project: Project) -> tuple[Path, str]:
    """A prompt with gated, context, silent, unhooked and failing calls; /compact; one more.

    Returns the transcript and the id of the lesson no call is about.
    """
    root = project.root
    project.lessons("add", TAG_RULE, "--topic", "release", "--trigger-keyword", "release")
    project.lessons("add", DEPLOY_RULE, "--topic", "deploy", "--trigger-cmd", "make deploy")
    docs = project.lessons("add", DOCS_RULE, "--topic", "docs", "--trigger-file", "docs/**")
    project.fake.scenarios["work"] = [
        ToolCall("Read", {"file_path": str(root / "src" / "app.py")}),  # brings its rule
        write_call(root, "src/app.py", "VALUE = 2\n"),
        bash_call("cat src/app.py"),
        bash_call("bash scripts/release.sh"),
        bash_call("make deploy"),  # there is no Makefile: the retry after the gate fails
        edit_call(root, "VALUE = 2", "VALUE = 3"),
    ]
    project.fake.scenarios["after"] = [edit_call(root, "VALUE = 3", "VALUE = 4")]
    prompt = "SCENARIO:work release it and tidy the app"
    session = str(project.claude(prompt, "--allowedTools", TOOLS)["session_id"])
    project.claude("/compact", "--resume", session)
    project.claude(
        "SCENARIO:after edit the app again", "--resume", session, "--allowedTools", TOOLS
    )
    return project.transcript(session), docs.strip()


def by_event(data: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [call for call in data["calls"] if call["event"] == event]


def test_replay_matches_what_the_live_hook_delivered(project: Project) -> None:
    """Same mode and text at every call, same notes and nudges, and the live state untouched."""
    transcript, docs = run_session(project)
    live = read_live(transcript)
    folder = Layout(project.root).local_dir / SESSIONS
    state = {path.name: path.read_bytes() for path in folder.iterdir()}

    data = json.loads(project.lessons("replay", str(transcript), "--json"))

    tools = by_event(data, "PreToolUse")
    assert [c["tool_use_id"] for c in tools] == [
        i for i, name in live.tool_ids.items() if name in WIRED
    ]
    assert {c["tool_use_id"]: (c["mode"], c["text"]) for c in tools if c["mode"]} == live.tools
    prompts = by_event(data, "UserPromptSubmit")
    assert [(c["mode"], c["text"]) for c in prompts if c["mode"]] == live.prompts
    totals = data["totals"]
    assert totals["session_note_tokens"] == sum(estimate_tokens(t) for t in live.notes)
    assert totals["nudge_tokens"] == sum(estimate_tokens(t) for t in live.nudges)
    assert data["unhooked_calls"] == 0  # the hooks hear every call, the Read included
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == state

    # The session covered every kind of answer, so the comparison above is not vacuous.
    assert [c["mode"] for c in prompts] == ["context", None]
    assert {c["mode"] for c in tools} == {"gate", "context", None}
    # The release script, make deploy, and the edit after the compaction (no read brought
    # the file's rule back since): each refused once.
    assert [c["outcome"] for c in tools].count("refused") == 3
    assert (totals["compactions"], len(live.notes), len(live.nudges)) == (1, 2, 1)
    assert [f["label"] for f in totals["failed_after_lesson"]] == ["Bash make deploy"]
    assert totals["never_fired"] == [docs]
