"""The real Codex CLI, wired with `lessons init --codex`, against a fake Responses API.

`bash scripts/test` installs the pinned client into ./.e2e. Each test drives `codex exec`
in a temp git repo with a temp ``CODEX_HOME``; the model is `fake_responses.FakeResponses`
on a free loopback port, which issues scripted tool calls and records every request, so
the assertions read exactly what reached the model and when. Every run also checks that
each hook Codex reports ended Completed or Blocked and that `.lessons/local/hook.log`
stays empty (codex_project.Project.codex).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lessons_cli.harnesses.codex_trust import hook_hashes
from lessons_core.delivery.deliver import GATE_PREFIX, session_note
from lessons_core.recall.render import OPEN
from lessons_core.store.layout import Layout
from tests.e2e.codex_project import CODEX, Project, patch_call, shell_call, update_patch
from tests.e2e.codex_trust import hooks_list, project_trust, toml_string
from tests.e2e.codex_tui import trust_steps
from tests.e2e.fake_responses import COMPACT_MARK, output_text
from tests.e2e.fake_server import texts
from tests.e2e.sample_repo import (
    ALWAYS_RULE,
    APP_RULE,
    CHECK_RULE,
    FIX_STEPS,
    RELEASE_RULE,
    assert_fix_captured,
    capturing,
    lessons,
    note_line,
    payload_shape,
    saved_lesson,
    write_makefile,
)

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "codex"
BLOCKED = "Command blocked by PreToolUse hook: "
EVENTS = {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "Stop"}


def _items(request: dict[str, Any]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = request["input"]
    return items


def _blob(request: dict[str, Any]) -> str:
    return json.dumps(_items(request))


def _first_with(requests: list[dict[str, Any]], text: str) -> int:
    return next(i for i, r in enumerate(requests) if text in _blob(r))


def _developer_texts(request: dict[str, Any]) -> list[str]:
    return [
        text
        for item in _items(request)
        if item.get("type") == "message" and item.get("role") == "developer"
        for text in texts(item.get("content"))
    ]


def _outputs(request: dict[str, Any]) -> list[str]:
    kinds = {"function_call_output", "custom_tool_call_output"}
    return [output_text(item) for item in _items(request) if item.get("type") in kinds]


def _statuses(hooks: list[tuple[str, str]], event: str) -> list[str]:
    return [status for name, status in hooks if name == event]


def _doctor(project: Project) -> list[str]:
    """What `lessons doctor` says about Codex, run in the client's environment."""
    _code, checks = project.doctor_checks(project.env(), "codex")
    return [f"{c['status']}: {c['detail']}" for c in checks]


def test_hooks_run_only_after_the_documented_trust_steps(codex_repo: Project) -> None:
    """Untrusted folder: Codex warns and skips the repo; trusted folder: its hooks stay
    untrusted and silent; hooks trusted as Codex hashes them: all four events run.
    `lessons doctor` tells each of the three apart, from what Codex itself wrote."""
    project, fake = codex_repo, codex_repo.fake
    fake.scenarios["gate"] = [shell_call("bash scripts/release.sh")]
    released = project.root / "released.txt"

    run = project.codex("SCENARIO:gate release it")
    assert "Untrusted project-local configuration is disabled" in run.stderr
    assert run.hooks == []
    assert any("the project is not trusted" in line for line in _doctor(project))
    assert released.exists()
    assert RELEASE_RULE not in _blob(fake.requests[-1])

    released.unlink()
    run = project.codex("SCENARIO:gate release it", "--trust")
    assert project_trust(project.root) in project.config.read_text()  # what --trust wrote
    listed = hooks_list(CODEX, project.root, project.env())
    ours = {hook["key"]: hook for hook in listed if hook["source"] == "project"}
    hashes = hook_hashes(project.root / ".codex" / "hooks.json")
    assert {key: hook["currentHash"] for key, hook in ours.items()} == hashes
    assert {hook["trustStatus"] for hook in ours.values()} == {"untrusted"}
    assert run.hooks == []
    said = _doctor(project)
    assert "fail: 6 of lessons' hooks are new or changed since trusted: Codex skips them" in said
    assert not any("the project is not trusted" in line for line in said)
    assert released.exists()

    released.unlink()
    project.trust_hooks()
    listed = hooks_list(CODEX, project.root, project.env())
    statuses = {h["key"]: h["trustStatus"] for h in listed if h["source"] == "project"}
    assert statuses == dict.fromkeys(ours, "trusted")
    assert "ok: the project and lessons' hooks are trusted" in _doctor(project)
    run = project.codex("SCENARIO:gate release it")
    assert {name for name, _ in run.hooks} == EVENTS - {"PreCompact"}
    assert session_note(Layout(project.root)) in _developer_texts(fake.requests[-1])
    assert RELEASE_RULE in _blob(fake.requests[-1])


