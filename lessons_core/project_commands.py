"""A project's everyday commands: what its CI, scripts, task runners, package scripts,
pre-commit hooks and docs run, and the commands the hooks saw where telemetry is on.

Breadth is judged against them (``matching.trigger_checks.command_problem``): in a uv
project nearly every command starts with ``uv run``, in a pnpm one with ``pnpm``, so a
pattern is broad when it fires on a large share of what this project runs, whatever a
fixed list says. The commands are read from the files git tracks, each through the
extractor ``review`` uses for a diff (``review.script_commands``), plus the targets a
person types (``make test``, ``just lint``, ``pnpm build``) and the shell blocks of the
project's markdown. Nothing is run; a file that leaves the repo through a link, a file
over ``MAX_FILE_BYTES`` and anything past ``MAX_COMMANDS`` are left out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from lessons_core.authoring.repo_files import tracked_files
from lessons_core.containment import leaving_part
from lessons_core.fsutil import read_regular
from lessons_core.review import script_commands
from lessons_core.store.config import load_config
from lessons_core.store.layout import Layout
from lessons_core.telemetry.log import ABOUT_COMMAND, read_log

# A file over this size is generated or vendored, not a list of commands a person keeps.
MAX_FILE_BYTES = 512 * 1024
# At most this many files of each kind are read, and this many commands kept.
MAX_FILES = 400
MAX_COMMANDS = 3000
# A command over this length is a script pasted inline, not an everyday command.
MAX_COMMAND_CHARS = 300

# Image builds run at build time, not in the agent's loop.
_SKIPPED = re.compile(r"(?:^|/)(?:Dockerfile|Containerfile)[^/]*$|\.(?:docker|container)file$")
_MARKDOWN = re.compile(r"\.(?:md|markdown|mdx)$", re.I)
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)")
_SHELL_FENCES = frozenset({"sh", "bash", "shell", "console", "zsh", "shell-session"})
_PROMPT = re.compile(r"^\s*(?:\$|>|%|#)\s+")
_MAKE_TARGET = re.compile(r"^([A-Za-z0-9][\w.-]*)\s*:(?!=)")
_JUST_RECIPE = re.compile(r"^@?([A-Za-z0-9][\w-]*)(?:\s+[^:=]*)?:(?!=)")
# A command starts with a program's name (a path to one included), not shell syntax: an
# assignment, a case label, a test bracket or a variable's expansion runs nothing itself.
_PROGRAM = re.compile(r"^(?:[A-Za-z_][\w.+-]*=\S*\s+)*\.{0,2}/?[A-Za-z0-9_][\w.+/-]*(?:\s|$)")
_SHELL_WORDS = frozenset(
    "if then else elif fi for while until do done case esac in function return break "
    "continue exit local export set unset shift source eval exec trap read wait".split()
)
_LOCKS = (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lockb", "bun run"))


def everyday_commands(repo_root: Path) -> list[str]:
    """The commands ``repo_root``'s project runs every day, each once, in file order."""
    files = tracked_files(repo_root)
    found: dict[str, None] = {}
    runner = _script_runner(files)
    for path in _command_files(files):
        text = _read(repo_root, path)
        if text is None:
            continue
        for command in _commands_in(path, text, runner):
            _keep(found, command)
        if len(found) >= MAX_COMMANDS:
            break
    for command in _seen_by_hooks(repo_root):
        _keep(found, command)
    return list(found)[:MAX_COMMANDS]


def _keep(found: dict[str, None], command: str) -> None:
    text = " ".join(command.split("\n", 1)[0].split())  # a here-document's body is data
    if text and len(text) <= MAX_COMMAND_CHARS and _PROGRAM.match(text):
        program = text.split(None, 1)[0]
        if program not in _SHELL_WORDS and "=" not in program:
            found[text] = None


def _command_files(files: list[str]) -> list[str]:
    """The tracked files that hold commands: scripts and task files first, then docs."""
    scripts = [
        path
        for path in files
        if script_commands.extractor(path) is not None and not _SKIPPED.search(path)
    ]
    docs = [path for path in files if _MARKDOWN.search(path)]
    return scripts[:MAX_FILES] + docs[:MAX_FILES]


def _commands_in(path: str, text: str, runner: str) -> list[str]:
    name = path.rsplit("/", 1)[-1]
    if _MARKDOWN.search(path):
        return doc_commands(text)
    commands = [item.command for item in script_commands.commands_of(path, text)]
    if name in ("Makefile", "makefile", "GNUmakefile"):
        commands += [f"make {target}" for target in _targets(text, _MAKE_TARGET)]
    elif name in ("justfile", "Justfile", ".justfile"):
        commands += [f"just {recipe}" for recipe in _targets(text, _JUST_RECIPE)]
    elif name == "package.json":
        commands += [f"{runner} {script}" for script in _package_scripts(text)]
    return commands


def _targets(text: str, pattern: re.Pattern[str]) -> list[str]:
    """The rule names of a Makefile or justfile, as typed after ``make`` or ``just``."""
    found = []
    for line in text.splitlines():
        matched = pattern.match(line)
        if matched and not line.startswith((" ", "\t")):
            found.append(matched.group(1))
    return found


def _package_scripts(text: str) -> list[str]:
    try:
        data = json.loads(text)
    except ValueError:
        return []
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return [name for name in scripts if isinstance(name, str)] if isinstance(scripts, dict) else []


def _script_runner(files: list[str]) -> str:
    """How the project runs a package script: ``pnpm build``, ``yarn build``, ``npm run``."""
    names = {path.rsplit("/", 1)[-1] for path in files}
    return next((runner for lock, runner in _LOCKS if lock in names), "npm run")


def doc_commands(text: str) -> list[str]:
    """The commands of a markdown file's shell code blocks (a console block's prompted
    lines only: the rest is output)."""
    found: list[str] = []
    block: list[str] = []
    fence, console = "", False
    for line in text.splitlines():
        if fence:
            if line.strip().startswith(fence):
                found += _block_commands(block, console)
                fence, block = "", []
            else:
                block.append(line)
            continue
        opened = _FENCE.match(line)
        if opened and opened.group(2).lower() in _SHELL_FENCES:
            fence, console = opened.group(1), opened.group(2).lower() != "sh"
    return found


def _block_commands(lines: list[str], console: bool) -> list[str]:
    prompted = [_PROMPT.sub("", line) for line in lines if _PROMPT.match(line)]
    if console and prompted:
        lines = prompted
    elif prompted:
        lines = [_PROMPT.sub("", line) for line in lines]
    return [item.command for item in script_commands.shell_commands(lines, 1)]


def _read(root: Path, path: str) -> str | None:
    if leaving_part(path, root) is not None:
        return None
    try:
        return read_regular(root / path, MAX_FILE_BYTES).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None


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
