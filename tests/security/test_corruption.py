"""Corruption: a truncated or invalid file is skipped by recall (the rest still served, by
the hook and by query), named where it is reported, and never rewritten by any command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lessons_core.jsonio import dumps
from lessons_core.store.layout import Layout
from tests.conftest import run, save_lesson
from tests.hooks.conftest import call_hook
from tests.security.conftest import checked_answer

RULE = "Keep imports in src/ sorted by isort."
BROKEN_ID = "code-broken"
GOOD = dumps(
    {"id": BROKEN_ID, "rule": "Never call the payments API from tests.", "topics": ["code"],
     "triggers": {"files": ["src/**"]}, "status": "active", "created": "2026-01-01"}
)  # fmt: skip
# Ways a lesson file breaks: cut short by a crash or a bad merge, emptied, hand-edited
# into the wrong shape, mangled bytes.
BROKEN = {
    "truncated": GOOD[: len(GOOD) // 2],
    "empty": b"",
    "invalid utf-8": GOOD.replace(b"Never", b"N\xff\xfever"),
    "not an object": b'["src/**"]\n',
    "wrong type": GOOD.replace(b'"status": "active"', b'"status": 1'),
    "unknown field": GOOD.replace(b'"topics"', b'"owner": "me", "topics"'),
    "id mismatch": GOOD.replace(BROKEN_ID.encode(), b"code-other", 1),
    "nested too deep": b"[" * 100_000,
    "merge conflict": b"<<<<<<< HEAD\n" + GOOD + b"=======\n" + GOOD + b">>>>>>> b\n",
}


def broken_store(layout: Layout, raw: bytes) -> Path:
    """A good lesson on src/**, and the broken file beside it."""
    save_lesson(layout, "code-sorted", RULE, files=("src/**",))
    path = layout.lessons_dir / f"{BROKEN_ID}.json"
    path.write_bytes(raw)
    return path


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_the_hook_skips_a_broken_lesson_and_serves_the_rest(project: Layout, kind: str) -> None:
    """The real hook answers with the good lesson; the broken file stays as it was."""
    path = broken_store(project, BROKEN[kind])
    data = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project.root),
            "tool_name": "Write", "tool_input": {"file_path": "src/a.py"}}  # fmt: skip
    text = checked_answer("claude-code", "PreToolUse", call_hook("claude-code", data))
    assert text is not None
    assert RULE in text
    assert path.read_bytes() == BROKEN[kind]


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_no_command_rewrites_a_lesson_file_it_cannot_parse(repo: Layout, kind: str) -> None:
    """query serves the rest and names the file; validate fails naming it; deprecate and
    supersede (either side) refuse naming it; add leaves it alone; its bytes never
    change."""
    path = broken_store(repo, BROKEN[kind])
    query = run("query", "--file", "src/app.py")
    assert RULE in query.stdout
    assert f"warning: skipped {path}" in query.stderr
    validate = run("validate")
    assert validate.exit_code == 1
    assert re.search(
        rf"^\.lessons/lessons/{BROKEN_ID}\.json(:\d+)?: L\d+ error", validate.stdout, re.M
    )
    for args in (
        ["deprecate", BROKEN_ID],
        ["supersede", BROKEN_ID, "--by", "code-sorted"],
        ["supersede", "code-sorted", "--by", BROKEN_ID],
        ["show", BROKEN_ID],
    ):
        result = run(*args)
        assert result.exit_code == 1, args
        assert str(path) in result.stderr, (args, result.stderr)
    added = run("add", "Never call the payments API from tests.", "--topic", "code",
                "--trigger-file", "src/**", "--force")  # fmt: skip
    assert added.exit_code == 0, added.stderr
    assert added.stdout.strip() != BROKEN_ID
    assert path.read_bytes() == BROKEN[kind]
    assert (repo.lessons_dir / "code-sorted.json").read_bytes().count(b'"active"') == 1


def test_import_leaves_a_broken_lesson_file_alone_and_says_so(repo: Layout, tmp_path: Path) -> None:
    """An imported lesson whose id is a broken file is not carried, with the reason."""
    path = broken_store(repo, BROKEN["truncated"])
    graph = {
        "version": 2,
        "topics": {"code": {"summary": "Code style."}},
        "triggers": {"t": {"kind": "file_glob", "pattern": "src/**"}},
        "lessons": {
            BROKEN_ID: {"rule": "Never call the payments API from tests.", "topics": ["code"],
                        "triggers": ["t"], "evidence": [], "status": "active",
                        "createdAt": "2026-01-01"},
        },
    }  # fmt: skip
    source = tmp_path / "graph.json"
    source.write_text(json.dumps(graph))
    result = run("import", "agentsmesh", str(source))
    assert result.exit_code == 0, result.stderr
    assert f"{BROKEN_ID}: left {path.name} alone: it does not parse" in result.stdout
    assert path.read_bytes() == BROKEN["truncated"]


def test_rm_deletes_a_broken_lesson_file_without_reading_it(repo: Layout) -> None:
    """rm is the way out of a broken file: it deletes it (git keeps the history)."""
    path = broken_store(repo, BROKEN["truncated"])
    result = run("rm", BROKEN_ID)
    assert result.exit_code == 0, result.stderr
    assert not path.exists()


SETTINGS = {
    "truncated": b'{"hooks": ',
    "array": b"[]",
    "hooks a list": b'{"hooks": []}',
    "event not a list": b'{"hooks": {"PreToolUse": {}}}',
    "invalid utf-8": b"\xff{}",
}


@pytest.mark.parametrize("kind", sorted(SETTINGS))
@pytest.mark.parametrize("flags", [["--claude-code"], ["--remove-hooks"]])
def test_init_never_rewrites_a_settings_file_it_cannot_read(
    repo: Layout, kind: str, flags: list[str]
) -> None:
    """init --claude-code (and --remove-hooks) on a broken .claude/settings.json leaves
    its bytes unchanged; where it would have to edit it, it fails naming the file. (An
    event that is not a list holds nothing of lessons' to remove.)"""
    settings = repo.root / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(SETTINGS[kind])
    result = run("init", *flags)
    assert settings.read_bytes() == SETTINGS[kind]
    if flags == ["--remove-hooks"] and kind == "event not a list":
        assert result.exit_code == 0
        assert "no hooks or sections of lessons found" in result.stdout
        return
    assert result.exit_code == 1, result.stdout
    assert str(settings) in result.stderr
    assert "fix it by hand" in result.stderr


def test_init_never_rewrites_an_agents_file_that_is_not_utf8(repo: Layout) -> None:
    """init --agents-md on an AGENTS.md that is not UTF-8: exit 1 naming it, unchanged."""
    agents = repo.root / "AGENTS.md"
    agents.write_bytes(b"# Agents\n\xff\xfe caf\xe9\n")
    result = run("init", "--agents-md")
    assert result.exit_code == 1
    assert f"{agents}: not UTF-8 text" in result.stderr
    assert agents.read_bytes() == b"# Agents\n\xff\xfe caf\xe9\n"


def test_a_broken_config_is_named_and_never_rewritten(repo: Layout) -> None:
    """query names a broken config.json and recalls with the defaults; init leaves the
    file as it is."""
    save_lesson(repo, "code-app", "Keep the app entry point import-safe.", files=("src/app.py",))
    repo.config_path.write_bytes(b'{"max_tokens": ')
    query = run("query", "--file", "src/app.py")
    assert query.exit_code == 0
    assert "Keep the app entry point import-safe." in query.stdout
    assert f"warning: {repo.config_path}: not valid JSON" in query.stderr
    assert run("init").exit_code == 0
    assert repo.config_path.read_bytes() == b'{"max_tokens": '


def test_a_corrupt_session_file_is_local_state_and_starts_over(project: Layout) -> None:
    """A session file cut short (a full disk) only means rules may be shown again: the
    hook still answers, and the file is replaced with a good one."""
    save_lesson(project, "code-sorted", RULE, files=("src/**",))
    data = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project.root),
            "tool_name": "Write", "tool_input": {"file_path": "src/a.py"}}  # fmt: skip
    assert call_hook("claude-code", data)
    (state,) = (project.local_dir / "sessions").glob("*.json")
    state.write_bytes(b'{"shown": ["code-so')
    assert call_hook("claude-code", data)
    assert json.loads(state.read_bytes())["shown"] == ["code-sorted"]
    assert call_hook("claude-code", data) == b""
