"""Always-on lessons reach every harness where the session note does: at session start
and, where the harness announces it, after compaction; recorded payloads drive each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lessons_core.delivery.always import fit
from lessons_core.delivery.deliver import session_note
from lessons_core.index.cache import cached_index
from lessons_core.recall.render import estimate_tokens
from lessons_core.store.layout import Layout
from lessons_core.store.model import Status
from tests.conftest import save_lesson
from tests.hooks.conftest import answer, call_hook, payload, write_lesson

PNPM = "Use pnpm, never npm, for every package command."
GERMAN = "Write commit messages in German."


def _always(layout: Layout) -> None:
    save_lesson(layout, "build-pnpm", PNPM, topics=("build",), always=True, created="2026-01-01")
    save_lesson(layout, "git-german", GERMAN, topics=("git",), always=True, created="2026-01-02")


def _configure(layout: Layout, text: str) -> None:
    Path(layout.under("config.json")).write_text(text)


def _text(harness: str, got: dict[str, Any] | None) -> str:
    """The context a session-start answer hands the model, whatever the harness's shape."""
    assert got is not None
    if harness == "cursor":
        return str(got["additional_context"])
    if harness == "copilot":
        return str(got["additionalContext"])
    return str(got["hookSpecificOutput"]["additionalContext"])


# (harness, recorded session start, recorded start after compaction or None)
STARTS = [
    ("claude-code", "session_start_startup", "session_start_compact"),
    ("codex", "session_start_startup", "session_start_compact"),
    ("gemini", "session_start_startup", None),
    ("copilot", "session_start_new", "session_start_resume"),
    ("qwen", "session_start_startup", None),
    ("cursor", "session_start", None),
]


@pytest.mark.parametrize(("harness", "start", "again"), STARTS)
def test_session_start_brings_the_note_then_the_always_on_lessons(
    project: Layout, harness: str, start: str, again: str | None
) -> None:
    """The answer to a recorded session start holds the note and both always-on rules,
    oldest first, labelled; the start after compaction brings them again."""
    _always(project)
    text = _text(harness, answer(harness, payload(harness, start, project.root)))
    assert text.startswith(session_note(project))
    assert text.index(PNPM) < text.index(GERMAN)
    assert f"- {PNPM} (always on)" in text
    fence = "[lessons]" if harness == "gemini" else "<lessons>"
    assert fence in text
    if again is not None:
        assert PNPM in _text(harness, answer(harness, payload(harness, again, project.root)))


def test_without_always_on_lessons_session_start_is_the_note_alone(project: Layout) -> None:
    """No always-on lesson, no block: the answer is exactly the note, as before."""
    write_lesson(project, "code-app", "Keep src/a.py small.", files=("src/a.py",))
    got = answer("claude-code", payload("claude-code", "session_start_startup", project.root))
    assert _text("claude-code", got) == session_note(project)


def test_always_on_lessons_come_even_with_the_note_off(project: Layout) -> None:
    """session_note false silences the note, not the always-on rules."""
    _always(project)
    _configure(project, json.dumps({"session_note": False}))
    got = answer("claude-code", payload("claude-code", "session_start_startup", project.root))
    text = _text("claude-code", got)
    assert text.startswith("<lessons>")
    assert PNPM in text


def test_a_resumed_session_is_not_told_again(project: Layout) -> None:
    """``resume`` keeps the conversation, so neither note nor always-on rules come."""
    _always(project)
    H = "claude-code"
    assert answer(H, payload(H, "session_start_startup", project.root)) is not None
    assert call_hook(H, payload(H, "session_start_resume", project.root)) == b""


def test_a_trigger_of_an_always_on_lesson_stays_quiet_until_compaction(project: Layout) -> None:
    """Delivered at session start, the lesson counts as shown: its file trigger does not
    repeat it; after compaction the session start brings it, and then the edit is quiet."""
    write_lesson(
        project, "code-a", "Keep src/a.py free of globals.", files=("src/a.py",), always=True
    )
    H = "claude-code"
    edit = payload(H, "pre_tool_use_edit", project.root)
    assert "free of globals" in _text(
        H, answer(H, payload(H, "session_start_startup", project.root))
    )
    assert call_hook(H, edit) == b""
    assert call_hook(H, payload(H, "pre_compact_manual", project.root)) == b""
    assert "free of globals" in _text(
        H, answer(H, payload(H, "session_start_compact", project.root))
    )
    assert call_hook(H, edit) == b""


def test_what_does_not_fit_the_budget_is_counted(project: Layout) -> None:
    """Many always-on rules: those within always_max_tokens come, oldest first, and one
    line says how many more did not; the block stays within the budget."""
    for n in range(12):
        rule = f"Rule number {n} applies to every task in this repository, whatever it is."
        write_lesson(project, f"rule-{n:02d}", rule, always=True, created=f"2026-01-{n + 1:02d}")
    _configure(project, json.dumps({"always_max_tokens": 120}))
    text = _text(
        "claude-code",
        answer("claude-code", payload("claude-code", "session_start_startup", project.root)),
    )
    block = text[text.index("<lessons>") :]
    assert estimate_tokens(block) <= 120
    assert "Rule number 0 " in block
    shown = block.count("(always on)")
    assert 0 < shown < 12
    assert f"{12 - shown} more rules match." in block


