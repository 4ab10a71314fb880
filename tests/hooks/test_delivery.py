"""Harness-independent delivery: modes, once per session, resets, pure reads, the note."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from lessons_core.delivery import deliver as delivery
from lessons_core.delivery.deliver import BOTH_MODES, CONTEXT, GATE, session_key
from lessons_core.delivery.tool_action import ToolAction
from lessons_core.recall.render import NOTE, estimate_tokens, header_for
from lessons_core.session import state as sessions
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout, lessons_command
from lessons_core.store.project import init_project
from tests.conftest import harness_env, make_repo
from tests.hooks.conftest import write_lesson

PUSH = ToolAction(command="git push origin main")
EDIT = ToolAction(files=("src/a.py",))
READ = ToolAction(reads=("src/a.py",))


def _lessons(layout: Layout) -> None:
    write_lesson(
        layout, "build-gen-before-push", "Run make gen before pushing.", commands=("git push",)
    )
    write_lesson(
        layout, "code-a-no-side-effects", "Keep src/a.py import-safe.", files=("src/a.py",)
    )


def test_command_rules_gate_and_file_rules_come_with_the_read_by_default(
    project: Layout,
) -> None:
    """Defaults: a command trigger gates the call; a file's rules come as context with
    the read of the file, and the change after it is silent."""
    _lessons(project)
    gate = delivery.before_action(project, "s", PUSH, Config())
    context = delivery.before_action(project, "s", READ, Config())
    assert gate is not None
    assert gate.refuses
    assert gate.text.startswith(delivery.GATE_PREFIX)
    assert "Run make gen before pushing." in gate.text
    assert gate.shown == ("build-gen-before-push",)
    assert "build-gen-before-push" not in gate.text  # a whole rule is not named by id
    assert context is not None
    assert not context.refuses
    assert "Keep src/a.py import-safe." in context.text
    assert delivery.GATE_PREFIX not in context.text
    assert delivery.before_action(project, "s", EDIT, Config()) is None


def test_a_refusal_line_is_two_words_once_the_session_note_said_the_rest(
    project: Layout,
) -> None:
    """Before any session start the refusal says to apply the rules and make the call
    again; after the note (which says a refused call runs when made again) it is
    ``GATE_PREFIX`` alone, then the block."""
    _lessons(project)
    first = delivery.before_action(project, "s", PUSH, Config())
    assert first is not None
    assert first.text.splitlines()[0] == f"{delivery.GATE_PREFIX} {delivery.GATE_ADVICE}"
    delivery.session_start(project, "s", "startup", Config())
    other = ToolAction(command="git push origin dev")  # not the refused call made again
    noted = delivery.before_action(project, "s", other, Config())
    assert noted is not None
    assert noted.text.splitlines()[:2] == [delivery.GATE_PREFIX, "<lessons>"]


def test_a_read_leaves_a_broad_rule_for_the_change(project: Layout) -> None:
    """A rule of a glob over a whole tree does not speak on the read of a file it covers
    (the exact file's rule does); the change of the file read comes with it as context,
    never refused for it; a change of a file no read prepared is refused once with it,
    and the retry runs."""
    _lessons(project)
    write_lesson(project, "code-src-small", "Keep modules small.", files=("src/**",))
    read = delivery.before_action(project, "s", READ, Config())
    assert read is not None
    assert read.shown == ("code-a-no-side-effects",)
    other = ToolAction(reads=("src/b.py",))
    assert delivery.before_action(project, "s", other, Config()) is None
    change = delivery.before_action(project, "s", EDIT, Config())
    assert change is not None
    assert (change.refuses, change.shown) == (False, ("code-src-small",))
    assert delivery.before_action(project, "s", EDIT, Config()) is None
    new = ToolAction(files=("src/new.py",))
    refused = delivery.before_action(project, "t", new, Config())
    assert refused is not None
    assert (refused.refuses, refused.shown) == (True, ("code-src-small",))
    assert delivery.before_action(project, "t", new, Config()) is None


def test_an_edit_of_a_read_file_is_never_refused_for_what_the_read_left(
    project: Layout,
) -> None:
    """The read of a file with more rules than a call shows (four specific ones, two
    broad ones) brings the first three; its edits bring the rest as context, not a
    refusal, whatever caps held them back. A rule added since the read is refused once.
    After a compaction the read is forgotten with what it brought: an edit without a new
    read is refused once, as any change whose rules no read brought."""
    for n in range(4):
        write_lesson(project, f"code-a-{n}", f"Rule {n} about src/a.py.", files=("src/a.py",))
    write_lesson(project, "code-src-one", "Keep modules small.", files=("src/**",))
    write_lesson(project, "code-py-two", "Type every function.", files=("**/*.py",))
    read = delivery.before_action(project, "s", READ, Config())
    assert read is not None
    assert len(read.shown) == 3
    edit = delivery.before_action(project, "s", EDIT, Config())
    assert edit is not None
    assert not edit.refuses
    assert "code-a-3" in edit.shown
    brought = list(edit.shown)
    while (more := delivery.before_action(project, "s", EDIT, Config())) is not None:
        assert not more.refuses  # the broad ones, a call at a time, as context
        brought += more.shown
    assert sorted(brought) == ["code-a-3", "code-py-two", "code-src-one"]
    write_lesson(project, "code-a-later", "Rule added after the read.", files=("src/a.py",))
    later = delivery.before_action(project, "s", EDIT, Config())
    assert later is not None
    assert (later.refuses, later.shown) == (True, ("code-a-later",))  # no read could bring it
    assert delivery.before_action(project, "s", EDIT, Config()) is None  # the retry runs
    delivery.before_compaction(project, "s")
    again = delivery.before_action(project, "s", EDIT, Config())
    assert again is not None
    assert again.refuses


def test_a_block_says_what_it_is_until_the_session_note_reached_the_model(
    project: Layout,
) -> None:
    """No session start brought the note (a ``qwen -p`` run fires none): each block
    carries the header, naming the launcher; after a start that brought the note, the
    blocks are the rules alone; a compaction drops the note with the rest, until the
    next start; with the note off, the header stays."""
    _lessons(project)
    header = header_for(lessons_command(project))
    first = delivery.before_action(project, "s", PUSH, Config())
    assert first is not None
    assert first.text.splitlines()[2] == header
    delivery.session_start(project, "s", "startup", Config())
    noted = delivery.before_action(project, "s", READ, Config())
    assert noted is not None
    assert NOTE not in noted.text
    assert noted.text.splitlines()[1] == "- Keep src/a.py import-safe."
    delivery.before_compaction(project, "s")
    again = delivery.before_action(project, "s", READ, Config())
    assert again is not None
    assert header in again.text
    off = Config(session_note=False)
    delivery.session_start(project, "t", "startup", off)
    quiet = delivery.before_action(project, "t", READ, off)
    assert quiet is not None
    assert header in quiet.text


def test_a_change_whose_rules_did_not_come_with_a_read_is_refused_once(
    project: Layout,
) -> None:
    """No read before the change (a new file): the first attempt is refused with the
    rules, the retry runs; ``delivery_file: "context"`` lets it run with them instead."""
    _lessons(project)
    first = delivery.before_action(project, "s", EDIT, Config())
    assert first is not None
    assert first.refuses
    assert "Keep src/a.py import-safe." in first.text
    assert delivery.before_action(project, "s", EDIT, Config()) is None  # the retry runs
    context = delivery.before_action(project, "t", EDIT, Config(delivery_file=CONTEXT))
    assert context is not None
    assert not context.refuses


def test_a_read_before_a_reset_or_a_lesson_added_since_leaves_the_change_refused(
    project: Layout,
) -> None:
    """Rules the model no longer holds (compaction after the read), or that did not
    exist at the read, refuse the change once; a read of an uncovered file is silent."""
    _lessons(project)
    assert delivery.before_action(project, "s", READ, Config()) is not None
    delivery.before_compaction(project, "s")
    again = delivery.before_action(project, "s", EDIT, Config())
    assert again is not None
    assert again.refuses
    assert delivery.before_action(project, "s", EDIT, Config()) is None
    write_lesson(project, "code-a-typed", "Type every function in src/a.py.", files=("src/a.py",))
    added = delivery.before_action(project, "s", EDIT, Config())
    assert added is not None
    assert added.refuses
    assert added.shown == ("code-a-typed",)
    assert "Type every function in src/a.py." in added.text
    readme = ToolAction(reads=("README.md",))
    assert delivery.before_action(project, "s", readme, Config()) is None


def test_a_budget_cut_at_the_read_leaves_the_rest_for_the_change(project: Layout) -> None:
    """More rules than a call may show: the read brings the first, the change of the
    file read brings the rest as context, not a refusal."""
    for n in range(3):
        write_lesson(project, f"code-a-{n}", f"Rule {n} about src/a.py.", files=("src/a.py",))
    config = Config(max_trigger_matches=2)
    read = delivery.before_action(project, "s", READ, config)
    assert read is not None
    assert len(read.shown) == 2
    change = delivery.before_action(project, "s", EDIT, config)
    assert change is not None
    assert not change.refuses
    assert len(change.shown) == 1
    assert set(change.shown).isdisjoint(read.shown)
    assert delivery.before_action(project, "s", EDIT, config) is None


def test_a_gate_lesson_waits_for_the_change(project: Layout) -> None:
    """A ``gate: true`` rule is not spent on a read: the change is refused with it."""
    write_lesson(
        project, "code-a-gated", "Never edit src/a.py by hand.", files=("src/a.py",), gate=True
    )
    assert delivery.before_action(project, "s", READ, Config()) is None
    notice = delivery.before_action(project, "s", EDIT, Config())
    assert notice is not None
    assert notice.refuses


def test_a_shell_read_speaks_about_its_file_and_a_shell_write_is_a_change(
    project: Layout,
) -> None:
    """``sed -n`` of a covered file brings its rule as context (no command rule fires
    for a pure read); a command writing a covered file is refused with its rule."""
    _lessons(project)
    write_lesson(project, "build-cat", "Never run sed here.", commands=("sed -i",))
    read = ToolAction(command="sed -n 1,200p src/a.py", reads=("src/a.py",))
    notice = delivery.before_action(project, "s", read, Config())
    assert notice is not None
    assert not notice.refuses
    assert notice.shown == ("code-a-no-side-effects",)
    write = ToolAction(command="cat > src/a.py <<'EOF'\nx = 2\nEOF", writes=("src/a.py",))
    other = delivery.before_action(project, "t", write, Config())
    assert other is not None
    assert other.refuses
    assert other.shown == ("code-a-no-side-effects",)
    assert delivery.before_action(project, "t", write, Config()) is None


def test_config_switches_both_modes(project: Layout) -> None:
    """delivery_file and delivery_command in config.json choose the modes."""
    _lessons(project)
    config = Config(delivery_file=GATE, delivery_command=CONTEXT)
    push = delivery.before_action(project, "s", PUSH, config)
    edit = delivery.before_action(project, "s", EDIT, config)
    assert push is not None
    assert not push.refuses
    assert edit is not None
    assert edit.refuses


def test_a_gate_lesson_always_gates(project: Layout) -> None:
    """A lesson with gate: true gates even where its trigger kind means context."""
    write_lesson(
        project, "code-a-gated", "Never edit src/a.py by hand.", files=("src/a.py",), gate=True
    )
    notice = delivery.before_action(project, "s", EDIT, Config(delivery_file=CONTEXT))
    assert notice is not None
    assert notice.refuses


def test_a_rule_is_shown_once_per_session_and_the_retry_passes(project: Layout) -> None:
    """After the gate, the same call in the same session is silent, so the retry runs."""
    _lessons(project)
    assert delivery.before_action(project, "s", PUSH, Config()) is not None
    assert delivery.before_action(project, "s", PUSH, Config()) is None
    assert delivery.before_action(project, "other", PUSH, Config()) is not None


def test_a_refused_call_made_again_is_never_refused_a_second_time(project: Layout) -> None:
    """More gating rules than a call's budget: the first call is refused with some of them,
    the same call made again passes with the rest as context, and the refusal is kept as
    a digest of the call, not its text; another command is still refused."""
    for n in range(5):
        write_lesson(project, f"push-rule-{n}", f"Push rule number {n}.", commands=("git push",))
    config = Config(max_trigger_matches=3)
    first = delivery.before_action(project, "s", PUSH, config)
    again = delivery.before_action(project, "s", PUSH, config)
    assert first is not None
    assert first.refuses
    assert first.text.count("Push rule number") == 3
    assert again is not None
    assert not again.refuses
    assert again.text.count("Push rule number") == 2
    assert all("git push" not in gate for gate in sessions.load(project, "s").refusals)
    write_lesson(project, "deploy-rule", "Deploy only from main.", commands=("make deploy",))
    deploy = delivery.before_action(project, "s", ToolAction(command="make deploy"), config)
    assert deploy is not None
    assert deploy.refuses


def test_refused_calls_made_again_in_another_order_pass(project: Layout) -> None:
    """Two calls refused in turn (parallel tool calls) and then made again: neither is
    refused a second time."""
    for n in range(5):
        write_lesson(project, f"push-rule-{n}", f"Push rule number {n}.", commands=("git push",))
        write_lesson(project, f"deploy-rule-{n}", f"Deploy rule {n}.", commands=("make deploy",))
    config = Config(max_trigger_matches=3)
    deploy = ToolAction(command="make deploy")
    first = [delivery.before_action(project, "s", action, config) for action in (PUSH, deploy)]
    again = [delivery.before_action(project, "s", action, config) for action in (PUSH, deploy)]
    assert [n is not None and n.refuses for n in first] == [True, True]
    assert [n is not None and n.refuses for n in again] == [False, False]


def _reset(layout: Layout, how: str) -> None:
    if how == "before_compaction":
        delivery.before_compaction(layout, "s")
    else:
        delivery.session_start(layout, "s", how, Config())


RESETS = ["compact", "clear", "startup", "before_compaction"]


@pytest.mark.parametrize("resets", [[r] for r in RESETS] + [RESETS])
@pytest.mark.parametrize("modes", [BOTH_MODES, frozenset({GATE})])
def test_a_refused_call_made_again_runs_whatever_resets_came_between(
    project: Layout, resets: list[str], modes: frozenset[str]
) -> None:
    """Refused, then any resets (compaction, /clear, a startup), then made again right
    away: the call runs, its rules as context where the event allows. The promise is kept
    once: after another reset the same call is refused again."""
    _lessons(project)
    config = Config()
    first = delivery.before_action(project, "s", PUSH, config, modes)
    assert first is not None
    assert first.refuses
    for how in resets:
        _reset(project, how)
    again = delivery.before_action(project, "s", PUSH, config, modes)
    if CONTEXT in modes:
        assert again is not None
        assert not again.refuses
        assert "Run make gen before pushing." in again.text
    else:
        assert again is None
    _reset(project, resets[0])
    later = delivery.before_action(project, "s", PUSH, config, modes)
    assert later is not None
    assert later.refuses


def test_a_reset_keeps_refusals_and_the_transcript_mark(project: Layout) -> None:
    """sessions.reset forgets what was shown, not the refused calls or the mark."""
    _lessons(project)
    assert delivery.before_action(project, "s", PUSH, Config()) is not None
    sessions.move_transcript_offset(project, "s", None, 1234)
    sessions.reset(project, "s")
    assert sessions.load(project, "s").shown == frozenset()
    assert sessions.load(project, "s").transcript_offset == 1234
    assert PUSH.refusal_key in sessions.load(project, "s").refusals


def test_nothing_matches_means_no_notice(project: Layout) -> None:
    """A call no lesson covers yields nothing at all."""
    _lessons(project)
    assert delivery.before_action(project, "s", ToolAction(command="make docs"), Config()) is None
    assert delivery.before_action(project, "s", ToolAction(files=("README.md",)), Config()) is None
    assert delivery.before_action(project, "s", ToolAction(), Config()) is None


def test_pure_reads_recall_nothing_unless_a_command_trigger_names_them(project: Layout) -> None:
    """cat of a covered file is silent; a command trigger on `git log` still fires."""
    _lessons(project)
    write_lesson(
        project, "git-log-first-parent", "Use git log --first-parent here.", commands=("git log",)
    )
    assert (
        delivery.before_action(project, "s", ToolAction(command="cat src/a.py"), Config()) is None
    )
    notice = delivery.before_action(project, "s", ToolAction(command="git log -5"), Config())
    assert notice is not None
    assert "first-parent" in notice.text


def test_a_pre_tool_hook_without_context_leaves_context_rules_for_later(project: Layout) -> None:
    """With only GATE allowed, context rules stay unclaimed for the post-tool hook."""
    _lessons(project)
    gate_only = frozenset({GATE})
    config = Config(delivery_file=CONTEXT)
    assert delivery.before_action(project, "s", EDIT, config, gate_only) is None
    assert delivery.before_action(project, "s", READ, Config(), gate_only) is None
    later = delivery.before_action(project, "s", EDIT, config, frozenset({CONTEXT}))
    assert later is not None
    assert not later.refuses


def test_compaction_clear_and_startup_reset_but_resume_keeps(project: Layout) -> None:
    """compact/clear/startup and PreCompact make rules eligible again; resume does not."""
    _lessons(project)
    config = Config()
    for source in ("compact", "clear", "startup"):
        assert delivery.before_action(project, "s", PUSH, config) is not None
        delivery.session_start(project, "s", "resume", config)
        assert delivery.before_action(project, "s", PUSH, config) is None
        delivery.session_start(project, "s", source, config)
    assert delivery.before_action(project, "s", PUSH, config) is not None
    delivery.before_compaction(project, "s")
    assert delivery.before_action(project, "s", PUSH, config) is not None


def test_a_subagent_keeps_its_own_set(project: Layout) -> None:
    """A rule shown to the parent is still shown to a subagent, and vice versa."""
    _lessons(project)
    parent = session_key("s")
    child = session_key("s", "agent-1")
    assert delivery.before_action(project, parent, PUSH, Config()) is not None
    assert delivery.before_action(project, child, PUSH, Config()) is not None
    assert delivery.before_action(project, child, PUSH, Config()) is None


def test_session_note_at_start_clear_and_compact_only(project: Layout) -> None:
    """The note comes with startup, clear and compact, not resume, and can be turned off."""
    config = Config()
    note = delivery.session_note(project)
    assert delivery.session_start(project, "s", "startup", config) == note
    assert delivery.session_start(project, "s", "compact", config) == note
    assert delivery.session_start(project, "s", "resume", config) is None
    assert (
        delivery.session_start(project, "s", "startup", config._replace(session_note=False)) is None
    )


def test_session_note_is_about_sixty_five_tokens(project: Layout) -> None:
    """The note stays short: about 65 tokens (4 characters a token) besides the repo's
    path, and it names the launcher by that path once, in the capture line the agent's
    shell can run as it is; ``show`` is the same command's."""
    note = delivery.session_note(project)
    launcher = f"sh {project.root}/.lessons/run"
    assert f'{launcher} add "RULE"' in note
    assert note.count(str(project.root)) == 1
    assert note.endswith(" --trigger-file GLOB; show ID prints a rule cut at … [ID].")
    assert len(note.replace(launcher, "lessons")) <= 65 * 4


def test_session_note_quotes_a_path_the_shell_would_split(tmp_path: Path) -> None:
    """A repo path with a space or a quote comes single-quoted, ready to paste."""
    root = make_repo(tmp_path / "my repo's", {"a.py": "x\n"})
    layout, _ = init_project(root)
    note = delivery.session_note(layout)
    quoted = "'" + str(root).replace("'", "'\\''") + "/.lessons/run'"
    assert f"sh {quoted} add" in note
    done = subprocess.run(
        ["sh", "-c", f"{note.split('taught: ')[1].split(' add ')[0]} --version"],
        env=harness_env(root),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout.startswith("lessons, version")


def test_a_store_without_the_launcher_says_plain_lessons(project: Layout) -> None:
    """Stores made before the launcher existed are told the console script's name."""
    (project.root / ".lessons" / "run").unlink()
    note = delivery.session_note(project)
    assert 'taught: lessons add "RULE"' in note


def test_prompt_keywords_are_shown_once(project: Layout) -> None:
    """A keyword in the prompt brings its rule once per session."""
    write_lesson(
        project, "release-notes", "Update CHANGELOG.md in every release.", keywords=("release",)
    )
    notice = delivery.on_prompt(project, "s", "Cut the release now", Config())
    assert notice is not None
    assert "CHANGELOG.md" in notice.text
    assert notice.shown == ("release-notes",)
    assert delivery.on_prompt(project, "s", "Cut the release now", Config()) is None
    assert delivery.on_prompt(project, "s", "   ", Config()) is None


def test_a_spent_session_budget_quiets_folder_rules_not_command_gates(project: Layout) -> None:
    """The hook counts what it shows: once the session's tokens are spent, an edit under
    a folder rule is silent, a command rule still gates, and compaction starts over."""
    _lessons(project)
    write_lesson(project, "code-src-typed", "Type every public function.", files=("src/*.py",))
    config = Config(max_session_tokens=1, delivery_file=CONTEXT)
    first = delivery.before_action(project, "s", ToolAction(files=("src/b.py",)), config)
    assert first is not None
    # The folder rule's line is what it spent: not the fence, not the exact path's rule.
    folder = [line for line in first.text.splitlines() if "(file: src/*.py)" in line]
    assert sessions.load(project, "s").tokens == estimate_tokens(folder[0])
    assert delivery.before_action(project, "s", EDIT, config) is not None  # the exact path
    write_lesson(project, "code-src-small", "Keep modules small.", files=("src/*.py",))
    assert delivery.before_action(project, "s", ToolAction(files=("src/c.py",)), config) is None
    gate = delivery.before_action(project, "s", PUSH, config)
    assert gate is not None
    assert gate.refuses
    delivery.before_compaction(project, "s")
    again = delivery.before_action(project, "s", ToolAction(files=("src/c.py",)), config)
    assert again is not None
    assert "code-src-small" in again.shown
    assert "Keep modules small." in again.text


def test_a_refusal_the_session_cannot_record_comes_as_context_without_its_refusal_line() -> None:
    """Where the session could not record a refusal, its rules come as context: the
    refusal's line goes, also when it stands second (a recurrence gate's head first)."""
    unrecorded: Any = SimpleNamespace(recorded=False)
    block = "<lessons>\n- Rule.\n</lessons>"
    for head in ("", "That call failed twice the same way.\n"):
        text = f"{head}{delivery.GATE_PREFIX}\n{block}"
        notice = delivery.Notice(text, refuses=True, shown=("a-rule",))
        context = delivery._unrefused(notice, unrecorded, BOTH_MODES)
        assert context is not None
        assert (context.text, context.refuses) == (f"{head}{block}", False)


def test_a_refusal_whose_retry_brings_the_rest_does_not_count_it(project: Layout) -> None:
    """Four rules about the command run, three a call: the refusal shows three and no
    count, since its retry (which runs) brings the fourth, which no budget holds back."""
    for n in range(4):
        write_lesson(
            project, f"push-{n}", f"Check thing {n} before pushing.", commands=("git push",)
        )
    gate = delivery.before_action(project, "s", PUSH, Config())
    assert gate is not None
    assert gate.refuses
    assert len(gate.shown) == 3
    assert "more rule" not in gate.text
    assert gate.text.endswith("\n</lessons>")
    retry = delivery.before_action(project, "s", PUSH, Config())
    assert retry is not None
    assert not retry.refuses
    assert len(retry.shown) == 1
    assert "more rule" not in retry.text


def test_a_refusal_keeps_its_count_when_the_rest_may_not_come(project: Layout) -> None:
    """The rule left out of an edit's refusal is a folder rule, which a spent session
    budget would hold back on the retry: the refusal still says it is there."""
    write_lesson(project, "code-a-exact", "Keep src/a.py import-safe.", files=("src/a.py",))
    for n in range(3):
        write_lesson(project, f"code-src-{n}", f"Folder rule {n}.", files=("src/*.py",))
    gate = delivery.before_action(project, "s", EDIT, Config())
    assert gate is not None
    assert gate.refuses
    assert len(gate.shown) == 3
    assert gate.text.endswith("\n1 more rule matches.\n</lessons>")


def test_a_read_made_again_writes_no_session_file(project: Layout) -> None:
    """What a read left for the edit is written once; the same read again, which leaves
    the same rules, does not write the session file."""
    _lessons(project)
    write_lesson(project, "code-src-small", "Keep modules small.", files=("src/**",))
    assert delivery.before_action(project, "s", READ, Config()) is not None
    path = sessions._path(project, "s")
    first = os.stat(path)
    assert delivery.before_action(project, "s", READ, Config()) is None
    again = os.stat(path)
    assert (again.st_ino, again.st_mtime_ns) == (first.st_ino, first.st_mtime_ns)
