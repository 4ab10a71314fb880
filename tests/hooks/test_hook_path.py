"""The hook path as a checked boundary: the one list of modules a hook call may import,
what each of them may import at module level, and real hook calls staying inside it.

Every import on this path is paid on every tool call of every agent
(docs/performance.md). ``HOOK_PATH`` names each module a hook may load, with the
standard-library modules it may import at module level beyond the lean ones every
Python start has loaded already (``LEAN``). A module that needs more imports it inside
the function that needs it, so only the calls that use it pay.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import lessons_cli
from lessons_core.index.cache import load_index
from lessons_core.store.layout import Layout
from tests.hooks.conftest import FIXTURES, payload, write_lesson

# Loaded by a bare interpreter before any of our code, or built in: free to import.
LEAN = frozenset(
    {"__future__", "os", "sys", "errno", "stat", "marshal", "zlib", "struct", "time",
     "_collections_abc", "_json", "_sha2", "_sha256"}
)  # fmt: skip

# Module -> what it may import at module level beyond LEAN and the modules listed here.
# Modules after the blank line are loaded by some calls only (the comment says which).
HOOK_PATH: dict[str, frozenset[str]] = {
    "lessons_cli": frozenset(),
    "lessons_cli.main": frozenset(),
    "lessons_cli.hook_runner": frozenset(),
    "lessons_cli.harnesses": frozenset(),
    "lessons_cli.harnesses.spec": frozenset(),
    "lessons_cli.harnesses.claude_code": frozenset(),
    "lessons_cli.harnesses.codex": frozenset(),
    "lessons_cli.harnesses.copilot": frozenset(),
    "lessons_cli.harnesses.cursor": frozenset(),
    "lessons_cli.harnesses.gemini": frozenset(),
    "lessons_cli.harnesses.qwen": frozenset(),
    "lessons_core": frozenset(),
    "lessons_core.store": frozenset(),
    "lessons_core.matching": frozenset(),
    "lessons_core.index": frozenset(),
    "lessons_core.recall": frozenset(),
    "lessons_core.delivery": frozenset(),
    "lessons_core.authoring": frozenset(),  # on a failure: secrets
    "lessons_core.matching.bm25": frozenset(),
    "lessons_core.store.config": frozenset(),
    "lessons_core.delivery.deliver": frozenset(),
    "lessons_core.errors": frozenset(),
    "lessons_core.index.file_scan": frozenset(),
    "lessons_core.fsutil": frozenset(),
    "lessons_core.matching.glob_match": frozenset(),
    "lessons_core.hookjson": frozenset(),
    "lessons_core.index.cache": frozenset(),
    "lessons_core.index.file_format": frozenset({"collections.abc"}),  # a fallback only
    "lessons_core.store.layout": frozenset(),
    "lessons_core.recall.rank": frozenset(),
    "lessons_core.index.build": frozenset(),
    "lessons_core.recall.types": frozenset(),
    "lessons_core.records": frozenset({"operator"}),  # itemgetter, for the records' fields
    "lessons_core.recall.render": frozenset(),
    "lessons_core.delivery.sessions": frozenset({"hashlib"}),  # a fallback: _sha2 is built in
    "lessons_core.matching.specificity": frozenset(),
    "lessons_core.index.watch": frozenset(),
    "lessons_core.matching.words": frozenset(),

    # A command (not a file) to match: command triggers, pure reads, Codex's patches.
    "lessons_core.matching.commands": frozenset({"re", "functools"}),
    "lessons_core.matching.pure_reads": frozenset({"re"}),
    "lessons_core.patches": frozenset({"re"}),
    # A session start (or compaction): always-on lessons and the topics line.
    "lessons_core.delivery.always": frozenset({"itertools"}),
    # A failed tool call: the capture nudge, which masks secrets.
    "lessons_core.delivery.nudges": frozenset({"shlex"}),
    "lessons_core.authoring.secrets": frozenset({"re", "typing"}),
    # Rule text that is not plain, a glob without a plan, a hook that fails.
    "lessons_core.recall.inert": frozenset({"re", "unicodedata"}),
    "lessons_core.matching.glob_regex": frozenset(
        {"re", "warnings", "functools", "collections.abc"}
    ),
    "lessons_core.delivery.hooklog": frozenset({"contextlib", "pathlib"}),
}  # fmt: skip


def _source(module: str) -> Path:
    path = Path(lessons_cli.__file__).parents[1].joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _runtime_body(nodes: list[ast.stmt]) -> list[ast.stmt]:
    """The statements that run on import: an ``if TYPE_CHECKING:`` block's only in its
    ``else``; the ``try`` of a fallback import with its handlers."""
    body: list[ast.stmt] = []
    for node in nodes:
        if isinstance(node, ast.If):
            checking = isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
            body += _runtime_body(node.orelse if checking else node.body + node.orelse)
        elif isinstance(node, ast.Try):
            body += _runtime_body(node.body + [s for h in node.handlers for s in h.body])
        else:
            body.append(node)
    return body


def module_level_imports(module: str) -> set[str]:
    """What ``module`` imports when it is imported (not what its functions import)."""
    found = set()
    for node in _runtime_body(ast.parse(_source(module).read_text()).body):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = {f"{node.module}.{alias.name}" for alias in node.names}
            submodules = {name for name in names if name in HOOK_PATH}
            found |= submodules or {node.module}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


@pytest.mark.parametrize("module", HOOK_PATH)
def test_each_hook_path_module_imports_only_what_it_is_allowed(module: str) -> None:
    """At module level a hook-path module imports lean standard-library modules, its own
    allowance, and other hook-path modules; nothing else (click, typing, re, pathlib,
    json... are imported inside the functions that need them)."""
    allowed = LEAN | HOOK_PATH[module] | set(HOOK_PATH)
    assert module_level_imports(module) - allowed == set()


HOOK_CALL = """
import atexit, sys
ours = lambda: " ".join(m for m in sys.modules if m.startswith("lessons"))
atexit.register(lambda: sys.stderr.write(ours()))
from lessons_cli.main import main
main(["hook", sys.argv[1]])
"""


def test_real_hook_calls_load_only_hook_path_modules(project: Layout) -> None:
    """Every payload recorded from every harness's client, against a store whose lessons
    match them (a file, a command, a keyword), with the index cached: the hook process
    loads no module of ours outside HOOK_PATH (the calls take the command, failure and
    adapter paths too, so the check is not vacuous)."""
    write_lesson(project, "app-file", "Keep src/app.py free of side effects.", files=("src/*.py",))
    write_lesson(project, "release", "Bump VERSION before releasing.", commands=("git push",))
    write_lesson(project, "words", "Mind the <b>alembic</b> folder.", keywords=("app",))
    load_index(project)
    loaded: set[str] = set()
    for folder in sorted(p for p in FIXTURES.iterdir() if p.name in _HARNESS_OF):
        for path in sorted(folder.glob("*.json")):
            data = payload(_HARNESS_OF[folder.name], path.stem, project.root)
            done = subprocess.run(
                [sys.executable, "-c", HOOK_CALL, _HARNESS_OF[folder.name]],
                input=json.dumps(data), capture_output=True, text=True, cwd=project.root,
                timeout=60, check=False,
            )  # fmt: skip
            assert done.returncode == 0
            loaded |= set(done.stderr.split())
    assert loaded - set(HOOK_PATH) == set()
    assert {
        "lessons_core.matching.commands",
        "lessons_core.delivery.nudges",
        "lessons_cli.harnesses.qwen",
    } <= loaded


_HARNESS_OF = {
    "claude_code": "claude-code", "codex": "codex", "gemini": "gemini",
    "cursor": "cursor", "copilot": "copilot", "qwen": "qwen",
}  # fmt: skip
