"""Triggers out of a rule's own words: the files and commands it names.

Instruction files (CLAUDE.md, AGENTS.md, ...) and rule files loaded on every request say
nothing of where a rule applies, but the rule often does: "never edit `uv.lock` by hand",
"run `uv run pytest` before committing". Only unmistakable names count, and each must be
a trigger that ``lessons validate --strict`` passes (a glob matching at most half the
repo's files):

- a file: a word with a ``/``, an inner ``.`` or a glob character that names a file of
  the repo exactly (``src/db/models.py``, ``pyproject.toml``), a folder written as one
  (``src/db/`` becomes ``src/db/**``, and so does a glob of folders: ``packages/*/src``
  is ``packages/*/src/**``), a bare file name found deeper in the tree
  (``conftest.py`` becomes ``**/conftest.py``), or a glob that matches some files of the
  repo without matching most of them (a name pattern matching none at the root is read
  as ``.gitignore`` reads it, at any depth: ``*.pb.go`` is ``**/*.pb.go``);
- a command: a code span (in backticks) that starts with a developer tool of a fixed
  list or an executable file of the repo (never "whatever this machine has installed":
  the same file must give the same lessons on every clone), leading ``VAR=value``
  assignments dropped, taken up to its first option or placeholder (`` `uv run pytest
  -x` `` gives ``uv run pytest``; ``path/to/x.py``, ``<name>``, ``{x}`` and a
  ``::test_name`` suffix are cut; ``python -m`` keeps its module), as a pattern matching
  that text literally, unless it fires on ordinary commands, names only an interpreter,
  or is a runner prefix or bare multi-purpose program (``importers.command_breadth``).

Markdown emphasis is read as such, never as a glob: ``**Never hand-edit a
`*.lock.yml`.**`` names ``*.lock.yml``, not ``.**``.

A file below the root (``pkg/AGENTS.md``) applies to its folder (``instruction_folder``),
and a path it names is read from there first: ``generated/api.py`` there is
``pkg/generated/api.py``, as Claude Code reads an import relative to the file holding it
and Codex scopes an AGENTS.md to the tree below its folder. A path that names nothing
there is read from the repo root (``src/app.py`` written in ``pkg/AGENTS.md`` about the
root's ``src/app.py``); one written ``./x`` or ``../x`` is read from the folder only, and
one that climbs out of the repo names nothing. ``/x`` is an absolute path, no file of
the repo.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from lessons_core.importers.command_breadth import import_command_problem
from lessons_core.importers.markdown_text import clean
from lessons_core.importers.own_programs import own_programs
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.matching.literal_patterns import literal_pattern
from lessons_core.matching.thresholds import BROAD_GLOB_SHARE
from lessons_core.matching.trigger_checks import GLOB_DEAD, glob_problem
from lessons_core.store.model import Triggers

_SPAN = re.compile(r"`([^`\n]+)`")
_EDGES = "\"'()[]{}<>,;:!?`"
_GLOB_CHARS = frozenset("*?[")
_PLAIN_WORD = re.compile(r"[\w][\w:./=@+-]*")
_OPTION = re.compile(r"--?[A-Za-z][\w-]*")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")
# Words that stand for what the reader fills in: path/to/x, <name>, {x}, x..., $VAR.
_PLACEHOLDER = re.compile(r"(^|/)path/to(/|$)|<[^>]*>|\{[^}]*\}|\.\.\.|…|\$")
# A path segment that stands for one the reader picks: <arch>, ..., …
_PATH_PLACEHOLDER = re.compile(r"<[^>]*>|^\.\.\.$|…")
MAX_COMMAND_WORDS = 5
# Tools a project's instructions name, whether or not this machine has them installed.
DEVELOPER_TOOLS = frozenset(
    """git make just npm npx pnpm yarn bun node deno uv uvx pip pip3 pipx poetry pdm hatch
    tox nox pytest python python3 ruff mypy black isort flake8 pylint pyright pre-commit
    cargo rustc go gofmt docker docker-compose podman kubectl helm terraform ansible
    gradle gradlew mvn mvnw dotnet bundle bundler rake rails gem composer php artisan
    alembic django-admin manage.py flask celery jest vitest playwright eslint prettier
    tsc turbo nx lerna bazel cmake ctest meson ninja swift xcodebuild flutter dart mix
    elixir iex sbt psql mysql sqlite3 redis-cli aws gcloud az gh mkdocs sphinx-build rspec
    golangci-lint rustfmt rustup biome mocha vite webpack wrangler supabase prisma protoc
    buf uvicorn gunicorn coverage task mise
    rm rmdir mv cp chmod chown ln mkdir sudo curl wget ssh scp rsync tar sed awk xargs
    grep rg jq yq openssl pkill killall systemctl brew apt apt-get dnf yum""".split()
)
_INTERPRETERS = frozenset({"python", "python3", "node", "ruby", "bash", "sh", "perl"})
# Folders whose instruction file is about the folder above them: Claude Code's
# ``.claude/CLAUDE.md``, Copilot's ``.github/copilot-instructions.md``, and the agents'
# configuration folders a project keeps its one instruction file in (Effect's
# ``.agents/AGENTS.md``, where the root's AGENTS.md links to it).
_CONFIG_FOLDERS = frozenset({".agents", ".claude", ".codex", ".gemini", ".github", ".qwen"})


class Mentions:
    """Finds the triggers a rule's wording names, judged against the repo's files."""

    def __init__(self, root: Path, files: FileIndex) -> None:
        self.root = root
        self.files = files
        self.paths = frozenset(files.paths)
        self._names: dict[str, list[str]] | None = None  # file name -> the files with it
        self._own: frozenset[str] | None = None

    def triggers(self, text: str, folder: str = "", options: bool = False) -> Triggers:
        """The file and command triggers ``text`` names (empty when it names none), the
        text being read in ``folder`` (repo-relative, "" for the root: ``instruction_folder``).
        With ``options`` a command keeps the options written in it (``git push --force``:
        where a rule forbids a command, its options are what it forbids)."""
        found = [
            (span.split()[0], pattern)
            for span in _SPAN.findall(text)
            if (pattern := _command(span, self, folder, options))
        ]
        commands = [pattern for _, pattern in found]
        run = {program for program, _ in found}
        globs = [
            glob
            for word in _words(text)
            if word not in run and (glob := self._file_trigger(word, folder))
        ]  # a script the rule runs is its command trigger, not a file it is about
        return Triggers(files=tuple(dict.fromkeys(globs)), commands=tuple(dict.fromkeys(commands)))

    def _file_trigger(self, word: str, folder: str) -> str | None:
        path = _before_placeholder(word.strip(_EDGES).rstrip("."))
        if not path or path.startswith(("/", "-", "~")) or "://" in path:
            return None
        for base, rest in _readings(path, folder):
            candidate = self._candidate(base, rest)
            if candidate is None:
                continue
            problem = glob_problem(candidate, self.root, self.files, BROAD_GLOB_SHARE)
            if problem is not None and problem.kind == GLOB_DEAD and _folder_glob(candidate):
                # "`packages/*/src`": folders, as a glob; the files below them
                candidate += "/**"
                problem = glob_problem(candidate, self.root, self.files, BROAD_GLOB_SHARE)
            elif problem is not None and problem.kind == GLOB_DEAD and _name_pattern(rest):
                # "`*.pb.go`": a file name pattern, as .gitignore reads one, at any depth
                # ("`Stored*`" is a pattern of type names)
                candidate = f"{base}/**/{rest}" if base else f"**/{rest}"
                problem = glob_problem(candidate, self.root, self.files, BROAD_GLOB_SHARE)
            if problem is None:
                return candidate
            if problem.kind != GLOB_DEAD:
                return None  # it names files there, but no trigger validate passes
        return None

    def _candidate(self, base: str, path: str) -> str | None:
        """The glob ``path`` names read from the folder ``base`` ("" for the root), or
        None when it names nothing there."""
        if not path or path.startswith("/") or ".." in path:
            return None
        has_glob = bool(_GLOB_CHARS & set(path))
        if not (has_glob or "/" in path or "." in path[1:]):
            return None
        full = f"{base}/{path}" if base else path
        if path.endswith("/"):
            # "`packages/*/test/`": folders, as a glob, whose files validate then counts
            named = has_glob or self.files.is_folder(full)
            return full.rstrip("/") + "/**" if named else None
        if has_glob or full in self.paths:
            return full
        if self.files.is_folder(full):
            return full + "/**"
        if "/" not in path and self._has_name(path, base):
            return f"{base}/**/{path}" if base else "**/" + path
        return None

    def _has_name(self, name: str, base: str) -> bool:
        """Whether a file of the repo below ``base`` is called ``name``."""
        if self._names is None:
            self._names = {}
            for path in self.files.paths:
                self._names.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        inside = base + "/"
        return any(not base or path.startswith(inside) for path in self._names.get(name, ()))

    def is_program(self, word: str, folder: str = "") -> bool:
        """``word`` (the first of a code span, read in ``folder``) names a tool, a
        program or a repo file."""
        for base, rest in _readings(word, folder):
            name = f"{base}/{rest}" if base else rest
            if name in self.paths:  # a script of the repo, not a file it is about (uv.lock)
                return os.access(self.root / name, os.X_OK)
        name = word.removeprefix("./")
        return name in DEVELOPER_TOOLS or name in self.own_programs

    @property
    def own_programs(self) -> frozenset[str]:
        """The programs the project builds (``own_programs``), read once."""
        if self._own is None:
            self._own = own_programs(self.root, self.files.paths)
        return self._own


def _name_pattern(glob: str) -> bool:
    """Whether ``glob`` is a pattern of file names: no folder, a wildcard and an
    extension ("*.pb.go", "*_mock.go")."""
    return "/" not in glob and bool(_GLOB_CHARS & set(glob)) and "." in glob.lstrip("*")


def _folder_glob(glob: str) -> bool:
    """Whether ``glob`` has a wildcard and ends in a name with no extension, as a glob of
    folders does ("packages/*/src")."""
    last = glob.rsplit("/", 1)[-1]
    return bool(_GLOB_CHARS & set(glob)) and "/" in glob and "." not in last and "*" not in last


def instruction_folder(name: str) -> str:
    """The repo-relative folder an instruction file (``name``, repo-relative) applies to:
    its own, or the one above an agents' configuration folder (``.claude/``, ``.github/``,
    ``.agents/``)."""
    folder = posixpath.dirname(name)
    if posixpath.basename(folder) in _CONFIG_FOLDERS:
        folder = posixpath.dirname(folder)
    return folder


def _readings(path: str, folder: str) -> list[tuple[str, str]]:
    """The (folder, path from it) ways to read ``path`` written in ``folder``: from the
    folder, then from the root; only from the folder when written ``./`` or ``../``
    (each ``../`` a folder up, none for a path that climbs out of the repo)."""
    if not path.startswith(("./", "../")):
        return [(folder, path), ("", path)] if folder else [("", path)]
    parts = folder.split("/") if folder else []
    while path.startswith(("./", "../")):
        up, path = path.split("/", 1)
        if up == "..":
            if not parts:
                return []  # out of the repo
            parts.pop()
    return [("/".join(parts), path)]


def _before_placeholder(path: str) -> str:
    """``path`` up to the folder before its first placeholder segment:
    ``model/models/<arch>/`` names ``model/models/``, ``src/.../x.ts`` names ``src/``; a
    placeholder in its first segment leaves nothing. Braces stay: ``*.{ts,tsx}`` is a
    glob."""
    parts = path.split("/")
    for index, part in enumerate(parts):
        if _PATH_PLACEHOLDER.search(part):
            return "/".join(parts[:index]) + "/" if index else ""
    return path


def _words(text: str) -> list[str]:
    text = clean(text)  # emphasis markers are no glob characters
    inside = [word for span in _SPAN.findall(text) for word in span.split()]
    return inside + _SPAN.sub(" ", text).split()


def _command(span: str, mentions: Mentions, folder: str, options: bool) -> str | None:
    words = span.split()
    while words and _ASSIGNMENT.fullmatch(words[0]):
        words = words[1:]  # PYTHONWARNINGS=error pytest: the program is pytest
    if not words or not _PLAIN_WORD.fullmatch(words[0].removeprefix("./")):
        return None
    if not mentions.is_program(words[0], folder):
        return None
    kept = [words[0]]
    rest = words[1:]
    if kept[0] in _INTERPRETERS and len(rest) >= 2 and rest[0] == "-m":
        if _PLACEHOLDER.search(rest[1]):
            return None  # python -m {module}: no command until the module is named
        kept += rest[:2]  # python -m pytest: the module is the command
        rest = rest[2:]
    for written in rest:
        word = written.split("::", 1)[0]  # tests/x.py::test_name: the file, not one test
        if len(kept) >= MAX_COMMAND_WORDS or not word or _PLACEHOLDER.search(word):
            break
        if word.startswith("-") and not (options and _OPTION.fullmatch(word)):
            break
        if not word.startswith("-") and not _PLAIN_WORD.fullmatch(word):
            break
        kept.append(word)
    pattern = literal_pattern(" ".join(kept))
    return pattern if import_command_problem(pattern) is None else None
