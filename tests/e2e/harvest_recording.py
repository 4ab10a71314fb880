"""Record the transcripts ``tests/fixtures/harvest/`` holds, with the real Claude Code and
Codex CLIs.

Each scenario is one session in a fresh copy of the sample repo (``sample_repo``: two
lessons, the hooks wired with ``lessons init --claude-code`` or ``--codex``, the Codex
project and its hooks trusted), driven by the scripted fake model: its prompts go in turn
(the first with ``claude -p`` or ``codex exec``, the rest with ``--resume`` or ``codex exec
resume``), each naming the scripted calls the model makes for it. What is planted, and so what
``lessons harvest`` should find, is the scenario's ``expect``; sessions without anything
to find are there to catch false candidates.

Re-record all of them, or the scenarios named (about a minute for all; the client must be
installed by scripts/test), and update their labels in ``labels.json``:

    .venv/bin/python -m tests.e2e.harvest_recording [SCENARIO ...]

The files keep every record the client wrote except Claude Code's copies of API requests
and system prompt snapshots (large, and the client's own text), with the temp folders
replaced by ``/home/dev/shop`` (the repo) and ``/home/dev`` (the home), so no machine path
stays.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e import codex_project
from tests.e2e.claude_project import TOOLS, Project, bash_call, make_project, write_call
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import ClientProject

CLAUDE_CODE, CODEX = "claude-code", "codex"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "harvest"
LABELS = "labels.json"
REPO_PLACEHOLDER = "/home/dev/shop"
HOME_PLACEHOLDER = "/home/dev"
# Records that copy each API request (with the client's whole system prompt) or the
# system prompt itself: nothing a session step is made of.
DROPPED_ATTACHMENTS = frozenset({"api-request-blob", "api-request-shape", "prompt_snapshot"})
DROPPED_TYPES = frozenset({"api-request-blob", "api-request-shape"})


@dataclass(frozen=True)
class Prompt:
    text: str  # names its scenario with SCENARIO:<name>
    calls: tuple[ToolCall, ...]


@dataclass(frozen=True)
class Scenario:
    name: str
    prompts: tuple[Prompt, ...]
    expect: tuple[tuple[str, str], ...]  # (kind, subject) of every planted candidate
    client: str = CLAUDE_CODE


def _read_edit(root: Path, rel: str, old: str, new: str) -> ToolCall:
    path = str(root / rel)
    return ToolCall("Edit", {"file_path": path, "old_string": old, "new_string": new})


def scenarios(root: Path) -> tuple[Scenario, ...]:
    util = "src/util.py"
    return (
        Scenario(
            "correction_after_edit",
            (
                Prompt(
                    "SCENARIO:settings add the timeout setting",
                    (write_call(root, util, "TIMEOUT = 5\n"),),
                ),
                Prompt(
                    "No, never put settings in src/util.py; they belong in "
                    "config/settings.toml. SCENARIO:settings2",
                    (write_call(root, "config/settings.toml", "timeout = 5\n"),),
                ),
            ),
            (("correction", util),),
        ),
        Scenario(
            "correction_german",
            (
                Prompt("SCENARIO:helper add a helper", (write_call(root, util, "X = 1\n"),)),
                Prompt(
                    "Nein, bitte nicht in src/util.py; nimm stattdessen src/helpers.py. "
                    "SCENARIO:helper2",
                    (write_call(root, "src/helpers.py", "X = 1\n"),),
                ),
            ),
            (("correction", util),),
        ),
        Scenario(
            "correction_with_secret",
            (
                Prompt(
                    "SCENARIO:client add the api client",
                    (write_call(root, "src/client.py", "PASSWORD = 'x'\n"),),
                ),
                Prompt(
                    "Don't hardcode password=hunter2hunter2 in src/client.py; read it from "
                    "the environment instead. SCENARIO:client2",
                    (write_call(root, "src/env.py", "import os\n"),),
                ),
            ),
            (("correction", "src/client.py"),),
        ),
        Scenario(
            "fail_fix_command",
            (
                Prompt(
                    "SCENARIO:check run the checks",
                    (
                        bash_call("make check"),  # no Makefile yet
                        write_call(root, "Makefile", "check:\n\t@echo ok\n"),
                        bash_call("make check"),
                    ),
                ),
            ),
            (),  # the agent wrote the target it ran: its own work, nothing about the project
        ),
        Scenario(
            "fail_fix_edit",
            (
                Prompt(
                    "SCENARIO:limit raise the limit",
                    (
                        write_call(root, util, "LIMIT = 1\n"),
                        _read_edit(root, util, "LIMIT = 9", "LIMIT = 2"),  # not in the file
                        _read_edit(root, util, "LIMIT = 1", "LIMIT = 2"),
                    ),
                ),
            ),
            (),  # the edit tool's own error (old text not there): the agent's slip
        ),
        Scenario(
            "fail_fix_after_other_error",
            (
                Prompt(
                    "SCENARIO:build build it",
                    (
                        bash_call("make build"),  # no Makefile: no rule
                        write_call(root, "Makefile", "build:\n\tfalse\n"),
                        bash_call("make build"),  # the recipe fails: another error class
                        bash_call("printf 'build:\\n\\ttrue\\n' > Makefile"),
                        bash_call("make build"),
                    ),
                ),
            ),
            (),  # the same command passing after edits, no environment error: the usual loop
        ),
        Scenario(
            "fail_fix_other_target",
            (
                Prompt(
                    "SCENARIO:prod deploy to production",
                    (
                        write_call(root, "Makefile", "deploy:\n\t@echo deploying $(ENV)\n"),
                        bash_call("make deploy-prod"),  # no such target
                        bash_call("make deploy ENV=prod"),
                    ),
                ),
            ),
            (("fail-fix", "make deploy-prod"),),
        ),
        Scenario(
            "fail_fix_module_runner",
            (
                Prompt(
                    "SCENARIO:mycheck run the project check",
                    (
                        write_call(root, "mycheck.py", "print('ok')\n"),
                        bash_call("mycheck"),  # not a program on PATH
                        bash_call("python3 -m mycheck"),
                    ),
                ),
            ),
            (("fail-fix", "mycheck"),),
        ),
        Scenario(
            "fail_fix_missing_module",
            (
                Prompt(
                    "SCENARIO:gen generate the code",
                    (
                        write_call(root, "tools/gen.py", "import genhelp\n"),
                        bash_call("python3 tools/gen.py"),  # ModuleNotFoundError
                        write_call(root, "tools/genhelp.py", "HELP = 1\n"),
                        bash_call("python3 tools/gen.py"),
                    ),
                ),
            ),
            (("fail-fix", "python3 tools/gen.py"),),  # the same command, after a missing module
        ),
        Scenario(
            "test_edit_loop",
            (
                Prompt(
                    "SCENARIO:loop make the test pass",
                    (
                        write_call(root, "Makefile", "test:\n\tgrep -q DONE src/util.py\n"),
                        write_call(root, util, "X = 1\n"),
                        bash_call("make test"),  # the test fails
                        write_call(root, util, "DONE = 1\n"),
                        bash_call("make test"),  # and passes after the code changed
                    ),
                ),
            ),
            (),  # the ordinary loop: nothing project-specific
        ),
        Scenario(
            "recurring_failure",
            (
                Prompt(
                    "SCENARIO:deploy deploy it",
                    (bash_call("make deploy"), bash_call("make deploy")),
                ),
            ),
            (("recurring", "make deploy"),),
        ),
        Scenario(
            "gate_ignored",
            (
                Prompt(
                    "SCENARIO:release release it",
                    (bash_call("bash scripts/release.sh"),),  # gated, sent again unchanged
                ),
            ),
            (("gate-ignored", "bash scripts/release.sh"),),
        ),
        Scenario(
            "clean_session",
            (
                Prompt(
                    "SCENARIO:notes write the notes",
                    (write_call(root, "notes.txt", "notes\n"), bash_call("ls src")),
                ),
                Prompt(
                    "No rush, that looks good. Now add a changelog too. SCENARIO:changelog",
                    (write_call(root, "CHANGELOG.md", "# Changes\n"),),
                ),
            ),
            (),
        ),
        Scenario(
            "correction_before_any_action",
            (
                Prompt(
                    "No, don't start with the tests; write the notes first. SCENARIO:first",
                    (write_call(root, "notes.txt", "first\n"),),
                ),
            ),
            (),  # nothing had been done yet that the words could correct
        ),
        Scenario(
            "request_with_instead",
            (
                Prompt("SCENARIO:cache add the cache", (write_call(root, util, "CACHE = []\n"),)),
                Prompt(
                    "Good. Next, keep the entries in a dict instead of a list. SCENARIO:cache2",
                    (write_call(root, "src/cache.py", "CACHE = {}\n"),),
                ),
            ),
            (),  # a request, not a correction: a lexical cue cannot tell (a known miss)
        ),
        Scenario(
            "single_failure",
            (
                Prompt(
                    "SCENARIO:lint run the linter",
                    (bash_call("make lint"), write_call(root, "docs/lint.md", "later\n")),
                ),
                Prompt(
                    "Great, leave the linter for now and write the summary. SCENARIO:summary",
                    (write_call(root, "docs/summary.md", "summary\n"),),
                ),
            ),
            (),
        ),
    )


def codex_scenarios() -> tuple[Scenario, ...]:
    """The same kinds of session run by Codex CLI, whose calls name repo-relative paths."""
    util = "src/util.py"
    return (
        Scenario(
            "codex_correction_after_patch",
            (
                Prompt("SCENARIO:settings add the timeout setting", (_add(util, "TIMEOUT = 5"),)),
                Prompt(
                    "No, never put settings in src/util.py; they belong in "
                    "config/settings.toml. SCENARIO:settings2",
                    (_add("config/settings.toml", "timeout = 5"),),
                ),
            ),
            (("correction", util),),
            CODEX,
        ),
        Scenario(
            "codex_fail_fix_command",
            (
                Prompt(
                    "SCENARIO:check run the checks",
                    (
                        codex_project.shell_call("make check"),
                        _add("Makefile", "check:\n+\t@echo ok"),
                        codex_project.shell_call("make check"),
                    ),
                ),
            ),
            (),  # the agent wrote the target it ran
            CODEX,
        ),
        Scenario(
            "codex_fail_fix_patch",
            (
                Prompt(
                    "SCENARIO:limit raise the limit",
                    (
                        _add(util, "LIMIT = 1"),
                        codex_project.patch_call(
                            codex_project.update_patch(util, "LIMIT = 9", "LIMIT = 2")
                        ),
                        codex_project.patch_call(
                            codex_project.update_patch(util, "LIMIT = 1", "LIMIT = 2")
                        ),
                    ),
                ),
            ),
            (),  # the patch tool's own error (the old line not there): the agent's slip
            CODEX,
        ),
        Scenario(
            "codex_fail_fix_other_target",
            (
                Prompt(
                    "SCENARIO:prod deploy to production",
                    (
                        _add("Makefile", "deploy:\n+\t@echo deploying $(ENV)"),
                        codex_project.shell_call("make deploy-prod"),  # no such target
                        codex_project.shell_call("make deploy ENV=prod"),
                    ),
                ),
            ),
            (("fail-fix", "make deploy-prod"),),
            CODEX,
        ),
        Scenario(
            "codex_gate_and_recurring",
            (
                Prompt(
                    "SCENARIO:ship release and deploy",
                    (
                        codex_project.shell_call("bash scripts/release.sh"),
                        codex_project.shell_call("make deploy"),
                        codex_project.shell_call("make deploy"),
                    ),
                ),
            ),
            (("gate-ignored", "bash scripts/release.sh"), ("recurring", "make deploy")),
            CODEX,
        ),
        Scenario(
            "codex_clean_session",
            (
                Prompt(
                    "SCENARIO:notes write the notes",
                    (_add("notes.txt", "notes"), codex_project.shell_call("ls src")),
                ),
                Prompt(
                    "No rush, that looks good. Now add a changelog too. SCENARIO:changelog",
                    (_add("CHANGELOG.md", "# Changes"),),
                ),
            ),
            (),
            CODEX,
        ),
    )


def _add(path: str, line: str) -> ToolCall:
    """Codex's patch adding ``path`` with ``line`` (more lines joined by "\\n+")."""
    return codex_project.patch_call(
        f"*** Begin Patch\n*** Add File: {path}\n+{line}\n*** End Patch\n"
    )