def test_the_trust_steps_in_codex_screen_save_what_the_tests_write(codex_repo: Project) -> None:
    """`codex` in the repo, "Trust and continue" for the folder, "Trust all and continue" in
    the hooks review: config.toml then holds exactly the entries ``Project.trust`` writes."""
    trust_steps(codex_repo)
    saved = codex_repo.config.read_text()
    assert project_trust(codex_repo.root) in saved
    for key, value in hook_hashes(codex_repo.root / ".codex" / "hooks.json").items():
        assert f'[hooks.state.{toml_string(key)}]\ntrusted_hash = "{value}"\n' in saved
    assert "ok: the project and lessons' hooks are trusted" in _doctor(codex_repo)


def test_gate_refuses_the_command_before_it_runs_and_the_retry_runs(codex: Project) -> None:
    """The model reads the rule while released.txt does not exist; the retry creates it;
    a second matching command in the session adds nothing."""
    fake = codex.fake
    fake.scenarios["gate"] = [
        shell_call("bash scripts/release.sh"),
        shell_call("sh scripts/release.sh"),
    ]
    run = codex.codex("SCENARIO:gate release it")
    first = _first_with(fake.requests, RELEASE_RULE)
    assert fake.observed[first][0] is False  # the model read the rule before anything ran
    refusal = _outputs(fake.requests[first])[-1]
    assert refusal.startswith(BLOCKED + GATE_PREFIX)
    assert (codex.root / "released.txt").exists()  # the retried call ran
    assert _statuses(run.hooks, "PreToolUse") == ["Blocked", "Completed", "Completed"]
    assert _blob(fake.requests[-1]).count(RELEASE_RULE) == 1


def test_a_shell_read_brings_the_rule_before_the_patch_and_the_patch_runs(
    codex: Project,
) -> None:
    """`sed -n 1,200p src/app.py` through the shell: the rule comes as a developer message
    with the read, in the request the model answers with its patch, while the file is
    unchanged; the patch runs unrefused, and the next one adds nothing."""
    fake = codex.fake
    fake.scenarios["read"] = [
        shell_call("sed -n 1,200p src/app.py"),
        patch_call(update_patch("src/app.py", "VALUE = 1", "VALUE = 2")),
        patch_call(update_patch("src/app.py", "VALUE = 2", "VALUE = 3")),
    ]
    run = codex.codex("SCENARIO:read change the app")
    first = _first_with(fake.requests, APP_RULE)
    assert any(APP_RULE in text for text in _developer_texts(fake.requests[first]))
    assert "VALUE = 1" in _outputs(fake.requests[first])[-1]  # the read's output
    assert fake.observed[first][1] == "VALUE = 1\n"  # before the patch ran
    before = {i.get("call_id") for i in _items(fake.requests[first])}
    answer = [i for i in _items(fake.requests[first + 1]) if i.get("call_id") not in before]
    assert answer[0]["type"] == "custom_tool_call"  # the model answered with its patch
    assert answer[0]["name"] == "apply_patch"
    assert _statuses(run.hooks, "PreToolUse") == ["Completed"] * 3
    assert (codex.root / "src" / "app.py").read_text() == "VALUE = 3\n"
    assert _blob(fake.requests[-1]).count(APP_RULE) == 1


