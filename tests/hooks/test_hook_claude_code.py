"""`lessons hook claude-code` on payloads recorded from the real Claude Code client."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lessons_cli.harnesses import claude_protocol
from lessons_core.delivery.deliver import GATE_PREFIX, session_key, session_note
from lessons_core.delivery.hooklog import log_path
from lessons_core.session import state as sessions
from lessons_core.store.layout import Layout
from tests.hooks.conftest import answer, call_hook, payload, write_lesson

H = "claude-code"


def _push_lesson(layout: Layout) -> None:
    write_lesson(
        layout, "build-gen-before-push", "Run make gen before pushing.", commands=("git push",)
    )


def _bash(root: Path, command: str, **changes: object) -> dict[str, object]:
    data = payload(H, "pre_tool_use_bash_redirect", root, **changes)
    data["tool_input"] = {"command": command, "description": "run it"}
    return data


def test_pre_tool_use_bash_gates_with_the_rule_as_reason(project: Layout) -> None:
    """A covered Bash command is denied with the fenced rule, then passes on the retry."""
    _push_lesson(project)
    first = answer(H, _bash(project.root, "git push origin main"))
    assert first is not None
    out = first["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse"
    assert out["permissionDecision"] == "deny"
    assert out["permissionDecisionReason"].startswith(GATE_PREFIX)
    assert "Run make gen before pushing." in out["permissionDecisionReason"]
    assert call_hook(H, _bash(project.root, "git push origin main")) == b""


def test_pre_tool_use_read_adds_context_with_the_repo_relative_path(project: Layout) -> None:
    """Read's absolute file_path is matched repo-relative; the rule comes as context
    beside the file's content, and the Edit after it is silent."""
    write_lesson(project, "code-a-import-safe", "Keep src/a.py import-safe.", files=("src/a.py",))
    read = payload(H, "pre_tool_use_read", project.root)
    read["tool_input"] = {"file_path": str(project.root / "src" / "a.py")}
    got = answer(H, read)
    assert got is not None
    out = got["hookSpecificOutput"]
    assert set(out) == {"hookEventName", "additionalContext"}
    assert out["hookEventName"] == "PreToolUse"
    assert "Keep src/a.py import-safe." in out["additionalContext"]
    assert call_hook(H, payload(H, "pre_tool_use_edit", project.root)) == b""


def test_a_write_not_read_first_is_refused_once_with_the_rule(project: Layout) -> None:
    """Write of a file whose rules did not come with a read (a new file): refused with
    them, repo-relative; the retry runs."""
    write_lesson(project, "code-a-import-safe", "Keep src/a.py import-safe.", files=("src/a.py",))
    got = answer(H, payload(H, "pre_tool_use_write", project.root))
    assert got is not None
    out = got["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert "Keep src/a.py import-safe." in out["permissionDecisionReason"]
    assert call_hook(H, payload(H, "pre_tool_use_write", project.root)) == b""


def test_notebook_path_is_read_for_notebook_edit(project: Layout) -> None:
    """NotebookEdit names its file in notebook_path."""
    write_lesson(
        project, "nb-clear-outputs", "Clear outputs before saving notebooks.", files=("nb/*.ipynb",)
    )
    data = payload(H, "pre_tool_use_write", project.root, tool_name="NotebookEdit")
    data["tool_input"] = {"notebook_path": str(project.root / "nb" / "x.ipynb"), "new_source": "1"}
    got = answer(H, data)
    assert got is not None
    assert "Clear outputs" in got["hookSpecificOutput"]["permissionDecisionReason"]


def test_uncovered_calls_and_pure_reads_are_silent(project: Layout) -> None:
    """No stdout at all for a call no lesson covers, a Read of an uncovered file, or a
    read-only command of no command rule."""
    _push_lesson(project)
    write_lesson(project, "code-a-import-safe", "Keep src/a.py import-safe.", files=("src/a.py",))
    assert call_hook(H, _bash(project.root, "make docs")) == b""
    assert call_hook(H, _bash(project.root, "ls src && git status")) == b""
    read = payload(H, "pre_tool_use_read", project.root)
    read["tool_input"] = {"file_path": str(project.root / "README.md")}
    assert call_hook(H, read) == b""


def test_a_subagent_gets_rules_its_parent_already_saw(project: Layout) -> None:
    """agent_id gives a subagent its own set of shown rules."""
    write_lesson(project, "code-b", "Keep src/b.py pure.", files=("src/b.py",))
    parent = payload(H, "pre_tool_use_write", project.root)
    parent["tool_input"] = {"file_path": str(project.root / "src" / "b.py"), "content": ""}
    assert answer(H, parent) is not None
    assert call_hook(H, parent) == b""
    assert answer(H, payload(H, "pre_tool_use_write_subagent", project.root)) is not None


def test_session_start_note_and_reset_by_source(project: Layout) -> None:
    """startup and compact bring the note and make rules eligible; resume keeps both quiet."""
    _push_lesson(project)
    started = answer(H, payload(H, "session_start_startup", project.root))
    assert started == {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": session_note(project),
        }
    }
    assert answer(H, _bash(project.root, "git push")) is not None
    assert call_hook(H, payload(H, "session_start_resume", project.root)) == b""
    assert call_hook(H, _bash(project.root, "git push")) == b""
    assert answer(H, payload(H, "session_start_compact", project.root)) is not None
    assert answer(H, _bash(project.root, "git push")) is not None