def record(project: Project, scenario: Scenario) -> str:
    """Run ``scenario``'s prompts in one Claude Code session; the transcript, portable."""
    _script(project.fake.scenarios, scenario)
    first, *rest = scenario.prompts
    session = str(project.claude(first.text, "--allowedTools", TOOLS)["session_id"])
    for prompt in rest:
        project.claude(prompt.text, "--resume", session, "--allowedTools", TOOLS)
    return portable(project.transcript(session).read_text(), project)


def record_codex(project: codex_project.Project, scenario: Scenario) -> str:
    """Run ``scenario``'s prompts in one Codex session (``codex exec``, then ``codex exec
    resume``) in the trusted repo; the session file, portable."""
    _script(project.fake.scenarios, scenario)
    first, *rest = scenario.prompts
    started = project.codex(first.text)
    session = re.search(r"^session id: (\S+)$", started.stderr, re.M)
    assert session is not None, started.stderr
    for prompt in rest:
        project.codex(prompt.text, "resume", session.group(1))
    (rollout,) = (project.codex_home / "sessions").glob(f"*/*/*/rollout-*{session.group(1)}.jsonl")
    return portable(rollout.read_text(), project)


def _script(scripted: dict[str, list[ToolCall]], scenario: Scenario) -> None:
    for prompt in scenario.prompts:
        name = prompt.text.split("SCENARIO:", 1)[1].split()[0]
        scripted[name] = list(prompt.calls)


