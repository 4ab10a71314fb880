"""The Gemini CLI adapter on payloads the real client sent (tests/fixtures/gemini/)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from lessons_cli.harnesses import gemini
from lessons_core.delivery.deliver import GATE_PREFIX, session_note
from lessons_core.recall.render import BRACKET_CLOSE, BRACKET_OPEN
from lessons_core.store.layout import Layout
from tests.hooks.conftest import answer, call_hook, file_rules_as_context, payload, write_lesson

RELEASE = "Bump VERSION before running scripts/release.sh."
APP = "Keep src/app.py free of import-time side effects."
# A record like the one the client appends when it replaces the conversation.
REWRITE = '{"$set":{"messages":[{"id":"a","type":"user","content":[{"text":"summary"}]}]}}\n'


def _lessons(layout: Layout) -> None:
    write_lesson(layout, "release-bump-version", RELEASE, commands=(r"scripts/release\.sh",))
    write_lesson(layout, "code-app-import-safe", APP, files=("src/app.py",))


def _call(layout: Layout, name: str, **changes: Any) -> dict[str, Any]:
    return payload("gemini", name, layout.root, **changes)


def _transcript(layout: Layout) -> Path:
    """The transcript file the fixtures name, started with the client's first records."""
    path = Path(_call(layout, "pre_compress")["transcript_path"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"sessionId":"s","kind":"main"}\n' + REWRITE)
    return path


def _append(path: Path, text: str) -> None:
    with path.open("a") as handle:
        handle.write(text)


def _context(got: dict[str, Any] | None) -> str:
    assert got is not None
    text: str = got["hookSpecificOutput"]["additionalContext"]
    return text


def test_before_tool_refuses_a_covered_command_once(project: Layout) -> None:
    """BeforeTool answers decision deny with the rules; the same call made again runs."""
    _lessons(project)
    got = answer("gemini", _call(project, "before_tool_shell"))
    assert got is not None
    assert got["decision"] == "deny"
    assert got["reason"].startswith(GATE_PREFIX)
    assert RELEASE in got["reason"]
    assert call_hook("gemini", _call(project, "before_tool_shell")) == b""


def test_file_rules_arrive_after_the_tool_in_a_bracket_fence(project: Layout) -> None:
    """BeforeTool cannot add context, so a file rule comes with AfterTool, once, fenced
    without angle brackets (the client would turn them into &lt; and &gt;)."""
    _lessons(project)
    file_rules_as_context(project)
    assert call_hook("gemini", _call(project, "before_tool_write_file")) == b""
    text = _context(answer("gemini", _call(project, "after_tool_write_file")))
    assert APP in text
    assert text.startswith(BRACKET_OPEN + "\n")
    assert text.endswith("\n" + BRACKET_CLOSE)
    assert "<" not in text
    assert call_hook("gemini", _call(project, "before_tool_replace")) == b""
    assert call_hook("gemini", _call(project, "after_tool_replace")) == b""


def test_a_pure_read_through_the_shell_speaks_only_about_its_file(project: Layout) -> None:
    """`cat` of a covered file refuses nothing and brings the file's rule after the call
    (appended to its output, before an edit); `cat` of an uncovered file is silent."""
    _lessons(project)
    cat = {"command": "cat src/app.py", "description": "show it"}
    assert call_hook("gemini", _call(project, "before_tool_shell", tool_input=cat)) == b""
    assert APP in _context(answer("gemini", _call(project, "after_tool_shell", tool_input=cat)))
    other = {"command": "cat README.md", "description": "show it"}
    assert call_hook("gemini", _call(project, "before_tool_shell", tool_input=other)) == b""
    assert call_hook("gemini", _call(project, "after_tool_shell", tool_input=other)) == b""


def test_read_file_brings_the_file_rule_after_it_and_the_edit_is_silent(
    project: Layout,
) -> None:
    """read_file (and read_many_files) bring a file's rule with AfterTool; the replace of
    that file afterwards is neither refused nor told again."""
    _lessons(project)
    path = str(project.root / "src" / "app.py")
    read = _call(project, "after_tool_write_file", tool_name="read_file")
    read["tool_input"] = {"file_path": path}
    assert APP in _context(answer("gemini", read))
    assert call_hook("gemini", _call(project, "before_tool_replace")) == b""
    many = _call(project, "after_tool_write_file", tool_name="read_many_files", session_id="t")
    many["tool_input"] = {"include": ["README.md", path]}
    assert APP in _context(answer("gemini", many))


def test_the_matchers_are_anchored_as_gemini_searches_tool_names() -> None:
    """The client runs the matcher as an unanchored RegExp: anchors keep it exact (the
    tools themselves: tests/hooks/test_wired_tools.py)."""
    wired = {"BeforeTool": gemini.CHANGE_TOOLS, "AfterTool": gemini.TOOLS}
    for event, tools in wired.items():
        (matcher,) = [hook.matcher for hook in gemini.WIRING.events if hook.name == event]
        assert matcher is not None
        assert all(re.search(matcher, tool) for tool in tools)
        for tool in ("read_file_x", "search_replace", "write_file_x", "grep_search"):
            assert not re.search(matcher, tool)
    assert not re.search(wired_matcher("BeforeTool"), "read_file")  # nothing to refuse


def wired_matcher(event: str) -> str:
    (matcher,) = [hook.matcher for hook in gemini.WIRING.events if hook.name == event]
    assert matcher is not None
    return matcher


def test_pre_compress_that_compressed_nothing_forgets_nothing(project: Layout) -> None:
    """The client fires PreCompress before every model request: with no rewrite in the
    transcript, a refused command runs when made again, a second matching command is not
    refused and a file rule is not shown twice."""
    _lessons(project)
    transcript = _transcript(project)
    assert call_hook("gemini", _call(project, "pre_compress")) == b""
    assert answer("gemini", _call(project, "before_tool_shell")) is not None
    _append(transcript, '{"id":"m1","type":"gemini","content":""}\n')
    assert call_hook("gemini", _call(project, "pre_compress")) == b""
    assert call_hook("gemini", _call(project, "before_tool_shell")) == b""
    again = {"command": "bash scripts/release.sh --force", "description": "run it"}
    assert call_hook("gemini", _call(project, "pre_compress")) == b""
    assert call_hook("gemini", _call(project, "before_tool_shell", tool_input=again)) == b""
    assert answer("gemini", _call(project, "after_tool_write_file")) is not None
    _append(transcript, '{"$set":{"lastUpdated":"2026-12-01T12:00:01.000Z"}}\n')
    assert call_hook("gemini", _call(project, "pre_compress")) == b""
    assert call_hook("gemini", _call(project, "after_tool_replace")) == b""


def test_a_history_rewrite_after_pre_compress_makes_rules_eligible_again(
    project: Layout,
) -> None:
    """Once the transcript shows the conversation replaced after a PreCompress (what a
    compression writes), the next call is shown its rules again, once; a refused call
    made again still runs."""
    _lessons(project)
    transcript = _transcript(project)
    assert answer("gemini", _call(project, "before_tool_shell")) is not None
    assert answer("gemini", _call(project, "after_tool_write_file")) is not None
    assert call_hook("gemini", _call(project, "pre_compress")) == b""
    _append(transcript, REWRITE)
    assert APP in _context(answer("gemini", _call(project, "after_tool_replace")))
    assert call_hook("gemini", _call(project, "after_tool_write_file")) == b""
    assert call_hook("gemini", _call(project, "before_tool_shell")) == b""  # refused before
    assert RELEASE in _context(answer("gemini", _call(project, "after_tool_shell")))


def test_a_rewrite_found_by_pre_compress_itself_also_counts(project: Layout) -> None:
    """A compression right before the last request of a turn is seen at the next
    PreCompress; a transcript shorter than the mark was written anew."""
    _lessons(project)
    transcript = _transcript(project)
    assert call_hook("gemini", _call(project, "pre_compress")) == b""
    assert answer("gemini", _call(project, "after_tool_write_file")) is not None
    _append(transcript, REWRITE)
    assert call_hook("gemini", _call(project, "pre_compress")) == b""
    assert answer("gemini", _call(project, "after_tool_write_file")) is not None
    transcript.write_text(REWRITE[:10] + "\n")
    assert call_hook("gemini", _call(project, "pre_compress")) == b""
    assert answer("gemini", _call(project, "after_tool_write_file")) is not None


def test_a_transcript_grown_past_what_a_hook_reads_counts_as_rewritten(
    project: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook reads at most MAX_SCAN new bytes; a larger jump is taken for a rewrite
    (a rule shown again), never read through."""
    _lessons(project)
    transcript = _transcript(project)
    assert call_hook("gemini", _call(project, "pre_compress")) == b""
    assert answer("gemini", _call(project, "after_tool_write_file")) is not None
    monkeypatch.setattr(gemini, "MAX_SCAN", 10)
    _append(transcript, '{"id":"m1","type":"gemini","content":""}\n')
    assert answer("gemini", _call(project, "after_tool_write_file")) is not None


@pytest.mark.parametrize("source", ["session_start_resume", "session_start_startup"])
def test_the_rewrite_a_session_start_writes_is_not_a_compression(
    project: Layout, source: str
) -> None:
    """Starting or resuming writes the conversation too, before the first PreCompress:
    a resumed session keeps what it was shown."""
    _lessons(project)
    transcript = _transcript(project)
    assert call_hook("gemini", _call(project, "pre_compress")) == b""
    assert answer("gemini", _call(project, "after_tool_write_file")) is not None
    answer("gemini", _call(project, source))
    _append(transcript, REWRITE)
    assert call_hook("gemini", _call(project, "before_agent")) == b""
    assert call_hook("gemini", _call(project, "pre_compress")) == b""
    shown_again = answer("gemini", _call(project, "after_tool_write_file")) is not None
    assert shown_again == (source == "session_start_startup")


def test_session_start_and_prompt_context(project: Layout) -> None:
    """SessionStart gives the note; BeforeAgent a keyword rule once, in a bracket fence."""
    write_lesson(
        project, "release-changelog", "Update CHANGELOG.md in every release.", keywords=("release",)
    )
    note = _context(answer("gemini", _call(project, "session_start_startup")))
    assert note == session_note(project)
    prompt = {"prompt": "cut the release"}
    text = _context(answer("gemini", _call(project, "before_agent", **prompt)))
    assert "CHANGELOG.md" in text
    assert text.startswith(BRACKET_OPEN)
    assert call_hook("gemini", _call(project, "before_agent", **prompt)) == b""


def test_the_context_the_client_put_before_the_prompt_is_not_matched(project: Layout) -> None:
    """The client prepends SessionStart's context to the prompt BeforeAgent gets (as
    <hook_context>…</hook_context>); words there (the note's `sh … add`) bring nothing,
    the user's words after it still do."""
    _lessons(project)
    write_lesson(project, "release-notes", "Write release notes first.", keywords=("release",))
    note = f"<hook_context>{session_note(project)}</hook_context>\n\n"
    quiet = _call(project, "before_agent", prompt=note + "cut the release")
    text = _context(answer("gemini", quiet))
    assert "Write release notes first." in text
    assert RELEASE not in text
    only_note = _call(project, "before_agent", session_id="other", prompt=note.strip())
    assert call_hook("gemini", only_note) == b""
    assert gemini.users_words(note + "<hook_context>b</hook_context>\n\nc") == "c"
    assert (
        gemini.users_words("a <hook_context>b</hook_context>") == "a <hook_context>b</hook_context>"
    )


def test_a_missing_transcript_leaves_the_session_alone(project: Layout) -> None:
    """No transcript (or an unreadable path) means no signal: nothing is forgotten."""
    _lessons(project)
    assert answer("gemini", _call(project, "after_tool_write_file")) is not None
    for path in ("", 42, "/nonexistent/session.jsonl"):
        assert call_hook("gemini", _call(project, "pre_compress", transcript_path=path)) == b""
        data = _call(project, "after_tool_write_file", transcript_path=path)
        assert call_hook("gemini", data) == b""
    assert not (project.local_dir / "hook.log").exists()
