"""`lessons harvest`: capture candidates from transcripts, with triggers and coverage."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from lessons_core.delivery.deliver import GATE_PREFIX
from lessons_core.store.layout import Layout
from tests.conftest import lesson_count, run, save_lesson
from tests.transcript_records import SESSION, record, tool_result, tool_use, write

ROOT = "/repo"


def bash(call_id: str, command: str) -> dict[str, Any]:
    return record("assistant", [tool_use(call_id, "Bash", command=command)], cwd=ROOT)


def edit(call_id: str, path: str, old: str = "a") -> dict[str, Any]:
    block = tool_use(call_id, "Edit", file_path=f"{ROOT}/{path}", old_string=old, new_string="b")
    return record("assistant", [block], cwd=ROOT)


def result(call_id: str, text: str, error: bool = False) -> dict[str, Any]:
    return record("user", [tool_result(call_id, text, error)], cwd=ROOT)


def prompt(text: str) -> dict[str, Any]:
    return record("user", text, cwd=ROOT, timestamp="2026-11-30T10:00:00.000Z")


def harvested(tmp_path: Path, records: list[Any]) -> list[dict[str, Any]]:
    path = write(tmp_path, records)
    out = run("harvest", str(path), "--json")
    assert out.exit_code == 0, out.stderr
    found: list[dict[str, Any]] = json.loads(out.stdout)["candidates"]
    return found


def kinds(found: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(c["kind"], c["subject"]) for c in found]


NO_RULE = "Exit code 2\nmake: *** No rule to make target 'check'.  Stop."


NOT_FOUND = "Exit code 127\n/bin/bash: line 1: pytest: command not found"
TEST_FAILED = "Exit code 2\nmake: *** [Makefile:2: check] Error 1"


def test_a_changed_form_of_a_failed_command_that_works_right_after_is_a_fail_fix(
    repo: Layout, tmp_path: Path
) -> None:
    """No deploy-prod target, `make deploy ENV=prod` works: the candidate is the failed
    command, its trigger, and a rule drafted with the command that worked."""
    found = harvested(
        tmp_path,
        [
            prompt("deploy to production"),
            bash("t1", "make deploy-prod"),
            result("t1", NO_RULE.replace("'check'", "'deploy-prod'"), error=True),
            edit("t2", "notes.md"),
            result("t2", "ok"),
            bash("t4", "cat Makefile"),  # a pure read: not a command in between
            result("t4", "deploy:"),
            bash("t3", "make deploy ENV=prod"),
            result("t3", "deployed"),
        ],
    )
    assert kinds(found) == [("fail-fix", "make deploy-prod")]
    (candidate,) = found
    assert candidate["evidence"] == "exit 2: No rule to make target"
    assert candidate["fix"] == "make deploy ENV=prod"
    assert candidate["trigger"] == {"option": "--trigger-cmd", "value": "^make deploy-prod"}
    assert (
        "add \"Run 'make deploy ENV=prod', not 'make deploy-prod'.\" --topic <topic> "
        "--trigger-cmd '^make deploy-prod' --evidence session:" in candidate["add"]
    )


def test_a_wrapper_around_the_same_program_is_a_changed_form(repo: Layout, tmp_path: Path) -> None:
    """Bare pytest fails, `uv run pytest` works; `python -m` and npm's implied `run` too."""
    found = harvested(
        tmp_path,
        [
            bash("t1", "pytest -q"),
            result("t1", NOT_FOUND, error=True),
            bash("t2", "uv run pytest -q"),
            result("t2", "1 passed"),
            bash("t3", "npm run test:unit"),
            result("t3", 'Exit code 1\nnpm error Missing script: "test:unit"', error=True),
            bash("t4", "npm test"),
            result("t4", "ok"),
        ],
    )
    assert kinds(found) == [("fail-fix", "pytest -q"), ("fail-fix", "npm run test:unit")]
    assert [c["fix"] for c in found] == ["uv run pytest -q", "npm test"]


