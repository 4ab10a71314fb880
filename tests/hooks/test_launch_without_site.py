"""The launcher starts Python without site's setup (``-S``): the entry file runs it only
when a module is found nowhere else, so a regular install's file edit never pays for it,
and an install whose dependencies only a ``.pth`` file names still finds them."""

from __future__ import annotations

import gc
import json
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import lessons_cli.main
from bench.installs import REPO, Install, linked
from lessons_core.index.cache import load_index
from lessons_core.store.launcher import launcher_text
from lessons_core.store.layout import Layout
from tests.hooks.conftest import write_lesson

EDIT_RULE = "Keep src/app.py free of import-time side effects."
PUSH_RULE = "Run the release checklist before git push."


def _hook(
    install: Install, root: Path, tool: str, tool_input: dict[str, str], session: str = "s"
) -> tuple[str, str]:
    """One pre-tool hook as the launcher execs it, with ``-X importtime``: its stdout and
    the modules it imported."""
    data = {"session_id": session, "cwd": str(root), "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": tool_input}  # fmt: skip
    main = REPO / "cli" / "lessons_cli" / "__main__.py"
    done = subprocess.run(
        [install.python, "-I", "-S", "-X", "importtime", str(main), "hook", "claude-code"],
        cwd=root,
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    imported = " ".join(line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines())
    return done.stdout, f" {imported} "


def test_the_launcher_starts_python_isolated_and_without_site() -> None:
    execs = [line.strip() for line in launcher_text().decode().splitlines() if "exec" in line]
    assert execs.count('exec "$py" -I -S "$main" "$@"') == 2
    assert not any(" -I " in line and "-S" not in line for line in execs)


def test_an_edit_imports_no_site_and_a_dependency_behind_a_pth_is_still_found(
    project: Layout, tmp_path: Path
) -> None:
    """In this install lessons' dependencies (RE2 for command patterns) are only on a
    ``.pth`` file's path: an edit from a fresh cache needs none of them and never runs
    site; a command whose pattern is more than literals does, and finds RE2 once site has
    added that path."""
    install = linked(tmp_path / "venv")
    write_lesson(project, "app", EDIT_RULE, files=("src/app.py",))
    write_lesson(project, "push", PUSH_RULE, commands=("git\\s+push",))
    load_index(project)  # a rebuild needs dependencies (pathspec, rank_bm25): not timed here
    said, imported = _hook(install, project.root, "Edit", {"file_path": "src/app.py"})
    assert EDIT_RULE in said
    assert " lessons_core.recall.rank " in imported
    assert " site " not in imported
    said, imported = _hook(install, project.root, "Bash", {"command": "git push origin main"})
    assert PUSH_RULE in said
    assert " site " in imported
    assert " re2 " in imported


def test_a_standard_module_the_library_probes_for_runs_no_site(
    project: Layout, tmp_path: Path
) -> None:
    """pathlib, as it loads, looks for Windows' ``_winapi`` (through ntpath) and does
    without it. That miss must not run site: site would then run the ``.pth`` files inside
    pathlib's own import, and one that imports from pathlib (as an editable install's
    does) fails on stderr, where a client shows it. A session start that builds the index
    imports pathlib before anything site could bring."""
    install = linked(tmp_path / "venv")
    purelib = next((tmp_path / "venv" / "lib").glob("python*/site-packages"))
    (purelib / "pathlib-user.pth").write_text("import sys; from pathlib import Path\n")
    write_lesson(project, "app", EDIT_RULE, files=("src/app.py",))
    # A fresh clone's: no index yet, so the session start builds it.
    shutil.rmtree(project.root / ".lessons" / "local", ignore_errors=True)
    data = {"session_id": "s", "cwd": str(project.root), "hook_event_name": "SessionStart",
            "source": "startup"}  # fmt: skip
    main = REPO / "cli" / "lessons_cli" / "__main__.py"
    done = subprocess.run(
        [install.python, "-I", "-S", str(main), "hook", "claude-code"],
        cwd=project.root,
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stderr == ""
    assert "Lessons blocks" in done.stdout


def test_a_command_on_literal_patterns_loads_neither_re2_nor_shlex(
    project: Layout, tmp_path: Path
) -> None:
    """Patterns of literals and anchors (``git push``, ``^git commit( |$)``, a group of
    words) are matched with string methods: the command that fires them, and a shell
    command with quotes and a redirect to /dev/null, load no RE2, no ``shlex`` and never
    run site."""
    install = linked(tmp_path / "venv")
    write_lesson(project, "push", PUSH_RULE, commands=("git push", "^git commit( |$)"))
    write_lesson(project, "pm", "Run the tests with CI=true.", commands=("pnpm (test|lint)",))
    load_index(project)
    calls = (
        ("git push origin main", PUSH_RULE),
        ("git commit -m 'one line' 2>/dev/null", PUSH_RULE),
        ("cd web && pnpm test", "Run the tests with CI=true."),
    )
    for number, (command, rule) in enumerate(calls):
        said, imported = _hook(install, project.root, "Bash", {"command": command}, f"s{number}")
        assert rule in said
        assert " lessons_core.matching.commands " in imported
        for module in (" re2 ", " shlex ", " site "):
            assert module not in imported, (command, module)


# The entry file's HOOK_GC_THRESHOLD (importing the entry file would run it).
HOOK_GC_THRESHOLD = 100_000


@pytest.mark.parametrize(("command", "threshold"), [("hook", HOOK_GC_THRESHOLD), ("mcp", None)])
def test_a_hook_from_the_entry_file_keeps_the_collector_out_of_its_imports(
    monkeypatch: pytest.MonkeyPatch, command: str, threshold: int | None
) -> None:
    """The entry file raises the collector's first threshold for a hook, before it imports
    anything of lessons, and leaves it alone for every other command (a server runs on)."""
    main = REPO / "cli" / "lessons_cli" / "__main__.py"
    seen: list[int] = []
    monkeypatch.setattr(lessons_cli.main, "main", lambda: seen.append(gc.get_threshold()[0]))
    monkeypatch.setattr(sys, "argv", [str(main), command])
    monkeypatch.setattr(sys, "path", [str(main.parent), *sys.path])  # it drops its own folder
    before = gc.get_threshold()
    try:
        runpy.run_path(str(main), run_name="__main__")
    finally:
        gc.set_threshold(*before)
    assert seen == [threshold or before[0]]
