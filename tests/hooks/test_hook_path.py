"""The hook path as a checked boundary: the one list of modules of ours a hook call may
load, and the heavy modules it leaves alone.

Every import on this path is paid on every tool call of every agent
(docs/performance.md). The standard library is imported like anywhere else; what a hook
must not load on an ordinary call is a heavy module (``HEAVY``: click, rank-bm25 and
numpy, pathspec, RE2, detect-secrets, orjson) or the index build. A module that needs one
imports it inside the function that needs it, with ``# noqa: PLC0415`` and the reason.
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

# Third-party modules a hook loads only on the calls that need them.
HEAVY = frozenset({"click", "numpy", "rank_bm25", "pathspec", "re2", "detect_secrets", "orjson"})

# Modules of ours on the hook path that import a heavy module at module level: loaded
# only by the calls that need them (the comments in HOOK_PATH say which).
HEAVY_AT_IMPORT: dict[str, frozenset[str]] = {
    "lessons_core.matching.probes": frozenset({"re2"}),
    "lessons_core.authoring.repo_files": frozenset({"pathspec"}),
    "lessons_core.telemetry.log": frozenset({"orjson"}),
}

# Every module of ours a hook call may load. Modules after the blank line are loaded by
# some calls only (the comment says which).
HOOK_PATH = frozenset({
    # The launcher's entry file (imports site on a miss).
    "lessons_cli.__main__",
    "lessons_cli",
    "lessons_cli.main",
    "lessons_cli.hook_runner",
    "lessons_cli.harnesses",
    "lessons_cli.harnesses.spec",
    "lessons_cli.harnesses.claude_code",
    "lessons_cli.harnesses.claude_protocol",
    "lessons_cli.harnesses.events",
    "lessons_cli.harnesses.codex",
    "lessons_cli.harnesses.codex_exits",
    "lessons_cli.harnesses.copilot",
    "lessons_cli.harnesses.cursor",
    "lessons_cli.harnesses.gemini",
    "lessons_cli.harnesses.qwen",
    "lessons_cli.harnesses.pi",
    "lessons_cli.harnesses.cline",
    "lessons_cli.harnesses.opencode",
    "lessons_cli.harnesses.kilo",
    "lessons_core",
    "lessons_core.store",
    "lessons_core.matching",
    "lessons_core.index",
    "lessons_core.recall",
    "lessons_core.delivery",
    "lessons_core.authoring",  # on a failure: secrets
    "lessons_core.matching.bm25",  # a prompt only: BM25 scores its words
    "lessons_core.store.config",
    "lessons_core.delivery.deliver",
    "lessons_core.delivery.actions",
    "lessons_core.delivery.tool_action",
    "lessons_core.errors",
    "lessons_core.index.file_scan",
    "lessons_core.fsutil",
    "lessons_core.containment",
    "lessons_core.matching.glob_match",
    "lessons_core.index.cache",
    "lessons_core.index.file_format",
    "lessons_core.store.layout",
    "lessons_core.store.sources",  # packs and the personal store
    "lessons_core.recall.scopes",
    "lessons_core.recall.rank",
    "lessons_core.index.entries",  # the index's records (the build is apart)
    "lessons_core.recall.types",
    "lessons_core.recall.render",
    "lessons_core.session",
    "lessons_core.session.state",
    "lessons_core.session.action",
    "lessons_core.matching.words",
    "lessons_core.matching.literal_patterns",  # an action's words as a pattern
    "lessons_core.matching.shell_syntax",  # a shell command's one parse (its records)
    "lessons_core.matching.shell_command",
    "lessons_core.matching.command_plans",  # the index's command plans (their type)
    "lessons_core.session.evidence",

    # A command (not a file) to match: command triggers, pure reads, Codex's patches.
    "lessons_core.matching.commands",
    "lessons_core.matching.re2_patterns",
    "lessons_core.matching.pure_reads",
    "lessons_cli.harnesses.codex_patches",
    "lessons_core.matching.patch_paths",  # Codex's patches, shell patches
    "lessons_core.matching.command_words",
    "lessons_core.matching.shell_files",
    # A prompt that may name a file: git's list of tracked files, run when it changed.
    "lessons_core.recall.prompt_files",
    # A prompt: its meaningful terms, without the project's name and path words.
    "lessons_core.recall.prompt_terms",
    # A session start (or compaction): always-on lessons and the topics line.
    "lessons_core.delivery.always",
    # A session whose failure history holds something: the history.
    "lessons_core.session.failure_history",
    # A failed tool call: the capture nudge, which masks secrets.
    "lessons_core.delivery.nudges",
    "lessons_core.authoring.secrets",
    "lessons_core.authoring.secret_shapes",
    # A prompt right after an action: is it a correction? A stop: the capture request.
    "lessons_core.feedback",
    "lessons_core.feedback.corrections",
    "lessons_core.feedback.stop_capture",
    # A command right after one that failed: is it a changed form of it?
    "lessons_core.feedback.fixes",
    # A failed call, or a recurrence due: error classes, the recurrence gate and nudge.
    "lessons_core.feedback.failures",
    "lessons_core.feedback.recurrence",
    # Rule text that is not plain, a glob without a plan, a hook that fails.
    "lessons_core.recall.inert",
    "lessons_core.matching.glob_regex",
    "lessons_core.delivery.hooklog",
    # A call a rule a person made binding matched (enforce, forbid): its refusal.
    "lessons_core.delivery.binding",
    "lessons_core.matching.forbid",
    "lessons_core.recall.printable",
    # A suggestion about to be made (a nudge for a failure a lesson could prevent, a stop
    # with evidence): its trigger judged as lessons add judges it, against the project's
    # everyday commands (feedback.proposals).
    "lessons_core.feedback.proposals",
    "lessons_core.matching.trigger_checks",
    "lessons_core.matching.globs",
    "lessons_core.matching.probes",
    "lessons_core.matching.runners",
    "lessons_core.matching.thresholds",
    "lessons_core.project_commands",
    "lessons_core.markdown_fences",
    "lessons_core.authoring.repo_files",
    "lessons_core.review",
    "lessons_core.review.script_commands",
    "lessons_core.telemetry",
    "lessons_core.telemetry.log",
})  # fmt: skip

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


@pytest.mark.parametrize("module", sorted(HOOK_PATH))
def test_no_hook_path_module_imports_a_heavy_module_at_module_level(module: str) -> None:
    """A hook-path module imports a heavy module inside the function that needs it, so
    only the calls that use it pay; the few modules that need one throughout are named in
    HEAVY_AT_IMPORT and loaded only by the calls that need them."""
    heavy = {name for name in module_level_imports(module) if name.split(".")[0] in HEAVY}
    assert heavy == HEAVY_AT_IMPORT.get(module, frozenset())


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


# What only a shell command needs: the files it reads and writes, its words, pure
# reads, command triggers. (The parse's records, ``shell_command``, and the index's
# command plans are field types of records every call holds.)
COMMAND_ONLY = frozenset(
    {
        "lessons_core.matching.shell_files",
        "lessons_core.matching.patch_paths",
        "lessons_core.matching.pure_reads",
        "lessons_core.matching.command_words",
        "lessons_core.matching.commands",
        "lessons_core.matching.re2_patterns",
    }
)
# What only a prompt needs: its terms, BM25, the files it names.
PROMPT_ONLY = frozenset(
    {
        "lessons_core.matching.bm25",
        "lessons_core.recall.prompt_terms",
        "lessons_core.recall.prompt_files",
    }
)


def _loaded_by(project: Layout, fixture: str) -> tuple[str, set[str]]:
    """The stdout of a Claude Code hook on ``fixture``, in a fresh interpreter, and the
    modules of ours it loaded."""
    data = payload("claude-code", fixture, project.root)
    done = subprocess.run(
        [sys.executable, "-c", HOOK_CALL, "claude-code"],
        input=json.dumps(data), capture_output=True, text=True, cwd=project.root,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0
    return done.stdout, set(done.stderr.split())


@pytest.mark.parametrize(
    ("fixture", "shown", "unused"),
    [
        ("pre_tool_use_edit", "Keep src/a.py short.", COMMAND_ONLY | PROMPT_ONLY),
        ("pre_tool_use_bash_redirect", "Never write side.txt.", PROMPT_ONLY),
        ("user_prompt_submit", "Mind the scenario.", COMMAND_ONLY),
    ],
)
def test_a_hook_loads_no_module_only_another_event_needs(
    project: Layout, fixture: str, shown: str, unused: frozenset[str]
) -> None:
    """An edit that shows its rule loads none of a command's or a prompt's modules; a
    command none of a prompt's; a prompt none of a command's."""
    write_lesson(project, "a-file", "Keep src/a.py short.", files=("src/*.py",))
    write_lesson(project, "side", "Never write side.txt.", commands=("echo built",))
    write_lesson(project, "scenario", "Mind the scenario.", keywords=("scenario",))
    load_index(project)
    out, loaded = _loaded_by(project, fixture)
    assert shown in out
    assert loaded & unused == set()


def test_a_rebuilding_hook_loads_only_hook_and_rebuild_path_modules(project: Layout) -> None:
    """With no cached index, a hook call builds it: it loads the rebuild's modules
    (REBUILD_PATH, all of them here) and nothing else of ours beyond HOOK_PATH."""
    write_lesson(
        project, "app-file", "Keep src/app.py free of side effects.", files=("src/*.py",),
        commands=("git push",), keywords=("alembic",),
    )  # fmt: skip
    out, loaded = _loaded_by(project, "pre_tool_use_edit")
    assert "Keep src/app.py free of side effects." in out
    assert loaded - set(HOOK_PATH) == REBUILD_PATH


def _production_sources() -> dict[str, Path]:
    root = PYPROJECT.parent
    return {
        path.relative_to(root).as_posix(): path
        for package in ("lessons_core", "cli/lessons_cli")
        for path in sorted((root / package).rglob("*.py"))
    }


def test_no_module_spells_type_checking_itself() -> None:
    """Every module takes ``TYPE_CHECKING`` from ``typing``, like any Python code."""
    spelled = [
        name
        for name, path in _production_sources().items()
        if "\nTYPE_CHECKING = False" in path.read_text()
    ]
    assert spelled == []


def test_imports_stand_at_the_top_or_say_why_not() -> None:
    """No file is excused from ruff's PLC0415 as a whole: an import inside a function is
    marked on its line, with the reason (a heavy module, a cycle) in brackets after it."""
    ignores = tomllib.loads(PYPROJECT.read_text())["tool"]["ruff"]["lint"]["per-file-ignores"]
    assert [path for path, rules in ignores.items() if "PLC0415" in rules] == []
    unexplained = [
        f"{name}:{number}"
        for name, path in _production_sources().items()
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "noqa: PLC0415" in line and "noqa: PLC0415 (" not in line
    ]
    assert unexplained == []


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
