"""The `lessons hook` entry point: a real process, fast imports, click only for --help."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import lessons_cli
import lessons_core
from lessons_cli.app import cli
from lessons_core.index.cache import load_index
from lessons_core.store.layout import Layout
from tests.hooks.conftest import payload, write_lesson

PROBE = """
import atexit, sys
heavy = ("click", "numpy", "rank_bm25", "detect_secrets", "mcp", "pydantic", "anyio")
atexit.register(lambda: sys.stderr.write(",".join(m for m in heavy if m in sys.modules)))
from lessons_cli.main import main
main(["hook", "claude-code"])
"""


def _run(code: str, stdin: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("fixture", "changes", "field"),
    [
        (
            "pre_tool_use_bash_redirect",
            {"tool_input": {"command": "git push"}},
            "permissionDecisionReason",
        ),
        (
            "user_prompt_submit",
            {"prompt": "gen before pushing generated files"},
            "additionalContext",
        ),
        (
            "post_tool_use_failure_bash",
            {
                "tool_input": {"command": "make gen"},
                "error": "Exit code 2\nmake: *** No rule to make target 'gen'.  Stop.",
            },
            "additionalContext",
        ),
    ],
)
def test_hook_process_never_imports_click_bm25_detect_secrets_or_mcp(
    project: Layout, fixture: str, changes: dict[str, object], field: str
) -> None:
    """Delivering hooks import none of click, numpy/rank_bm25, detect_secrets or the MCP
    SDK (with the index cache fresh: only a rebuild runs rank_bm25, see
    test_recall_imports)."""
    write_lesson(
        project, "build-gen-before-push", "Run make gen before pushing generated code.",
        commands=("git push",),
    )  # fmt: skip
    load_index(project)
    data = payload("claude-code", fixture, project.root, **changes)
    done = _run(PROBE, json.dumps(data), project.root)
    assert done.returncode == 0
    assert json.loads(done.stdout)["hookSpecificOutput"][field]
    assert done.stderr == ""


# Run with -S and the source tree on sys.path, as the launcher runs a regular install.
LEAN_PROBE = """
import atexit, sys
sys.path[:0] = {roots!r}
# typing (and what it loads: re, functools, contextlib, collections, enum) is a record's
# ordinary import (``ToolAction``), so it is not among them.
unwanted = (
    "click", "numpy", "rank_bm25", "pathspec", "re2", "detect_secrets", "orjson",
    "lessons_core.matching.globs", "lessons_core.index.build", "site",
)
atexit.register(lambda: sys.stderr.write(",".join(m for m in unwanted if m in sys.modules)))
from lessons_cli.main import main
main(["hook", "claude-code"])
"""


def test_a_read_over_usual_globs_loads_no_heavy_module(project: Layout) -> None:
    """A PreToolUse Read (where file rules come, before the edit) whose lessons have globs
    of literals, '*' and '**' and a keyword in the path delivers them all without loading
    a heavy module (click, numpy, pathspec, RE2, detect-secrets, orjson), the glob
    compiler or the index build, and without site's setup."""
    # Globs that pin a folder or a name, not broad ones (src/**, **/*.py): those would
    # wait behind these; four matches, so the config shows four.
    write_lesson(project, "src-tree", "Keep src importable.", files=("src/*.py",))
    write_lesson(project, "py-files", "Type every module.", files=("**/a.py",))
    write_lesson(project, "a-file", "Never rename a.py.", files=("src/a.py",))
    write_lesson(project, "src-word", "Mind the src layout.", keywords=("src",))
    project.config_path.write_text('{"max_trigger_matches": 4}\n')
    load_index(project)
    data = payload("claude-code", "pre_tool_use_read", project.root)
    data["tool_input"] = {"file_path": str(project.root / "src" / "a.py")}
    # The folders holding lessons_cli and lessons_core (one in an install, two in a checkout).
    roots = sorted({str(Path(p.__path__[0]).parent) for p in (lessons_cli, lessons_core)})
    done = subprocess.run(
        [sys.executable, "-S", "-c", LEAN_PROBE.format(roots=roots)],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        cwd=project.root,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    for rule in (
        "Keep src importable.",
        "Type every module.",
        "Never rename a.py.",
        "Mind the src",
    ):
        assert rule in context


def test_console_script_runs_the_hook_and_exits_zero_on_garbage(project: Layout) -> None:
    """`python -m lessons_cli hook claude-code` with bad stdin: exit 0, empty stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "lessons_cli", "hook", "claude-code"],
        input="not json",
        capture_output=True,
        text=True,
        cwd=project.root,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_hook_help_lists_every_harness() -> None:
    """`lessons hook --help` documents the harnesses and shows an example."""
    result = CliRunner().invoke(cli, ["hook", "--help"])
    assert result.exit_code == 0
    for name in ("claude-code", "codex", "gemini", "cursor", "Example:"):
        assert name in result.output


def test_unknown_harness_is_a_usage_error() -> None:
    """A harness name lessons does not know exits 2 with click's message on stderr."""
    result = CliRunner().invoke(cli, ["hook", "vim"])
    assert result.exit_code == 2
    assert "vim" in result.stderr