def test_another_command_or_program_in_between_is_no_fix(repo: Layout, tmp_path: Path) -> None:
    """`make check` fails, `make build` runs (another target), `make check` passes: the
    fix is not right after the failure, and the same command passing after an ordinary
    error is the usual loop. Another program after a failure fixes nothing either."""
    found = harvested(
        tmp_path,
        [
            bash("t1", "make check"),
            result("t1", TEST_FAILED, error=True),
            bash("t2", "make build"),
            result("t2", ""),
            bash("t3", "make check --verbose"),
            result("t3", "ok"),
            bash("t4", "git push"),
            result("t4", "Exit code 1\nerror: failed to push some refs", error=True),
            bash("t5", "gh pr create"),
            result("t5", "ok"),
        ],
    )
    assert found == []


def test_the_same_test_failing_then_passing_after_an_edit_is_no_candidate(
    repo: Layout, tmp_path: Path
) -> None:
    """The ordinary loop: the test fails, the code is edited, the test passes."""
    found = harvested(
        tmp_path,
        [
            bash("t1", "make check"),
            result("t1", TEST_FAILED, error=True),
            edit("t2", "src/app.py"),
            result("t2", "ok"),
            bash("t3", "make check"),
            result("t3", "ok"),
        ],
    )
    assert found == []


def test_the_same_command_passing_after_an_environment_error_is_a_fail_fix(
    repo: Layout, tmp_path: Path
) -> None:
    """A missing module, installed, and the same command passes: the environment was
    wrong, which a lesson can say."""
    found = harvested(
        tmp_path,
        [
            bash("t1", "python3 tools/gen.py"),
            result("t1", "Exit code 1\nModuleNotFoundError: No module named 'yaml'", error=True),
            bash("t2", "pip install pyyaml"),
            result("t2", "ok"),
            bash("t3", "python3 tools/gen.py"),
            result("t3", "ok"),
        ],
    )
    assert kinds(found) == [("fail-fix", "python3 tools/gen.py")]
    assert found[0]["evidence"] == "exit 1: ModuleNotFoundError"
    assert found[0]["fix"] is None


def test_the_edit_tools_own_errors_are_no_candidates(repo: Layout, tmp_path: Path) -> None:
    """Old text not found, twice, then a good edit: the agent's slip, neither a fail-fix
    nor a recurring failure."""
    found = harvested(
        tmp_path,
        [
            edit("t1", "src/app.py", "x"),
            result("t1", "String to replace not found in file.", error=True),
            edit("t2", "src/app.py", "y"),
            result("t2", "String to replace not found in file.", error=True),
            edit("t3", "src/app.py"),
            result("t3", "ok"),
        ],
    )
    assert found == []


def test_the_same_failure_twice_is_a_recurring_candidate_counted_to_the_end(
    repo: Layout, tmp_path: Path
) -> None:
    """Three failures of one action and class: one candidate, count 3."""
    records: list[Any] = []
    for n in range(3):
        records += [bash(f"t{n}", "make deploy"), result(f"t{n}", NO_RULE, error=True)]
    found = harvested(tmp_path, records)
    assert kinds(found) == [("recurring", "make deploy")]
    assert found[0]["count"] == 3


def test_two_different_errors_of_one_action_do_not_recur(repo: Layout, tmp_path: Path) -> None:
    """Different error classes are different failures; one failure alone is nothing."""
    found = harvested(
        tmp_path,
        [
            bash("t1", "make deploy"),
            result("t1", NO_RULE, error=True),
            bash("t2", "make deploy"),
            result("t2", "Exit code 2\nmake: *** [Makefile:2: deploy] Error 1", error=True),
        ],
    )
    assert found == []


