"""The hook writes telemetry (when on): every recall, and a failure after a delivery."""

from __future__ import annotations

import json
from pathlib import Path

from lessons_core.index.cache import load_index
from lessons_core.jsonio import dumps
from lessons_core.store.layout import Layout
from lessons_core.telemetry.log import log_path, read_log, session_tag
from tests.hooks.conftest import answer, payload, write_lesson
from tests.hooks.test_hook_entry import PROBE, _run

SESSION = "7f81a39c-d04c-402c-9f82-b7072229bce2"  # the stored payloads' session


def _telemetry_on(layout: Layout) -> None:
    layout.config_path.write_bytes(dumps({"telemetry": True}))


def _gen_lesson(layout: Layout) -> None:
    write_lesson(
        layout,
        "build-gen-before-push",
        "Run make gen before pushing generated code.",
        commands=("git push",),
    )


def _bash(layout: Layout, fixture: str, command: str) -> dict[str, object] | None:
    data = payload("claude-code", fixture, layout.root, tool_input={"command": command})
    return answer("claude-code", data)


def test_a_gated_recall_then_a_silent_one_are_logged(project: Layout) -> None:
    """The gate delivers and is logged with its tokens; the retry is logged silent."""
    _telemetry_on(project)
    _gen_lesson(project)
    assert _bash(project, "pre_tool_use_bash_redirect", "git push origin main") is not None
    assert _bash(project, "pre_tool_use_bash_redirect", "git push origin main") is None
    first, retry = read_log(project).recalls
    assert (first.event, first.key, first.session) == (
        "PreToolUse", "git push origin main", session_tag(SESSION),
    )  # fmt: skip
    assert (first.about, first.delivered) == ("command", ("build-gen-before-push",))
    assert first.tokens > 20
    assert retry.silent
    assert retry.tokens == 0
    assert retry.candidates == ("build-gen-before-push",)  # matched, but already shown


def test_a_failure_after_the_delivery_is_logged(project: Layout) -> None:
    """PostToolUseFailure on the same command names the lesson shown before it."""
    _telemetry_on(project)
    _gen_lesson(project)
    _bash(project, "pre_tool_use_bash_redirect", "git push origin main")
    _bash(project, "post_tool_use_failure_bash", "git push origin main")
    [failure] = read_log(project).failures
    assert (failure.event, failure.key) == ("PostToolUseFailure", "git push origin main")
    assert failure.after == ("build-gen-before-push",)


def test_a_failure_nothing_was_shown_for_is_logged_by_class_and_action(project: Layout) -> None:
    """A failed command no lesson covers is logged with no lessons, its error class and
    its action's identity (what "held" is judged by), never its output."""
    _telemetry_on(project)
    _gen_lesson(project)
    _bash(project, "post_tool_use_failure_bash", "make build")
    [failure] = read_log(project).failures
    assert failure.after == ()
    assert (failure.error_class, failure.action) == ("exit 1", "cmd ^make build")


def test_a_recall_names_its_action_and_call_and_whether_it_gated(project: Layout) -> None:
    """Each tool call's record carries its identity and a digest of the call; a gate is
    marked, and a changed command has another digest."""
    _telemetry_on(project)
    _gen_lesson(project)
    _bash(project, "pre_tool_use_bash_redirect", "git push origin main")
    _bash(project, "pre_tool_use_bash_redirect", "git push origin main --force-with-lease")
    gated, retry = read_log(project).recalls
    assert gated.gate
    assert not retry.gate
    assert gated.action == retry.action == "cmd ^git push origin"
    assert gated.call
    assert gated.call != retry.call


def test_a_prompt_recall_never_logs_the_prompt(project: Layout) -> None:
    """UserPromptSubmit is logged under the key 'prompt', without its text."""
    _telemetry_on(project)
    write_lesson(
        project, "build-gen", "Run make gen before pushing generated code.", keywords=("gen",)
    )
    data = payload("claude-code", "user_prompt_submit", project.root, prompt="gen secret-plan-x")
    assert answer("claude-code", data) is not None
    [record] = read_log(project).recalls
    assert (record.event, record.key, record.about, record.delivered) == (
        "UserPromptSubmit",
        "prompt",
        "prompt",
        ("build-gen",),
    )
    assert "secret-plan-x" not in log_path(project).read_text()


def test_telemetry_off_writes_no_log(project: Layout) -> None:
    """The default config leaves .lessons/local/ without a telemetry log."""
    _gen_lesson(project)
    assert _bash(project, "pre_tool_use_bash_redirect", "git push origin main") is not None
    assert not log_path(project).exists()


def test_with_telemetry_on_the_hook_process_stays_light(project: Layout) -> None:
    """A real hook process logging telemetry still imports no click, BM25 or detector
    (with the index cache fresh: only a rebuild runs rank_bm25)."""
    _telemetry_on(project)
    _gen_lesson(project)
    load_index(project)
    data = payload(
        "claude-code", "pre_tool_use_bash_redirect", project.root,
        tool_input={"command": "git push"},
    )  # fmt: skip
    done = _run(PROBE, json.dumps(data), Path(project.root))
    assert done.returncode == 0
    assert done.stderr == ""
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert len(read_log(project).recalls) == 1


def test_a_file_recall_says_its_key_is_files(project: Layout) -> None:
    """A Write is logged under its repo-relative path, marked as files."""
    _telemetry_on(project)
    write_lesson(project, "code-a-import-safe", "Keep src/a.py import-safe.", files=("src/a.py",))
    assert answer("claude-code", payload("claude-code", "pre_tool_use_write", project.root))
    [record] = read_log(project).recalls
    assert (record.key, record.about) == ("src/a.py", "files")


def test_other_harnesses_log_under_their_own_event_names(project: Layout) -> None:
    """A Gemini CLI BeforeTool recall is logged as BeforeTool."""
    _telemetry_on(project)
    write_lesson(project, "release-bump", "Bump VERSION first.", commands=(r"scripts/release\.sh",))
    assert answer("gemini", payload("gemini", "before_tool_shell", project.root)) is not None
    [record] = read_log(project).recalls
    assert (record.event, record.key) == ("BeforeTool", "bash scripts/release.sh")
    assert record.delivered == ("release-bump",)