def test_an_added_file_is_refused_once_with_its_rule_and_the_retry_adds_it(
    codex: Project,
) -> None:
    """`*** Add File:` under a folder rule: nothing could be read first, so the patch is
    refused with the rule before the file exists; the retry adds it."""
    storage_rule = "Open files under src/storage through storage.paths only."
    lessons(codex.root, "add", storage_rule, "--topic", "storage", "--trigger-file", "src/**/*.py")
    fake = codex.fake
    fresh = codex.root / "src" / "storage" / "fresh.py"
    fake.probe = fresh.exists
    added = "*** Begin Patch\n*** Add File: src/storage/fresh.py\n+X = 1\n*** End Patch\n"
    fake.scenarios["add"] = [patch_call(added)]
    run = codex.codex("SCENARIO:add a storage module")
    first = _first_with(fake.requests, storage_rule)
    assert fake.observed[first] is False
    assert _outputs(fake.requests[first])[-1].startswith(BLOCKED + GATE_PREFIX)
    assert fresh.read_text() == "X = 1\n"
    assert _statuses(run.hooks, "PreToolUse") == ["Blocked", "Completed"]


def test_a_shell_write_is_refused_once_with_the_rule(codex: Project) -> None:
    """A heredoc through the shell writing src/app.py, whose rule no read brought, is
    refused with it before the file changed; so is `apply_patch <<'EOF'` of it in
    another session; each retry runs."""
    fake = codex.fake
    fake.scenarios["heredoc"] = [shell_call("cat > src/app.py <<'EOF'\nVALUE = 2\nEOF")]
    run = codex.codex("SCENARIO:heredoc change the app")
    first = _first_with(fake.requests, APP_RULE)
    assert fake.observed[first][1] == "VALUE = 1\n"
    assert _outputs(fake.requests[first])[-1].startswith(BLOCKED + GATE_PREFIX)
    assert _statuses(run.hooks, "PreToolUse") == ["Blocked", "Completed"]
    assert (codex.root / "src" / "app.py").read_text() == "VALUE = 2\n"
    patch = update_patch("src/app.py", "VALUE = 2", "VALUE = 3")
    fake.scenarios["piped"] = [shell_call(f"apply_patch <<'EOF'\n{patch}EOF")]
    start = len(fake.requests)
    codex.codex("SCENARIO:piped change the app")
    first = start + _first_with(fake.requests[start:], APP_RULE)
    assert fake.observed[first][1] == "VALUE = 2\n"
    assert _outputs(fake.requests[first])[-1].startswith(BLOCKED + GATE_PREFIX)
    assert (codex.root / "src" / "app.py").read_text() == "VALUE = 3\n"


def test_after_compaction_the_rule_is_delivered_again(codex: Project) -> None:
    """A full context window makes Codex compact mid-turn (PreCompact, then SessionStart
    compact): the note comes back and the next edit of src/app.py, not read since, is
    refused with the rule again, and its retry runs."""
    fake = codex.fake
    fake.scenarios["compact"] = [
        shell_call("cat src/app.py"),
        patch_call(update_patch("src/app.py", "VALUE = 1", "VALUE = 2")),
        patch_call(update_patch("src/app.py", "VALUE = 2", "VALUE = 3")),
    ]
    fake.full_context_after.add(("compact", 1))
    run = codex.codex("SCENARIO:compact change the app")
    compaction = next(
        i for i, r in enumerate(fake.requests) if COMPACT_MARK in json.dumps(_items(r)[-1])
    )
    assert _blob(fake.requests[compaction]).count(APP_RULE) == 1
    after = fake.requests[compaction + 1]
    assert APP_RULE not in _blob(after)  # compaction dropped it from the conversation...
    assert session_note(Layout(codex.root)) in _developer_texts(after)
    assert _blob(fake.requests[-1]).count(APP_RULE) == 1  # ...and the next edit brought it
    assert _statuses(run.hooks, "PreToolUse") == ["Completed", "Completed", "Blocked", "Completed"]
    assert _statuses(run.hooks, "PreCompact") == ["Completed"]
    assert _statuses(run.hooks, "SessionStart") == ["Completed", "Completed"]
    assert (codex.root / "src" / "app.py").read_text() == "VALUE = 3\n"


def test_a_prompt_brings_the_rules_it_talks_about_before_the_first_reply(codex: Project) -> None:
    """UserPromptSubmit: the rule sharing the prompt's words is in the first request."""
    codex.codex("Bump the VERSION, then run the release script that tags it")
    assert any(RELEASE_RULE in text for text in _developer_texts(codex.fake.requests[0]))


