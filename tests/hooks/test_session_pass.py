"""One pass through the session per hook call: the session file is read once, and changed
at most once under its lock, yet a parallel hook's write between the two is never lost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from lessons_core.delivery.deliver import session_key
from lessons_core.session import state as sessions
from lessons_core.store.layout import SESSIONS, Layout
from tests.hooks.conftest import payload, write_lesson

# Real hook calls in a fresh interpreter that counts, through Python's audit hook, every
# open of a file in the sessions folder (the session file, its lock); temp files of an
# atomic write are left out. Prints one {"json": n, "lock": n, "out": ...} a call.
COUNTED_CALLS = """
import io, json, sys
from lessons_cli.hook_runner import run_hook

opened = []

def audit(event, args):
    if event == "open" and isinstance(args[0], str) and "/local/sessions/" in args[0]:
        opened.append(args[0])

sys.addaudithook(audit)
for data in json.load(sys.stdin):
    opened.clear()
    out = io.BytesIO()
    run_hook(sys.argv[1], io.BytesIO(json.dumps(data).encode()), out)
    counts = {kind: sum(p.endswith("." + kind) for p in opened) for kind in ("json", "lock")}
    print(json.dumps({**counts, "out": out.getvalue().decode()}))
"""


def _counted(
    project: Layout, calls: list[dict[str, Any]], harness: str = "claude-code"
) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-c", COUNTED_CALLS, harness],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        cwd=project.root,
        timeout=60,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_each_hook_call_opens_the_session_file_once(project: Layout) -> None:
    """An edit that delivers, a gated command, its retry (which forgets the refusal) and
    a silent edit: each real hook call opens the session file once, and the lock once
    when it writes (never when it has nothing to record). The silent edit records that
    it is the session's latest action (a correction typed next is about it), in the one
    write; the retry, the same action again, has nothing of that kind to record."""
    write_lesson(project, "push-gen", "Run make gen before pushing.", commands=("git push",))
    write_lesson(project, "a-safe", "Keep src/a.py import-safe.", files=("src/a.py",))
    edit = payload("claude-code", "pre_tool_use_edit", project.root)
    push = payload("claude-code", "pre_tool_use_bash_failing", project.root)
    push["tool_input"] = {"command": "git push origin main"}
    calls = _counted(project, [edit, push, push, edit])
    assert [(call["json"], call["lock"]) for call in calls] == [(1, 1), (1, 1), (1, 1), (1, 1)]
    context, refusal, retry, silent = (str(call["out"]) for call in calls)
    assert "Keep src/a.py import-safe." in context
    decision = json.loads(refusal)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "Run make gen before pushing." in decision["permissionDecisionReason"]
    assert (retry, silent) == ("", "")
    state = sessions.load(project, session_key(str(push["session_id"])))
    assert state.shown == {"push-gen", "a-safe"}
    assert state.refusals == []  # the retry ran, and its refusal is forgotten


def test_a_gemini_call_reads_the_session_once_for_the_transcript_and_the_rules(
    project: Layout,
) -> None:
    """Gemini CLI's hook also checks the transcript against the session's mark: that check
    and the delivery share one read of the session file."""
    write_lesson(project, "app-safe", "Keep src/app.py import-safe.", files=("src/app.py",))
    compress = payload("gemini", "pre_compress", project.root)
    transcript = Path(compress["transcript_path"])
    transcript.parent.mkdir(parents=True)
    transcript.write_text('{"sessionId":"s","kind":"main"}\n')
    _counted(project, [compress], "gemini")  # sets the mark
    assert sessions.load(project, session_key(compress["session_id"])).transcript_offset
    with transcript.open("a") as handle:
        handle.write('{"id":"m1","type":"gemini","content":""}\n')
    (edit,) = _counted(
        project, [payload("gemini", "after_tool_write_file", project.root)], "gemini"
    )
    assert (edit["json"], edit["lock"]) == (1, 1)
    assert "Keep src/app.py import-safe." in str(edit["out"])


def test_a_write_between_the_read_and_the_claim_is_read_again(project: Layout) -> None:
    """A parallel hook claims after this call read the session: the claim under the lock
    sees it, so its rule is not shown twice and its record is kept."""
    with sessions.open_session(project, "s") as session:
        assert session.state.shown == frozenset()
        assert sessions.claim(project, "s", ["a"], tokens=10) == ["a"]  # the parallel hook
        assert session.claim(["a", "b"], tokens=20) == ["b"]
    state = sessions.load(project, "s")
    assert (state.shown, state.tokens) == (frozenset({"a", "b"}), 30)


def test_an_unchanged_session_is_claimed_from_what_was_read(project: Layout) -> None:
    """Nothing wrote since the read: the claim builds on the state read, and a later claim
    through the same session reads the file again (it changed)."""
    sessions.claim(project, "s", ["a"], tokens=10)
    with sessions.open_session(project, "s") as session:
        assert session.unchanged()
        assert session.claim(["a", "b"], tokens=5) == ["b"]
        assert not session.unchanged()  # the file is the one this claim wrote, not the one read
        assert session.claim(["b", "c"], tokens=5) == ["c"]
    state = sessions.load(project, "s")
    assert (state.shown, state.tokens) == (frozenset({"a", "b", "c"}), 20)


def test_fields_this_version_does_not_know_are_kept(project: Layout) -> None:
    """A session file with fields a newer version wrote keeps them through a claim, a
    refusal forgotten and a reset."""
    sessions.claim(project, "s", ["a"], refusal="g1")
    (path,) = (project.local_dir / SESSIONS).glob("*.json")
    data = json.loads(path.read_text())
    data.update(corrections={"git push": [1, 2]}, stopped=True)
    path.write_text(json.dumps(data))
    with sessions.open_session(project, "s") as session:
        assert session.claim(["b"], forget_refusal="g1") == ["b"]
    sessions.reset(project, "s")
    kept = json.loads(Path(path).read_text())
    assert (kept["corrections"], kept["stopped"]) == ({"git push": [1, 2]}, True)
    assert (kept["shown"], "gates" in kept) == ([], False)


def test_each_failure_call_reads_and_writes_the_session_once(project: Layout) -> None:
    """A failing command, failing again the same way with no lesson about it, and once
    more: each real failure hook call opens the session file once and its lock once. The
    count, the verdict, the nudge's claim and the evidence for the stop-time request are
    one write; the first call brings the capture nudge, the second the stronger one, the
    third nothing."""
    failure = payload("claude-code", "post_tool_use_failure_bash", project.root)
    failure["error"] = "Exit code 127\n/bin/bash: line 1: nosuchcmd_xyz: command not found"
    failure["tool_input"] = {"command": "nosuchcmd_xyz --flag"}
    calls = _counted(project, [failure, failure, failure])
    assert [(call["json"], call["lock"]) for call in calls] == [(1, 1), (1, 1), (1, 1)]
    first, again, third = (str(call["out"]) for call in calls)
    assert "That call failed." in first
    assert "failed 2 times in this session" in again
    assert third == ""
    state = sessions.load(project, session_key(str(failure["session_id"])))
    ((entry),) = state.failures.values()
    assert (entry["recurrence"], entry["nudged"]) == ("nudged", True)
    assert state.evidence["recurred"]  # the trigger the stop-time request will offer
