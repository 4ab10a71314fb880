"""Probing command triggers against commands an agent runs all day.

A pattern that fires on most probes would gate nearly every call. Validate probes every
pattern of the graph at once through an RE2 set (one scan of each probe for all patterns),
which is what keeps it fast on a thousand lessons.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import re2

from lessons_core.matching.commands import bounded_regex, command_parts, compile_command

# Ordinary commands an agent runs all day. A command trigger that fires on most of them
# would gate every call, so capture refuses it and validate reports it.
PROBE_COMMANDS: tuple[str, ...] = (
    "ls",
    "ls -la",
    "cd src",
    "pwd",
    "cat README.md",
    "echo hello",
    "mkdir -p build",
    "cp a.txt b.txt",
    "mv old.txt new.txt",
    "rm notes.txt",
    "touch file.txt",
    "git status",
    "git diff",
    "git log --oneline",
    "git add -A",
    "git commit -m 'wip'",
    "git push origin main",
    "git pull",
    "git checkout -b feature",
    "git rebase main",
    "npm install",
    "npm test",
    "npm run build",
    "pnpm install",
    "pnpm test",
    "yarn build",
    "npx tsc --noEmit",
    "node index.js",
    "python3 script.py",
    "python -m pytest",
    "pytest -q",
    "pip install -r requirements.txt",
    "uv sync",
    "ruff check .",
    "mypy .",
    "make",
    "make test",
    "cargo build",
    "cargo test",
    "go test ./...",
    "go build ./...",
    "docker build -t app .",
    "docker compose up",
    "curl -s http://localhost:8080/health",
    "grep -rn TODO src",
    "rg foo",
    "find . -name '*.py'",
    "sed -n '1,20p' main.py",
    "head -n 50 log.txt",
    "tail -f app.log",
    "wc -l file.txt",
    "chmod +x run.sh",
    "bash scripts/setup.sh",
    "./gradlew build",
    "mvn package",
    "jq . data.json",
    "tar -xzf archive.tar.gz",
    "ssh host uptime",
    "kubectl get pods",
    "terraform plan",
    # The everyday runners of the major ecosystems, so a pattern naming only one of them
    # (``uv run``, ``npx``, ``gh``) is seen to fire on their routine.
    "uv run pytest",
    "uv run ruff check .",
    "uv add httpx",
    "uv lock",
    "poetry install",
    "poetry run pytest",
    "pdm run lint",
    "hatch run test",
    "npm ci",
    "npm run lint",
    "pnpm run build",
    "pnpm exec vitest run",
    "pnpm lint",
    "yarn install",
    "yarn test",
    "bun install",
    "bun test",
    "npx prettier --check .",
    "just test",
    "just lint",
    "task build",
    "make lint",
    "go vet ./...",
    "go mod tidy",
    "cargo clippy",
    "cargo fmt --check",
    "gradle test",
    "mvn test",
    "dotnet build",
    "dotnet test",
    "gh pr create --fill",
    "gh pr view 12",
    "gh run watch",
    "docker compose run app pytest",
    "docker compose logs -f",
    "pre-commit run --all-files",
)

# Each probe split once into the parts a command pattern is matched against.
_PROBE_PARTS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (command, tuple(command_parts(command))) for command in PROBE_COMMANDS
)


def _program_families() -> dict[str, tuple[str, ...]]:
    """Each program with two or more everyday sub-commands among the probes, and its probes.

    ``git status`` and ``git diff`` make ``git`` a family; ``ls -la`` (an option) and
    ``make test`` (a lone target) do not.
    """
    probes: dict[str, list[str]] = {}
    subcommands: dict[str, set[str]] = {}
    for command in PROBE_COMMANDS:
        words = command.split()
        probes.setdefault(words[0], []).append(command)
        if len(words) > 1 and not words[1].startswith("-"):
            subcommands.setdefault(words[0], set()).add(words[1])
    return {name: tuple(probes[name]) for name, subs in subcommands.items() if len(subs) >= 2}


_FAMILIES = _program_families()


def swept_program(hits: Iterable[str]) -> tuple[str, list[str], int] | None:
    """The program whose everyday sub-commands a pattern's probe ``hits`` mostly cover.

    Returned as (program, its probes hit, how many probes it has), or None. A pattern
    firing on most of ``git status``, ``git diff``, ``git log`` ... is about git as a
    whole, not one command, however small a share of all the probes that is: a bare
    ``git`` would gate every call that touches the repository.
    """
    fired = set(hits)
    for program, probes in _FAMILIES.items():
        hit = [command for command in probes if command in fired]
        if len(hit) * 2 > len(probes):
            return program, hit, len(probes)
    return None


def probe_hits(matches: Callable[[str], bool]) -> list[str]:
    """The probe commands a matcher fires on."""
    return [command for command in PROBE_COMMANDS if matches(command)]


def probe_hits_many(
    patterns: Iterable[str], commands: Sequence[str] | None = None
) -> dict[str, list[str]]:
    """For each pattern (each must compile), the probe commands (or ``commands``: a
    project's own) it fires on, via one RE2 set."""
    parts_of = (
        _PROBE_PARTS
        if commands is None
        else tuple((command, tuple(command_parts(command))) for command in commands)
    )
    unique = list(dict.fromkeys(patterns))
    hits: dict[str, list[str]] = {pattern: [] for pattern in unique}
    if not unique:
        return hits
    options = re2.Options()
    options.log_errors = False
    options.max_mem = 64 << 20  # a set of a thousand patterns outgrows RE2's 8 MiB default
    matcher = re2.Set.SearchSet(options)
    try:
        for pattern in unique:
            matcher.Add(bounded_regex(pattern))
        matcher.Compile()
    except re2.error:  # too big for one set: probe pattern by pattern instead
        listed = [command for command, _parts in parts_of]
        return {p: [c for c in listed if compile_command(p).matches(c)] for p in unique}
    for command, parts in parts_of:
        fired: set[int] = set()
        for part in parts:
            fired.update(matcher.Match(part) or ())
        for index in sorted(fired):
            hits[unique[index]].append(command)
    return hits
