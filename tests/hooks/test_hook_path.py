"""The hook path as a checked boundary: the one list of modules a hook call may import,
what each of them may import at module level, and real hook calls staying inside it.
Only these modules may import inside a function (ruff's PLC0415 is ignored for them
alone, in pyproject.toml); everywhere else imports stand at the top.

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

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the test matrix runs 3.11
    import tomli as tomllib

import pytest

import lessons_cli
import lessons_core
from lessons_core.index.cache import load_index
from lessons_core.store.layout import Layout
from tests.hooks.conftest import FIXTURES, payload, write_lesson

# Loaded by a bare interpreter before any of our code, or built in: free to import.
LEAN = frozenset(
    {"__future__", "os", "sys", "errno", "stat", "marshal", "zlib", "struct", "time",
     "_collections_abc", "_json", "_sha2", "_sha256", "_operator"}
)  # fmt: skip

# Module -> what it may import at module level beyond LEAN and the modules listed here.
# Modules after the blank line are loaded by some calls only (the comment says which).
HOOK_PATH: dict[str, frozenset[str]] = {
    # The launcher's entry file (imports site on a miss; gc is built in).
    "lessons_cli.__main__": frozenset({"gc"}),
    "lessons_cli": frozenset(),
    "lessons_cli.main": frozenset(),
    "lessons_cli.hook_runner": frozenset(),
    "lessons_cli.harnesses": frozenset(),
    "lessons_cli.harnesses.spec": frozenset(),
    "lessons_cli.harnesses.claude_code": frozenset(),
    "lessons_cli.harnesses.claude_protocol": frozenset(),
    "lessons_cli.harnesses.codex": frozenset(),
    "lessons_cli.harnesses.codex_exits": frozenset(),
    "lessons_cli.harnesses.copilot": frozenset(),
    "lessons_cli.harnesses.cursor": frozenset(),
    "lessons_cli.harnesses.gemini": frozenset(),
    "lessons_cli.harnesses.qwen": frozenset(),
    "lessons_cli.harnesses.pi": frozenset(),
    "lessons_cli.harnesses.cline": frozenset(),
    "lessons_cli.harnesses.opencode": frozenset(),
    "lessons_cli.harnesses.kilo": frozenset(),
    "lessons_core": frozenset(),
    "lessons_core.store": frozenset(),
    "lessons_core.matching": frozenset(),
    "lessons_core.index": frozenset(),
    "lessons_core.recall": frozenset(),
    "lessons_core.delivery": frozenset(),
    "lessons_core.authoring": frozenset(),  # on a failure: secrets
    "lessons_core.matching.bm25": frozenset(),  # a prompt only: BM25 scores its words
    "lessons_core.store.config": frozenset(),
    "lessons_core.delivery.deliver": frozenset(),
    "lessons_core.delivery.actions": frozenset(),
    "lessons_core.errors": frozenset(),
    "lessons_core.index.file_scan": frozenset(),
    "lessons_core.fsutil": frozenset(),
    "lessons_core.containment": frozenset(),
    "lessons_core.matching.glob_match": frozenset(),
    "lessons_core.hookjson": frozenset(),
    "lessons_core.index.cache": frozenset(),
    "lessons_core.index.file_format": frozenset({"collections.abc"}),  # a fallback only
    "lessons_core.store.layout": frozenset(),
    "lessons_core.store.sources": frozenset(),  # packs and the personal store
    "lessons_core.recall.scopes": frozenset(),
    "lessons_core.recall.rank": frozenset(),
    "lessons_core.index.entries": frozenset(),  # the index's records (the build is apart)
    "lessons_core.recall.types": frozenset(),
    "lessons_core.records": frozenset({"operator"}),  # a fallback: _operator is built in
    "lessons_core.recall.render": frozenset(),
    "lessons_core.session": frozenset(),
    "lessons_core.session.state": frozenset(),
    "lessons_core.session.action": frozenset({"hashlib"}),  # a fallback: _sha2 is built in
    "lessons_core.matching.words": frozenset(),
    "lessons_core.session.evidence": frozenset(),

    # A command (not a file) to match: command triggers, pure reads, Codex's patches.
    # None of them imports re at module level: planned patterns match with string methods.
    "lessons_core.matching.commands": frozenset(),
    "lessons_core.matching.command_plans": frozenset(),
    "lessons_core.matching.re2_patterns": frozenset(),  # RE2 is imported on a first compile
    "lessons_core.matching.pure_reads": frozenset(),
    "lessons_cli.harnesses.codex_patches": frozenset(),
    "lessons_core.matching.patch_paths": frozenset(),  # Codex's patches, shell patches
    "lessons_core.matching.command_words": frozenset(),
    "lessons_core.matching.shell_syntax": frozenset(),  # the files a shell call touches
    "lessons_core.matching.shell_files": frozenset({"posixpath"}),  # os loaded it already
    # A prompt that may name a file: git's list of tracked files, run when it changed.
    "lessons_core.recall.prompt_files": frozenset({"posixpath"}),
    # A prompt: its meaningful terms, without the project's name and path words.
    "lessons_core.recall.prompt_terms": frozenset(),
    # A session start (or compaction): always-on lessons and the topics line.
    "lessons_core.delivery.always": frozenset({"itertools"}),
    # A session whose failure history holds something: the history.
    "lessons_core.session.failure_history": frozenset(),
    # A failed tool call: the capture nudge, which masks secrets.
    "lessons_core.delivery.nudges": frozenset(),
    "lessons_core.authoring.secrets": frozenset({"re", "typing"}),
    # A prompt right after an action: is it a correction? A stop: the capture request.
    "lessons_core.feedback": frozenset(),
    "lessons_core.feedback.corrections": frozenset(),
    "lessons_core.feedback.stop_capture": frozenset(),
    # A command right after one that failed: is it a changed form of it?
    "lessons_core.feedback.fixes": frozenset(),
    # A failed call, or a recurrence due: error classes, the recurrence gate and nudge.
    "lessons_core.feedback.failures": frozenset({"re", "shlex"}),
    "lessons_core.feedback.recurrence": frozenset({"shlex"}),
    # Rule text that is not plain, a glob without a plan, a hook that fails.
    "lessons_core.recall.inert": frozenset({"re", "unicodedata"}),
    "lessons_core.matching.glob_regex": frozenset(
        {"re", "warnings", "functools", "collections.abc"}
    ),
    "lessons_core.delivery.hooklog": frozenset({"contextlib", "pathlib"}),
    # A call a rule a person made binding matched (enforce, forbid): its refusal.
    "lessons_core.delivery.binding": frozenset(),
    "lessons_core.matching.forbid": frozenset(),
    "lessons_core.recall.printable": frozenset(),
    # A suggestion about to be made (a nudge for a failure a lesson could prevent, a stop
    # with evidence): its trigger judged as lessons add judges it, against the project's
    # everyday commands (feedback.proposals).
    "lessons_core.feedback.proposals": frozenset({"collections.abc", "pathlib"}),
    "lessons_core.matching.trigger_checks": frozenset({"dataclasses", "pathlib"}),
    "lessons_core.matching.globs": frozenset({"functools", "re", "typing", "warnings"}),
    "lessons_core.matching.probes": frozenset({"collections.abc", "re2"}),
    "lessons_core.matching.runners": frozenset({"re"}),
    "lessons_core.matching.thresholds": frozenset(),
    # Its commands as records (dataclasses, collections.abc: telemetry.log loads both).
    "lessons_core.project_commands": frozenset(
        {"collections.abc", "dataclasses", "json", "pathlib", "re"}
    ),
    "lessons_core.authoring.repo_files": frozenset({"pathlib", "pathspec", "subprocess"}),
    "lessons_core.review": frozenset(),
    "lessons_core.review.script_commands": frozenset(
        {"ast", "collections.abc", "json", "re", "shlex", "typing"}
    ),
    "lessons_core.telemetry": frozenset(),
    "lessons_core.telemetry.log": frozenset(
        {"collections.abc", "dataclasses", "hashlib", "orjson", "pathlib", "typing"}
    ),
}  # fmt: skip

# Loaded by a hook only when the cached index is stale and it rebuilds it: compiling the
# triggers (pathspec, RE2 and the probes are imported inside the functions that compile),
# assembling the index and writing its file.
REBUILD_PATH = frozenset(
    {"lessons_core.jsonio", "lessons_core.store.files", "lessons_core.store.model",
     "lessons_core.matching.breadth", "lessons_core.matching.regex_literals",
     "lessons_core.matching.specificity", "lessons_core.index.build",
     "lessons_core.index.file_writer"}
)  # fmt: skip
PYPROJECT = Path(lessons_core.__path__[0]).parent / "pyproject.toml"


def _source(module: str) -> Path:
    package = lessons_cli if module.split(".", maxsplit=1)[0] == "lessons_cli" else lessons_core
    path = Path(package.__path__[0]).parent.joinpath(*module.split("."))
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


def test_a_rebuilding_hook_loads_only_hook_and_rebuild_path_modules(project: Layout) -> None:
    """With no cached index, a hook call builds it: it loads the rebuild's modules
    (REBUILD_PATH, all of them here) and nothing else of ours beyond HOOK_PATH."""
    write_lesson(
        project, "app-file", "Keep src/app.py free of side effects.", files=("src/*.py",),
        commands=("git push",), keywords=("alembic",),
    )  # fmt: skip
    data = payload("claude-code", "pre_tool_use_edit", project.root)
    done = subprocess.run(
        [sys.executable, "-c", HOOK_CALL, "claude-code"],
        input=json.dumps(data), capture_output=True, text=True, cwd=project.root,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0
    assert "Keep src/app.py free of side effects." in done.stdout
    loaded = set(done.stderr.split())
    assert loaded - set(HOOK_PATH) == REBUILD_PATH


def _imports_in_functions(path: Path) -> bool:
    """Whether ``path`` has an import statement inside a function."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            inner = ast.walk(node)
            if any(isinstance(child, ast.Import | ast.ImportFrom) for child in inner):
                return True
    return False