def test_a_correction_after_an_action_names_that_action(repo: Layout, tmp_path: Path) -> None:
    """The first prompt after the agent acted, reading as a correction, quotes its clause."""
    found = harvested(
        tmp_path,
        [
            prompt("add a setting"),
            edit("t1", "src/app.py"),
            result("t1", "ok"),
            prompt("No, never put settings there. Use the config file instead."),
        ],
    )
    assert kinds(found) == [("correction", "src/app.py")]
    assert found[0]["evidence"] == "No, never put settings there. Use the config file instead."
    assert found[0]["time"] == "2026-11-30T10:00:00.000Z"


def test_corrections_need_an_action_right_before_them(repo: Layout, tmp_path: Path) -> None:
    """A correction as the first prompt, or after another prompt, has nothing to name."""
    found = harvested(
        tmp_path,
        [
            prompt("No, don't start with the tests."),
            edit("t1", "src/app.py"),
            result("t1", "ok"),
            prompt("Looks good, thanks."),
            prompt("Never mind the docs; add a test."),
        ],
    )
    assert found == []


RULE = "Use make (not a script of your own) to deploy."
REFUSALS = [
    # today's: the rules' lines alone, told by the store's rule "x"; a rule about the
    # very command run has no label
    f"{GATE_PREFIX}\n<lessons>\n- {RULE}\n</lessons>",
    f"{GATE_PREFIX}\n<lessons>\n- {RULE} (command: make)\n</lessons>",
    # a rule cut short ends in its id
    f"{GATE_PREFIX}\n<lessons>\n- Use make … (command: make) [x]\n</lessons>",
    # recorded before: the ids on the refusal's first line
    "Not run yet: adjust the call to these lessons if they apply, then make it again. [x]\n"
    "<lessons>\n- Use make. (command: make)\n</lessons>",
    # recorded before that: each rule's line led by its id
    f"{GATE_PREFIX}\n<lessons>\n- x: rule\n</lessons>",
]


@pytest.mark.parametrize("refusal", REFUSALS)
def test_a_call_sent_again_unchanged_after_a_gate_is_a_gate_ignored(
    repo: Layout, tmp_path: Path, refusal: str
) -> None:
    """The refusal is no failure; the identical retry is the candidate, naming the lessons
    the refusal showed (by their lines, whose rule the store holds); a changed one is
    not."""
    save_lesson(repo, "x", RULE, commands=("make release",))
    found = harvested(
        tmp_path,
        [
            bash("t1", "make deploy"),
            result("t1", refusal, error=True),
            bash("t2", "make deploy"),
            result("t2", "ok"),
            bash("t3", "make release"),
            result("t3", refusal, error=True),
            bash("t4", "make check && make release"),
            result("t4", "ok"),
        ],
    )
    assert kinds(found) == [("gate-ignored", "make deploy")]
    assert found[0]["evidence"] == "sent again unchanged after a lessons gate showed x"


def test_a_cut_rule_named_by_the_start_of_its_id_names_the_whole_id(
    repo: Layout, tmp_path: Path
) -> None:
    """A refusal names a rule shown cut by the start of its id (``render.short_id``): the
    candidate names the lesson by its whole id."""
    save_lesson(repo, "deploy-use-make-not-a-script", RULE, commands=("make deploy",))
    save_lesson(repo, "deploy-check-first", "Run make check first.", commands=("make x",))
    refusal = f"{GATE_PREFIX}\n<lessons>\n- Use make … [deploy-use]\n</lessons>"
    found = harvested(
        tmp_path,
        [
            bash("t1", "make deploy"),
            result("t1", refusal, error=True),
            bash("t2", "make deploy"),
            result("t2", "ok"),
        ],
    )
    assert kinds(found) == [("gate-ignored", "make deploy")]
    assert found[0]["evidence"] == (
        "sent again unchanged after a lessons gate showed deploy-use-make-not-a-script"
    )


