"""A project's everyday commands: what its CI, scripts, task runners, package scripts,
pre-commit hooks and docs run, and the commands the hooks saw where telemetry is on.

Breadth is judged against them (``matching.trigger_checks.command_problem``): in a uv
project nearly every command starts with ``uv run``, in a pnpm one with ``pnpm``, so a
pattern is broad when it fires on a large share of what this project runs, whatever a
fixed list says. The commands are read from the files git tracks, each through the
extractor ``review`` uses for a diff (``review.script_commands``), plus the targets a
person types (``make test``, ``just lint``, ``pnpm build``) and the shell blocks of the
project's own docs (its instruction files, root README and contributing guide: the
commands of a user guide are its users', not the project's). Nothing is run; a file that
leaves the repo through a link, a file over ``MAX_FILE_BYTES`` and anything past
``MAX_COMMANDS`` are left out. The adoption evaluation reads the same commands, with the
file and line each was first seen at (``project_commands``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lessons_core.authoring.repo_files import tracked_files
from lessons_core.fsutil import read_repo_text
from lessons_core.markdown_fences import closes_fence, opening_fence
from lessons_core.review import script_commands
from lessons_core.review.script_commands import ScriptCommand
from lessons_core.store.config import load_config
from lessons_core.store.layout import Layout
from lessons_core.telemetry.log import ABOUT_COMMAND, read_log

# A file over this size is generated or vendored, not a list of commands a person keeps.
MAX_FILE_BYTES = 512 * 1024
# At most this many files of each kind (scripts, docs) are read, and this many commands kept.
MAX_FILES = 400
MAX_COMMANDS = 3000
# A command over this length is a script pasted inline, not an everyday command.
MAX_COMMAND_CHARS = 300

# Image builds run at build time, not in the agent's loop.
_SKIPPED = re.compile(r"(?:^|/)(?:Dockerfile|Containerfile)[^/]*$|\.(?:docker|container)file$")
_DOC_NAMES = frozenset(
    {"AGENTS.md", "CLAUDE.md", "GEMINI.md", "README.md", "CONTRIBUTING.md", "DEVELOPMENT.md"}
)
_ROOT_ONLY = frozenset({"README.md", "CONTRIBUTING.md"})
_SHELL_LANGUAGES = frozenset(
    {"sh", "bash", "shell", "zsh", "console", "shell-session", "shellsession", "terminal"}
)
# Blocks whose unprompted lines are output, not commands.
_SESSION_LANGUAGES = frozenset({"console", "shell-session", "shellsession", "terminal", ""})
_PROMPT = re.compile(r"^\s*[$%]\s+(\S.*)$")
_MAKE_TARGET = re.compile(r"^([A-Za-z0-9][\w.-]*)\s*:(?!=)")
_JUST_RECIPE = re.compile(r"^@?([A-Za-z0-9][\w-]*)(?:\s+[^:=]*)?:(?!=)")
# A command starts with a program's name (a path to one included), not shell syntax: an
# assignment, a case label, a test bracket or a variable's expansion runs nothing itself.
_PROGRAM = re.compile(r"^(?:[A-Za-z_][\w.+-]*=\S*\s+)*\.{0,2}/?[A-Za-z0-9_][\w.+/-]*(?:\s|$)")
# ``NAME=value`` before a program sets its environment; alone it runs nothing.
_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")
_SHELL_WORDS = frozenset(
    "if then else elif fi for while until do done case esac in function return break "
    "continue exit local export set unset shift source eval exec trap read wait".split()
)
_LOCKS = (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lockb", "bun run"))


@dataclass(frozen=True)
class ProjectCommand:
    """One command the project runs, and where it was first seen (path, 1-based line)."""

    command: str
    source: str
    line: int

    def to_dict(self) -> dict[str, str | int]:
        return {"command": self.command, "source": self.source, "line": self.line}


def everyday_commands(repo_root: Path) -> list[str]:
    """The commands ``repo_root``'s project runs every day, each once, in file order,
    then those the hooks saw."""
    found = {item.command: None for item in project_commands(repo_root)}
    for command in _seen_by_hooks(repo_root):
        cleaned = _cleaned(command)
        if cleaned:
            found[cleaned] = None
    return list(found)[:MAX_COMMANDS]


def project_commands(
    repo_root: Path, files: Sequence[str] | None = None
) -> tuple[ProjectCommand, ...]:
    """The commands of the repo's files (its tracked files unless ``files`` names them),
    each once, where first seen, in file order."""
    listing = tracked_files(repo_root) if files is None else list(files)
    runner = _script_runner(listing)
    found: dict[str, ProjectCommand] = {}
    read = {"script": 0, "doc": 0}
    for path in listing:
        kind = _kind(repo_root, path)
        if kind is None or read[kind] >= MAX_FILES:
            continue
        read[kind] += 1
        text = read_repo_text(repo_root, path, MAX_FILE_BYTES)
        for item in _commands_in(path, text, runner) if text is not None else []:
            command = _cleaned(item.command)
            if command and command not in found:
                found[command] = ProjectCommand(command, path, item.line)
        if len(found) >= MAX_COMMANDS:
            break
    return tuple(found.values())[:MAX_COMMANDS]


def is_doc(path: str) -> bool:
    """A file whose shell blocks count: an instruction file anywhere, a root README or
    contributing guide, Copilot's instructions or a Cursor rule."""
    name = path.rsplit("/", 1)[-1]
    if name in _DOC_NAMES and (name not in _ROOT_ONLY or "/" not in path):
        return True
    return path == ".github/copilot-instructions.md" or (
        "/.cursor/" in f"/{path}" and name.endswith((".mdc", ".md"))
    )