def test_session_note_off_leaves_session_start_silent(project: Layout) -> None:
    """session_note: false in config.json makes SessionStart print nothing."""
    project.config_path.write_text('{"session_note": false}\n')
    assert call_hook(H, payload(H, "session_start_startup", project.root)) == b""


def test_pre_compact_makes_rules_eligible_again(project: Layout) -> None:
    """PreCompact resets the session's shown rules and prints nothing."""
    _push_lesson(project)
    assert answer(H, _bash(project.root, "git push")) is not None
    assert call_hook(H, payload(H, "pre_compact_manual", project.root)) == b""
    assert answer(H, _bash(project.root, "git push")) is not None


def test_user_prompt_submit_brings_keyword_rules(project: Layout) -> None:
    """A keyword in the prompt arrives as UserPromptSubmit additionalContext."""
    write_lesson(
        project, "release-changelog", "Update CHANGELOG.md in every release.", keywords=("release",)
    )
    data = payload(H, "user_prompt_submit", project.root, prompt="Prepare the release")
    got = answer(H, data)
    assert got is not None
    assert got["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "CHANGELOG.md" in got["hookSpecificOutput"]["additionalContext"]


def test_post_tool_use_failure_nudges_once_then_once_more_when_it_recurs(
    project: Layout,
) -> None:
    """A failed Bash call gets one nudge with a ready lessons add line; the same failure
    again, with no lesson covering it, the stronger recurrence nudge; then silence."""
    data = payload(H, "post_tool_use_failure_bash", project.root)
    data["tool_input"] = {"command": "pnpm test:e2e --filter web"}
    data["error"] = "Exit code 1\n ERR_PNPM_NO_SCRIPT  Missing script: test:e2e"
    got = answer(H, data)
    assert got is not None
    context = got["hookSpecificOutput"]["additionalContext"]
    assert got["hookSpecificOutput"]["hookEventName"] == "PostToolUseFailure"
    assert f"sh {project.root}/.lessons/run add" in context
    assert "--trigger-cmd '^pnpm test:e2e'" in context
    again = answer(H, data)
    assert again is not None
    stronger = again["hookSpecificOutput"]["additionalContext"]
    assert "failed 2 times in this session with the same error (exit 1: ERR_PNPM_NO_SCRIPT)" in (
        stronger
    )
    assert "--trigger-cmd '^pnpm test:e2e'" in stronger
    assert call_hook(H, data) == b""
    assert call_hook(H, {**data, "is_interrupt": True, "session_id": "new"}) == b""


def test_parallel_hooks_show_a_rule_exactly_once(project: Layout) -> None:
    """Hooks fired at once for one session never both show, nor both lose, a rule."""
    _push_lesson(project)
    outputs: list[bytes] = []
    lock = threading.Lock()

    def fire() -> None:
        out = call_hook(H, _bash(project.root, "git push origin main"))
        with lock:
            outputs.append(out)

    threads = [threading.Thread(target=fire) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(1 for out in outputs if out) == 1


def test_fail_open_on_bad_input_logs_one_line(
    project: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Garbage on stdin: exit 0, no stdout, one line in .lessons/local/hook.log."""
    monkeypatch.chdir(project.root)
    assert call_hook(H, b"{not json") == b""
    lines = log_path(project.root).read_text().splitlines()
    assert len(lines) == 1
    assert "claude-code" in lines[0]
    assert "DecodeError" in lines[0]


@pytest.mark.parametrize(
    "config",
    ['{"delivery_command": "loud", "max_tokens": "600"}\n', '{"max_tokens": ', "[1]\n"],
)
def test_a_broken_config_falls_back_to_the_defaults(project: Layout, config: str) -> None:
    """A bad setting, or a config.json that does not parse: the hook still answers, with
    the defaults (a command rule gates), and logs nothing (validate reports it)."""
    _push_lesson(project)
    project.config_path.write_text(config)
    got = answer(H, _bash(project.root, "git push"))
    assert got is not None
    assert got["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "Run make gen before pushing." in got["hookSpecificOutput"]["permissionDecisionReason"]
    assert not log_path(project.root).exists()


def test_a_corrupt_lesson_file_does_not_silence_the_others(project: Layout) -> None:
    """One unparsable lesson file is skipped; the hook still answers, exit 0."""
    _push_lesson(project)
    (project.lessons_dir / "broken.json").write_text("{oops")
    got = answer(H, _bash(project.root, "git push"))
    assert got is not None
    assert "make gen" in json.dumps(got)


def test_no_lessons_dir_means_silence_and_no_log(tmp_path: Path) -> None:
    """A project that does not use lessons: no output, and nothing is created."""
    data = payload(H, "pre_tool_use_bash_redirect", tmp_path)
    assert call_hook(H, data) == b""
    assert not (tmp_path / ".lessons").exists()


def test_parallel_hook_processes_lose_no_update(project: Layout) -> None:
    """Real processes racing on one session: each rule shown once, both recorded."""
    _push_lesson(project)
    write_lesson(project, "code-a-import-safe", "Keep src/a.py import-safe.", files=("src/a.py",))
    write = payload(H, "pre_tool_use_write", project.root)
    write["tool_input"] = {"file_path": str(project.root / "src" / "a.py"), "content": ""}
    calls = [_bash(project.root, "git push origin main"), write] * 4
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "lessons_cli", "hook", "claude-code"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=project.root,
        )
        for _ in calls
    ]
    for proc, call in zip(procs, calls, strict=True):  # all inputs first: the hooks race
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(call).encode())
        proc.stdin.close()
    outputs = []
    for proc in procs:
        assert proc.stdout is not None
        with proc.stdout:
            outputs.append(proc.stdout.read())
    assert all(proc.wait(timeout=60) == 0 for proc in procs)
    delivered = b"".join(outputs).decode()
    assert delivered.count("Run make gen before pushing.") == 1
    assert delivered.count("Keep src/a.py import-safe.") == 1
    session = session_key(str(write["session_id"]))
    assert sessions.load(project, session).shown == {"build-gen-before-push", "code-a-import-safe"}


def test_answer_text_reads_back_both_modes(project: Layout) -> None:
    """The text of a gate answer is its reason, of a context answer the context; none: ''."""
    _push_lesson(project)
    gate = answer(H, _bash(project.root, "git push origin main"))
    text, gated = claude_protocol.answer_text(gate)
    assert gated
    assert text.startswith(GATE_PREFIX)
    context = claude_protocol.context_output("PreToolUse", "note")
    assert claude_protocol.answer_text(context) == ("note", False)
    assert claude_protocol.answer_text(None) == ("", False)
