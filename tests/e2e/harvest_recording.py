"""Record the transcripts ``tests/fixtures/harvest/`` holds, with the real Claude Code CLI.

Each scenario is one session in a fresh copy of the sample repo (``sample_repo``: two
lessons, the hook wired with ``lessons init --claude-code``), driven by the scripted fake
model: its prompts go in turn (the first with ``claude -p``, the rest with ``--resume``),
each naming the scripted calls the model makes for it. What is planted, and so what
``lessons harvest`` should find, is the scenario's ``expect``; sessions without anything
to find are there to catch false candidates.

Re-record all of them, or the scenarios named (about a minute for all; the client must be
installed by scripts/test), and update their labels in ``labels.json``:

    .venv/bin/python -m tests.e2e.harvest_recording [SCENARIO ...]

The files keep every record the client wrote except the copies of API requests and the
system prompt snapshots (large, and the client's own text), with the temp folders replaced
by ``/home/dev/shop`` (the repo) and ``/home/dev`` (the home), so no machine path stays.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.claude_project import TOOLS, Project, bash_call, make_project, write_call
from tests.e2e.fake_server import ToolCall

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
            (("fail-fix", "make check"),),
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
            (("fail-fix", util),),
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
            (("fail-fix", "make build"),),
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


def record(project: Project, scenario: Scenario) -> str:
    """Run ``scenario``'s prompts in one session; the transcript's text, made portable."""
    for prompt in scenario.prompts:
        name = prompt.text.split("SCENARIO:", 1)[1].split()[0]
        project.fake.scenarios[name] = list(prompt.calls)
    first, *rest = scenario.prompts
    session = str(project.claude(first.text, "--allowedTools", TOOLS)["session_id"])
    for prompt in rest:
        project.claude(prompt.text, "--resume", session, "--allowedTools", TOOLS)
    return portable(project.transcript(session).read_text(), project)


def portable(text: str, project: Project) -> str:
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
        for number, scenario in enumerate(scenarios(Path("/"))):
            if names is not None and scenario.name not in names:
                continue
            folder = Path(tmp) / str(number)
            folder.mkdir()
            project = make_project(folder)
            try:
                planned = next(s for s in scenarios(project.root) if s.name == scenario.name)
                file = f"{scenario.name}.jsonl"
                (target / file).write_text(record(project, planned))
            finally:
                project.server.close()
            labels[file] = [{"kind": kind, "subject": subject} for kind, subject in scenario.expect]
    return labels


def main(names: list[str]) -> None:
    labels = record_all(FIXTURES, frozenset(names) if names else None)
    path = FIXTURES / LABELS
    kept = json.loads(path.read_text()) if names and path.exists() else {}
    path.write_text(json.dumps({**kept, **labels}, indent=2, sort_keys=True) + "\n")
    print(f"recorded {len(labels)} sessions into {FIXTURES}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