def _kind(root: Path, path: str) -> str | None:
    """``doc``, ``script`` (a file of a kind the extractors read, or an executable file
    without an extension, a script its shebang may reveal), or None: a repo holds too
    many other files to read them all."""
    if is_doc(path):
        return "doc"
    if _SKIPPED.search(path):
        return None
    if script_commands.extractor(path) is not None:
        return "script"
    if script_commands.may_be_script(path):
        try:
            return "script" if os.stat(root / path).st_mode & 0o111 else None
        except OSError:
            return None
    return None


def _cleaned(command: str) -> str | None:
    """``command`` on one line, or None when it is no command a person runs: a
    here-document's body is data, shell syntax runs nothing itself."""
    text = " ".join(command.split("\n", 1)[0].split())
    if not text or len(text) > MAX_COMMAND_CHARS or not _PROGRAM.match(text):
        return None
    program = next((word for word in text.split() if not _ASSIGNMENT.match(word)), None)
    return None if program is None or program in _SHELL_WORDS else text


def _commands_in(path: str, text: str, runner: str) -> list[ScriptCommand]:
    if is_doc(path):
        return doc_commands(text)
    name = path.rsplit("/", 1)[-1]
    commands = script_commands.commands_of(path, text)
    if name in ("Makefile", "makefile", "GNUmakefile"):
        commands += _typed("make", _targets(text, _MAKE_TARGET))
    elif name in ("justfile", "Justfile", ".justfile"):
        commands += _typed("just", _targets(text, _JUST_RECIPE))
    elif name == "package.json":
        commands += _typed(runner, _package_scripts(text))
    return commands


def _typed(program: str, names: list[tuple[int, str]]) -> list[ScriptCommand]:
    """Each target, recipe or script name as a person types it (``make test``)."""
    return [ScriptCommand(line, line, f"{program} {name}") for line, name in names]


def _targets(text: str, pattern: re.Pattern[str]) -> list[tuple[int, str]]:
    """The rule names of a Makefile or justfile, with their lines."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        matched = pattern.match(line)
        if matched and not line.startswith((" ", "\t")):
            found.append((number, matched.group(1)))
    return found


def _package_scripts(text: str) -> list[tuple[int, str]]:
    """The script names of a ``package.json``, each with the line that names it."""
    lines = text.splitlines()
    found = []
    for name in script_commands.package_scripts(text):
        key = json.dumps(name)
        line = next((n for n, row in enumerate(lines, 1) if row.lstrip().startswith(key)), 1)
        found.append((line, name))
    return found


def _script_runner(files: Sequence[str]) -> str:
    """How the project runs a package script: ``pnpm build``, ``yarn build``, ``npm run``."""
    names = {path.rsplit("/", 1)[-1] for path in files}
    return next((runner for lock, runner in _LOCKS if lock in names), "npm run")


def doc_commands(text: str) -> list[ScriptCommand]:
    """The shell commands of a Markdown text: each line of a fenced block in a shell
    language (a ``$`` prompt dropped; in a ``console`` block only prompted lines), and
    every ``$``-prompted line of a block with no language."""
    found: list[ScriptCommand] = []
    lines = text.split("\n")
    at = 0
    while at < len(lines):
        opened = opening_fence(lines[at])
        at += 1
        if opened is None:
            continue
        fence, language = opened[0], opened[1].lower()
        start = at
        while at < len(lines) and not closes_fence(lines[at], fence):
            at += 1
        block = lines[start:at]
        at += 1
        if language in _SHELL_LANGUAGES or not language:
            found.extend(_block_commands(block, start + 1, language))
    return found


def _block_commands(block: list[str], first: int, language: str) -> list[ScriptCommand]:
    prompted = [_PROMPT.match(line) for line in block]
    if any(prompted) or language in _SESSION_LANGUAGES:
        return [
            ScriptCommand(first + n, first + n, match.group(1).strip())
            for n, match in enumerate(prompted)
            if match is not None
        ]
    return script_commands.shell_commands(block, first)


def _seen_by_hooks(root: Path) -> list[str]:
    """The shell commands the hooks logged, where the project keeps telemetry."""
    layout = Layout(root)
    try:
        if not load_config(layout.config_path).telemetry:
            return []
        log = read_log(layout)
    except Exception:  # a damaged store or log: the files still say what the project runs
        return []
    return [record.key for record in log.recalls if record.about == ABOUT_COMMAND]
