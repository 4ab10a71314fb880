"""Every file under ``.lessons/local/`` is named once, in ``lessons_core.store.layout``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from click.testing import CliRunner

import lessons_core
from lessons_cli.app import cli
from lessons_core.index.cache import load_index
from lessons_core.jsonio import dumps
from lessons_core.store import layout as layout_module
from lessons_core.store.layout import LAUNCH, LOCAL, LOCAL_FILES, Layout
from tests.hooks.conftest import call_hook, payload, write_lesson

SOURCES = Path(lessons_core.__file__).parents[1]  # the checkout


def _string_constants(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def test_no_module_but_layout_spells_a_local_file() -> None:
    """The names of local/ and of the files in it (``hook.log``, ``recall-index.bin``...)
    appear as strings in no production module but lessons_core.store.layout; the launcher, a
    shell script, spells the one it writes the same way."""
    names = {LOCAL} | {name for name in LOCAL_FILES if "." in name or "-" in name}
    spelled = {
        str(path.relative_to(SOURCES)): found
        for package in ("lessons_core", "cli/lessons_cli")
        for path in sorted((SOURCES / package).rglob("*.py"))
        if path != Path(layout_module.__file__)
        if (found := _string_constants(path) & names)
    }
    assert spelled == {}
    launcher = (SOURCES / "lessons_core" / "store" / "launcher.sh").read_text()
    assert f"$store/{LOCAL}/{LAUNCH}" in launcher


def test_what_a_busy_clone_keeps_in_local_is_all_named(
    project: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Telemetry on, a lesson added through the command line, a gated call, its retry,
    a failure and a hook given garbage: every entry local/ then holds is in LOCAL_FILES."""
    monkeypatch.chdir(project.root)
    project.config_path.write_bytes(dumps({"telemetry": True}))
    write_lesson(project, "gen-push", "Run make gen before pushing.", commands=("git push",))
    load_index(project)
    result = CliRunner().invoke(
        cli,
        ["add", "Keep src/a.py free of import-time side effects.", "--trigger-file",
         "src/a.py", "--topic", "code"],
        catch_exceptions=False,
    )  # fmt: skip
    push = {"tool_input": {"command": "git push origin main"}}
    for _ in range(2):
        call_hook(
            "claude-code",
            payload("claude-code", "pre_tool_use_bash_redirect", project.root, **push),
        )
    call_hook(
        "claude-code", payload("claude-code", "post_tool_use_failure_bash", project.root, **push)
    )
    call_hook("claude-code", b"{")
    kept = {entry.name for entry in project.local_dir.iterdir() if not entry.name.endswith(".tmp")}
    assert {"sessions", "hook.log", "recall-index.bin", "telemetry.jsonl"} <= kept
    assert kept - set(LOCAL_FILES) == set(), result.output