def test_evidence_and_lines_are_masked(repo: Layout, tmp_path: Path) -> None:
    """A credential typed in a correction or run in a command never reaches the output."""
    path = write(
        tmp_path,
        [
            bash("t1", "deploy --token=abcdef123456 now"),
            result("t1", "Exit code 1\nerror: token abcdef123456 refused", error=True),
            bash("t2", "deploy prod --token=abcdef123456"),
            result("t2", "ok"),
            prompt("No, don't pass password=hunter2hunter2 on the command line."),
        ],
    )
    for args in ((), ("--json",)):
        out = run("harvest", str(path), *args)
        assert out.exit_code == 0
        assert "hunter2hunter2" not in out.stdout
        assert "abcdef123456" not in out.stdout
    found = json.loads(run("harvest", str(path), "--json").stdout)["candidates"]
    assert [c["kind"] for c in found] == ["fail-fix", "correction"]


def test_candidates_name_the_lessons_that_already_cover_them(repo: Layout, tmp_path: Path) -> None:
    """By trigger (a command lesson) and, for a correction, by a near-duplicate rule; a
    lesson whose keyword is in the command is about other words, not this action."""
    rule = "Run make check before make deploy."
    save_lesson(repo, "deploy-check", rule, commands=("make deploy",))
    save_lesson(repo, "deploy-word", "Announce each deploy in the channel.", keywords=("deploy",))
    save_lesson(repo, "settings-config", "Never put settings in src/app.py; use config.toml.")
    found = harvested(
        tmp_path,
        [
            bash("t1", "make deploy-prod"),
            result("t1", NO_RULE, error=True),
            bash("t2", "make deploy ENV=prod"),
            result("t2", "ok"),
            edit("t3", "src/db/models.py"),
            result("t3", "ok"),
            prompt("No, never put settings in src/app.py; use config.toml."),
        ],
    )
    assert [(c["kind"], c["covered_by"]) for c in found] == [
        ("fail-fix", ["deploy-check"]),
        ("correction", ["settings-config"]),
    ]


def test_harvest_never_writes_a_lesson(repo: Layout, tmp_path: Path) -> None:
    """The text listing says what it found; the store is untouched."""
    path = write(
        tmp_path,
        [bash("t1", "make deploy"), result("t1", NO_RULE, error=True)] * 1
        + [bash("t2", "make deploy"), result("t2", NO_RULE, error=True)],
    )
    before = lesson_count(repo)
    out = run("harvest", str(path))
    assert out.exit_code == 0
    assert "failed again 2 times: make deploy" in out.stdout
    assert ' add "<what to do instead, one imperative sentence>" --topic <topic>' in out.stdout
    assert out.stdout.rstrip().endswith("1 candidate (1 not covered by a lesson) in 1 transcript")
    assert lesson_count(repo) == before


def test_without_files_it_reads_this_repos_recent_claude_code_sessions(
    repo: Layout, tmp_path: Path, monkeypatch: Any
) -> None:
    """Sessions under CLAUDE_CONFIG_DIR/projects/<root with non-alphanumerics as ->/."""
    config = tmp_path / "claude"
    folder = config / "projects" / "".join(c if c.isalnum() else "-" for c in str(repo.root))
    folder.mkdir(parents=True)
    root = str(repo.root)
    records = [
        record("assistant", [tool_use("t1", "Bash", command="make deploy")], cwd=root),
        record("user", [tool_result("t1", NO_RULE, True)], cwd=root),
        record("assistant", [tool_use("t2", "Bash", command="make deploy")], cwd=root),
        record("user", [tool_result("t2", NO_RULE, True)], cwd=root),
    ]
    write(folder, records)
    other = config / "projects" / "-elsewhere"
    other.mkdir()
    write(other, records)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    data = json.loads(run("harvest", "--json").stdout)
    assert data["transcripts"] == [f"{SESSION}.jsonl"]
    assert [c["kind"] for c in data["candidates"]] == ["recurring"]


def test_no_sessions_found_is_said_on_stderr(
    repo: Layout, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "none"))
    out = run("harvest")
    assert out.exit_code == 0
    assert "no sessions of this repo under" in out.stderr
    assert "0 candidates" in out.stdout