def portable(text: str, project: ClientProject[Any]) -> str:
    """The transcript without API request copies and with the temp folders replaced."""
    kept = []
    for line in text.splitlines():
        record = json.loads(line)
        attachment = record.get("attachment")
        kind = attachment.get("type") if isinstance(attachment, dict) else None
        if record.get("type") in DROPPED_TYPES or kind in DROPPED_ATTACHMENTS:
            continue
        kept.append(line)
    text = "\n".join(kept) + "\n"
    for folder, placeholder in ((project.root, REPO_PLACEHOLDER), (project.home, HOME_PLACEHOLDER)):
        text = text.replace(str(folder), placeholder)
    return text


def record_all(
    target: Path, names: frozenset[str] | None = None
) -> dict[str, list[dict[str, str]]]:
    """Record every scenario (or those in ``names``) into ``target``; the labels."""
    labels: dict[str, list[dict[str, str]]] = {}
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lessons-harvest-") as tmp:
        for number, name in enumerate(s.name for s in (*scenarios(Path("/")), *codex_scenarios())):
            if names is not None and name not in names:
                continue
            folder = Path(tmp) / str(number)
            folder.mkdir()
            file = f"{name}.jsonl"
            (target / file).write_text(record_in(folder, name))
            labels[file] = [
                {"kind": kind, "subject": subject}
                for kind, subject in scenario_named(Path("/"), name).expect
            ]
    return labels


def record_in(folder: Path, name: str) -> str:
    """Record the scenario ``name`` in a fresh wired repo under ``folder``."""
    if scenario_named(Path("/"), name).client == CODEX:
        codex = codex_project.make_project(folder)
        try:
            codex.trust()
            return record_codex(codex, scenario_named(codex.root, name))
        finally:
            codex.server.close()
    project = make_project(folder)
    try:
        return record(project, scenario_named(project.root, name))
    finally:
        project.server.close()


def scenario_named(root: Path, name: str) -> Scenario:
    return next(s for s in (*scenarios(root), *codex_scenarios()) if s.name == name)


def main(names: list[str]) -> None:
    labels = record_all(FIXTURES, frozenset(names) if names else None)
    path = FIXTURES / LABELS
    kept = json.loads(path.read_text()) if names and path.exists() else {}
    path.write_text(json.dumps({**kept, **labels}, indent=2, sort_keys=True) + "\n")
    print(f"recorded {len(labels)} sessions into {FIXTURES}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