def test_pure_reads_and_uncovered_calls_add_nothing(codex: Project) -> None:
    """A patch no lesson covers, cat/ls/grep of uncovered files, a search of a covered
    folder, a write elsewhere: silence."""
    fake = codex.fake
    fake.scenarios["quiet"] = [
        patch_call("*** Begin Patch\n*** Add File: docs/notes.md\n+# Notes\n*** End Patch\n"),
        shell_call("cat docs/notes.md && ls scripts"),
        shell_call("grep -rn VALUE src"),
        shell_call("echo done > out.txt"),
    ]
    run = codex.codex("SCENARIO:quiet look around")
    assert (codex.root / "out.txt").exists()
    assert (codex.root / "docs" / "notes.md").exists()
    assert _statuses(run.hooks, "PreToolUse") == ["Completed"] * 4
    for request in fake.requests:
        assert OPEN not in _blob(request)


def _fixture_kind(payload: dict[str, Any]) -> str | None:
    """The fixture file a payload is an instance of; None for the calls around the failing
    command's PostToolUse, which only that one stands for."""
    event = payload["hook_event_name"]
    failing = payload.get("tool_input", {}).get("command") == FIXTURE_FAILING
    if event == "PostToolUse":
        return "post_tool_use_bash" if failing else None
    if event == "PreToolUse" and failing:
        return None
    if event == "SessionStart":
        return f"session_start_{payload['source']}"
    if event != "PreToolUse":
        names = {
            "UserPromptSubmit": "user_prompt_submit",
            "PreCompact": "pre_compact",
            "Stop": "stop",
        }
        return names[event]
    if payload["tool_name"] == "apply_patch":
        return "pre_tool_use_apply_patch"
    heredoc = "*** Begin Patch" in payload["tool_input"]["command"]
    return "pre_tool_use_shell_heredoc_patch" if heredoc else "pre_tool_use_bash"


FIXTURE_PATCH = (
    "*** Begin Patch\n*** Update File: src/a.py\n@@ def save(p):\n-    return p\n"
    "+    return os.path.basename(p)\n*** Add File: docs/notes.md\n+# Notes\n"
    "*** Delete File: old/legacy.py\n*** End Patch\n"
)
FIXTURE_HEREDOC = (
    "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n"
    "*** End Patch\nEOF"
)

FIXTURE_FAILING = "echo out; echo err >&2; exit 3"


def test_the_fixtures_are_what_the_client_sends(codex: Project, tmp_path: Path) -> None:
    """Each payload in tests/fixtures/codex has the keys and types Codex sends, and the
    tool calls carry exactly the tool_input Codex gave its hooks."""
    (codex.root / "src" / "a.py").write_text("def save(p):\n    return p\nx\n")
    (codex.root / "old").mkdir()
    (codex.root / "old" / "legacy.py").write_text("")
    recorded = tmp_path / "payloads.jsonl"
    codex.record_hook_payloads(recorded)
    codex.fake.scenarios["payloads"] = [
        shell_call("git push origin release"),
        patch_call(FIXTURE_PATCH),
        shell_call(FIXTURE_HEREDOC),
        shell_call(FIXTURE_FAILING),
    ]
    codex.fake.full_context_after.add(("payloads", 2))
    codex.codex("SCENARIO:payloads Push the release branch to origin")
    payloads = [json.loads(line) for line in recorded.read_text().splitlines() if line]
    kinds = {kind: payload for payload in payloads if (kind := _fixture_kind(payload))}
    assert sorted(kinds) == sorted(path.stem for path in FIXTURES.glob("*.json"))
    for kind, payload in kinds.items():
        text = (FIXTURES / f"{kind}.json").read_text()
        text = text.replace("$PROJECT", str(codex.root)).replace("$HOME", str(codex.home))
        fixture = json.loads(text)
        assert payload_shape(fixture) == payload_shape(payload), kind
        assert fixture.get("tool_input") == payload.get("tool_input"), kind
        assert fixture["cwd"] == payload["cwd"], kind