def test_a_zero_budget_turns_always_on_delivery_off(project: Layout) -> None:
    """always_max_tokens 0: the session start is the note alone."""
    _always(project)
    _configure(project, json.dumps({"always_max_tokens": 0}))
    got = answer("claude-code", payload("claude-code", "session_start_startup", project.root))
    assert _text("claude-code", got) == session_note(project)


def test_the_topics_line_names_the_largest_topics_within_the_budget(project: Layout) -> None:
    """session_topics adds one line naming the topics with most lessons, largest first,
    after the always-on rules, and the block still fits the budget."""
    _always(project)
    for n in range(3):
        write_lesson(project, f"t-{n}", f"Test rule {n} for src/a.py.", files=("src/a.py",))
    _configure(project, json.dumps({"session_topics": True}))
    text = _text(
        "claude-code",
        answer("claude-code", payload("claude-code", "session_start_startup", project.root)),
    )
    line = next(x for x in text.splitlines() if x.startswith("Topics with most lessons: "))
    assert line.startswith("Topics with most lessons: testing (3), build (1), git (1);")
    assert "query --prompt WORDS" in line
    assert text.index(GERMAN) < text.index(line) < text.index("</lessons>")


def test_fit_reports_the_topics_line_cost(project: Layout) -> None:
    """``fit`` says what the topics line added, and leaves it out when it cannot fit."""
    _always(project)
    index = cached_index(project)[0]
    with_line = fit(index, 300, with_topics=True)
    without = fit(index, 300)
    assert with_line.topic_tokens == estimate_tokens(with_line.text) - estimate_tokens(without.text)
    assert with_line.topic_tokens > 0
    needed = next(b for b in range(301) if fit(index, b).shown == without.shown)
    tight = fit(index, needed, with_topics=True)
    assert tight.text == without.text
    assert tight.topic_tokens == 0


def test_an_inactive_always_on_lesson_is_not_delivered(project: Layout) -> None:
    """A deprecated always-on lesson stays out of the block."""
    write_lesson(
        project, "old-rule", "Use yarn for everything.", always=True, status=Status.DEPRECATED
    )
    got = answer("claude-code", payload("claude-code", "session_start_startup", project.root))
    assert "yarn" not in _text("claude-code", got)


# Harnesses whose compaction no session start follows: (harness, the compaction event,
# the next event that can carry context). The always-on rules come with that event, once.
AFTER_COMPACTION = [
    ("qwen", "pre_compact_auto", "user_prompt_submit_empty"),
    ("qwen", "pre_compact_auto", "post_tool_use_edit"),
    ("cursor", "pre_compact", "post_tool_use_write"),
    ("copilot", "pre_compact_auto", "user_prompt_submitted"),
    ("copilot", "pre_compact_manual", "pre_tool_use_edit"),
]


def _context_of(harness: str, got: dict[str, Any] | None) -> str:
    if got is None:
        return ""
    if harness == "qwen":
        return str(got["hookSpecificOutput"]["additionalContext"])
    return _text(harness, got)


@pytest.mark.parametrize(("harness", "compaction", "after"), AFTER_COMPACTION)
def test_after_a_compaction_without_session_start_the_next_context_brings_them(
    project: Layout, harness: str, compaction: str, after: str
) -> None:
    """Recorded payloads: the compaction event leaves the always-on rules due; the next
    event that adds context brings them (before its own rules), and the one after it
    does not again."""
    _always(project)
    name = after
    first = _context_of(harness, answer(harness, payload(harness, name, project.root)))
    assert PNPM not in first  # no compaction yet: nothing due
    assert call_hook(harness, payload(harness, compaction, project.root)) == b""
    brought = _context_of(harness, answer(harness, payload(harness, name, project.root)))
    assert brought.count(PNPM) == 1
    assert brought.count(GERMAN) == 1
    assert PNPM not in _context_of(harness, answer(harness, payload(harness, name, project.root)))


def test_a_gemini_history_rewrite_leaves_them_due_for_the_next_context(project: Layout) -> None:
    """Gemini CLI announces no compaction: the rewrite its transcript shows makes the
    always-on rules due, and AfterTool (not BeforeTool, which cannot add context) brings
    them, once, after the note the rewrite dropped too."""
    _always(project)
    transcript = Path(payload("gemini", "pre_compress", project.root)["transcript_path"])
    transcript.parent.mkdir(parents=True, exist_ok=True)
    transcript.write_text('{"sessionId":"s","kind":"main"}\n')
    assert call_hook("gemini", payload("gemini", "pre_compress", project.root)) == b""
    with transcript.open("a") as handle:
        handle.write('{"$set":{"messages":[{"id":"a","type":"user","content":[]}]}}\n')
    assert call_hook("gemini", payload("gemini", "before_tool_shell", project.root)) == b""
    got = answer("gemini", payload("gemini", "after_tool_write_file", project.root))
    text = _text("gemini", got)
    assert text.startswith(session_note(project) + "\n[lessons]\n")
    assert text.count(PNPM) == 1
    assert call_hook("gemini", payload("gemini", "after_tool_replace", project.root)) == b""


def test_claude_codes_session_start_after_compaction_takes_what_was_due(project: Layout) -> None:
    """Claude Code starts a session after compacting: that start brings the rules, and
    the prompt after it does not bring them again."""
    _always(project)
    H = "claude-code"
    assert call_hook(H, payload(H, "pre_compact_manual", project.root)) == b""
    assert PNPM in _text(H, answer(H, payload(H, "session_start_compact", project.root)))
    prompt = answer(H, payload(H, "user_prompt_submit", project.root))
    assert prompt is None or PNPM not in _text(H, prompt)