def test_only_hook_path_modules_import_inside_functions() -> None:
    """pyproject.toml lets exactly the hook and rebuild path modules that import inside a
    function do so (PLC0415); ruff holds every other file to top-level imports. A module
    joining the hook path gets its line there, one leaving it loses it."""
    ignores = tomllib.loads(PYPROJECT.read_text())["tool"]["ruff"]["lint"]["per-file-ignores"]
    allowed = {path for path, rules in ignores.items() if "PLC0415" in rules}
    root = PYPROJECT.parent
    declared = {
        _source(module).relative_to(root).as_posix() for module in {*HOOK_PATH, *REBUILD_PATH}
    }
    lazy = {path for path in declared if _imports_in_functions(root / path)}
    assert allowed == lazy


def _production_sources() -> dict[str, Path]:
    root = PYPROJECT.parent
    return {
        path.relative_to(root).as_posix(): path
        for package in ("lessons_core", "cli/lessons_cli")
        for path in sorted((root / package).rglob("*.py"))
    }


def test_only_hook_path_modules_spell_type_checking_themselves() -> None:
    """``TYPE_CHECKING = False`` (typing costs a hook ~8 ms, lessons_core.records) is the
    hook path's convention only: every other module imports TYPE_CHECKING from typing."""
    root = PYPROJECT.parent
    declared = {
        _source(module).relative_to(root).as_posix() for module in {*HOOK_PATH, *REBUILD_PATH}
    }
    spelled = {
        name
        for name, path in _production_sources().items()
        if "\nTYPE_CHECKING = False" in path.read_text()
    }
    assert spelled - declared == set()