def codex_rollout(
    folder: Path, cwd: str, name: str = "rollout-2026-11-30T10-00-00-x.jsonl"
) -> Path:
    """A Codex session file in the shapes Codex CLI 0.171.0 writes: make deploy fails twice."""
    day = folder / "2026" / "11" / "30"
    day.mkdir(parents=True, exist_ok=True)
    meta = {"type": "session_meta", "payload": {"id": "codex-1", "cwd": cwd}}
    lines = [meta]
    for n in range(2):
        call = {
            "type": "function_call",
            "name": "exec_command",
            "call_id": f"c{n}",
            "arguments": json.dumps({"cmd": "make deploy"}),
        }
        output = {
            "type": "function_call_output",
            "call_id": f"c{n}",
            "output": "Chunk ID: 1a2b\nWall time: 0.0 seconds\nProcess exited with code 2\n"
            "Original token count: 9\nOutput:\nmake: *** No rule to make target "
            "'deploy'.  Stop.\n",
        }
        lines += [{"type": "response_item", "payload": call},
                  {"type": "response_item", "payload": output}]  # fmt: skip
    path = day / name
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return path


def test_codex_session_files_are_read_the_same_way(repo: Layout, tmp_path: Path) -> None:
    """A rollout file, told apart by its first record: the same candidate and error class
    as Claude Code gives for the same failures."""
    path = codex_rollout(tmp_path / "sessions", str(repo.root))
    found = json.loads(run("harvest", str(path), "--json").stdout)["candidates"]
    assert [(c["kind"], c["subject"], c["count"], c["session"]) for c in found] == [
        ("recurring", "make deploy", 2, "codex-1")
    ]
    assert found[0]["evidence"] == "exit 2: No rule to make target"


def test_without_files_it_reads_this_repos_codex_sessions_too(
    repo: Layout, tmp_path: Path, monkeypatch: Any
) -> None:
    """Under CODEX_HOME/sessions, only the files whose session ran in this repo."""
    home = tmp_path / "codex"
    codex_rollout(home / "sessions", str(repo.root / "src"), "rollout-mine.jsonl")
    codex_rollout(home / "sessions", "/elsewhere", "rollout-other.jsonl")
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "none"))
    data = json.loads(run("harvest", "--json").stdout)
    assert data["transcripts"] == ["rollout-mine.jsonl"]


def test_a_stop_hooks_feedback_is_not_a_prompt(repo: Layout, tmp_path: Path) -> None:
    """Claude Code hands a Stop hook's reason on as a user message; nobody typed it."""
    found = harvested(
        tmp_path,
        [
            edit("t1", "src/app.py"),
            result("t1", "ok"),
            prompt("Stop hook feedback:\nNo lesson yet: write what to do instead, then stop."),
        ],
    )
    assert found == []


def test_the_add_line_captures_the_lesson_once_its_rule_is_written(
    repo: Layout, tmp_path: Path
) -> None:
    """The prefilled line, with the topic filled in, is a working `lessons add`: the rule
    drafted from the command that worked is kept as it is."""
    (candidate,) = harvested(
        tmp_path,
        [
            bash("t1", "make deploy-prod"),
            result("t1", NO_RULE.replace("'check'", "'deploy-prod'"), error=True),
            bash("t2", "make deploy ENV=prod"),
            result("t2", "ok"),
        ],
    )
    args = shlex.split(candidate["add"].replace("<topic>", "deploy"))
    out = run(*args[args.index("add") :])
    assert out.exit_code == 0, out.stderr
    (lesson,) = [json.loads(p.read_text()) for p in repo.lessons_dir.glob("*.json")]
    assert lesson["rule"] == "Run 'make deploy ENV=prod', not 'make deploy-prod'."
    assert lesson["triggers"]["commands"] == ["^make deploy-prod"]
    assert lesson["evidence"] == [f"session:{SESSION}"]