def test_the_agent_captures_a_lesson_with_the_line_the_session_note_gave(codex: Project) -> None:
    """lessons is not on Codex's PATH (only in ~/.local/bin, as pipx leaves it). Without a
    failure, the capture line comes in the session note; the model runs it
    through the shell tool with its placeholders filled, and the lesson file appears."""
    codex.on_path = False
    fake = codex.fake
    codex.codex("say hello")
    notes = [t for r in fake.requests for t in _developer_texts(r) if "/.lessons/run add" in t]
    rule = "Keep VALUE in src/app.py an int; the config loader casts nothing."
    command = note_line(notes[0], rule, "code", "src/app.py")
    assert command.startswith(f"sh {codex.root}/.lessons/run add ")
    fake.scenarios["capture"] = [shell_call(command)]
    codex.codex("SCENARIO:capture keep it")
    assert saved_lesson(codex.root, rule)["triggers"]["files"] == ["src/app.py"]


def test_an_always_on_lesson_reaches_the_first_request_and_again_after_compaction(
    codex: Project,
) -> None:
    """`lessons add --always`: the rule is a developer message of the first request, and
    of the first request after Codex compacts (SessionStart compact), once each time."""
    lessons(codex.root, "add", ALWAYS_RULE, "--topic", "build", "--always")
    fake = codex.fake
    fake.scenarios["always"] = [
        patch_call(update_patch("src/app.py", "VALUE = 1", "VALUE = 2")),
        patch_call(update_patch("src/app.py", "VALUE = 2", "VALUE = 3")),
    ]
    fake.full_context_after.add(("always", 0))
    codex.codex("SCENARIO:always change the app")
    assert sum(ALWAYS_RULE in t for t in _developer_texts(fake.requests[0])) == 1
    compaction = next(
        i for i, r in enumerate(fake.requests) if COMPACT_MARK in json.dumps(_items(r)[-1])
    )
    after = fake.requests[compaction + 1]
    assert sum(ALWAYS_RULE in t for t in _developer_texts(after)) == 1
    assert _blob(after).count(ALWAYS_RULE) == 1


def test_a_corrected_session_is_asked_once_at_its_stop(codex: Project) -> None:
    """An edit of src/app.py, then (the session resumed) a prompt correcting it: Codex's
    Stop hook asks once, the model runs the prefilled line through its shell tool, the
    lesson appears, and the Stop after it lets the run end. No hook fires after a failed
    apply_patch, so a correction is the evidence after an edit."""
    fake = codex.fake
    fake.scenarios["edit"] = [patch_call(update_patch("src/app.py", "VALUE = 1", "VALUE = 2"))]
    codex.codex("SCENARIO:edit change the app")
    rule = "Regenerate src/app.py with make gen instead of editing it by hand."
    asked: list[str] = []

    # Codex hands the reason over HTML-escaped (&lt;topic&gt;), as Gemini CLI does
    # additionalContext.
    fake.answer_stop = capturing(shell_call, rule, "gen", asked, escaped=True)
    run = codex.codex(
        "No, don't edit src/app.py by hand; the generator writes it.", "resume", "--last"
    )
    assert len(asked) == 1
    assert 'after src/app.py the user said: "No, don' in asked[0]
    lesson = saved_lesson(codex.root, rule)
    assert lesson["triggers"]["files"] == ["src/app.py"]
    assert [status for name, status in run.hooks if name == "Stop"] == ["Blocked", "Completed"]


def test_a_failure_fixed_by_a_changed_command_is_asked_for_at_its_stop(codex: Project) -> None:
    """`make check-all` exits 2 (no such target), `make check` passes right after: Codex's
    Stop asks once, naming both, and the model runs the line, its rule drafted from the
    command that worked, through its shell tool."""
    write_makefile(codex.root)
    codex.fake.scenarios["fix"] = [shell_call(command) for command in FIX_STEPS]
    asked: list[str] = []
    codex.fake.answer_stop = capturing(shell_call, CHECK_RULE, "build", asked, escaped=True)
    run = codex.codex("SCENARIO:fix check the build")
    assert_fix_captured(codex.root, asked)
    assert [status for name, status in run.hooks if name == "Stop"] == ["Blocked", "Completed"]