def _guarded(tree: ast.Module) -> set[int]:
    """Line numbers of the imports inside a ``try`` whose handlers catch ImportError."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            "ImportError" in ast.dump(handler.type) for handler in node.handlers if handler.type
        ):
            lines |= {
                inner.lineno
                for statement in node.body
                for inner in ast.walk(statement)
                if isinstance(inner, ast.Import | ast.ImportFrom)
            }
    return lines


def test_every_private_module_import_has_a_fallback() -> None:
    """Modules such as ``_collections_abc``, ``_json``, ``_sha2`` or ``_socket`` are
    CPython's own and may be missing or renamed elsewhere (``_sha256`` became ``_sha2`` in
    3.12): each import of one sits in a ``try`` that catches ImportError."""
    unguarded = []
    for name, path in _production_sources().items():
        tree = ast.parse(path.read_text())
        guarded = _guarded(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            else:
                continue
            private = [n for n in names if n.startswith("_") and n != "__future__"]
            if private and node.lineno not in guarded:
                unguarded.append(f"{name}:{node.lineno} {private}")
    assert unguarded == []


_HARNESS_OF = {
    "claude_code": "claude-code", "codex": "codex", "gemini": "gemini",
    "cursor": "cursor", "copilot": "copilot", "qwen": "qwen", "pi": "pi",
    "cline": "cline", "opencode": "opencode", "kilo": "kilo",
}  # fmt: skip
