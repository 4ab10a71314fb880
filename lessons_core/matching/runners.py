"""Runners, wrappers and multi-purpose programs: command triggers that name no command.

In a uv project every command starts with ``uv run``, in a pnpm one with ``pnpm``; a
pattern naming only such a prefix (``uv run``, ``npx``, ``pnpm run``, ``poetry run``), a
program that does many unrelated things (``uv``, ``gh``, ``just``, ``make``,
``docker compose``), or a runner with the test runner behind it (``^uv run pytest``,
``npx jest``: every test run of the project) fires on the project's everyday work, not
on the one command a rule is about. ``runner_problem`` says so from the pattern's words,
for the major ecosystems (Python, JavaScript, Go, Rust, JVM, .NET, Ruby, containers,
GitHub), whatever the probe commands hold. A pattern that is not a plain run of words
(an alternation, a class) is left to the probes.
"""

from __future__ import annotations

import re

from lessons_core.matching.command_words import is_interpreter
from lessons_core.matching.literal_patterns import unanchored

# Words in front of the program they run. Longest first where one begins another.
RUNNER_PREFIXES: tuple[tuple[str, ...], ...] = (
    ("uv", "tool", "run"),
    ("uv", "run"),
    ("uvx",),
    ("pipx", "run"),
    ("poetry", "run"),
    ("pdm", "run"),
    ("hatch", "run"),
    ("rye", "run"),
    ("pipenv", "run"),
    ("conda", "run"),
    ("npx",),
    ("pnpx",),
    ("bunx",),
    ("npm", "exec"),
    ("npm", "run"),
    ("pnpm", "exec"),
    ("pnpm", "dlx"),
    ("pnpm", "run"),
    ("yarn", "dlx"),
    ("yarn", "exec"),
    ("yarn", "run"),
    ("bun", "run"),
    ("bun", "x"),
    ("deno", "run"),
    ("deno", "task"),
    ("go", "run"),
    ("cargo", "run"),
    ("dotnet", "run"),
    ("bundle", "exec"),
    ("docker", "compose", "run"),
    ("docker", "compose", "exec"),
    ("docker-compose", "run"),
    ("docker-compose", "exec"),
    ("docker", "run"),
    ("docker", "exec"),
    ("nix", "develop", "-c"),
    ("nix", "run"),
    ("nix-shell", "--run"),
    ("sudo",),
    ("env",),
    ("time",),
    ("nice",),
)
# Programs with many unrelated sub-commands: named alone, they fire on all of them.
MULTI_PURPOSE: frozenset[tuple[str, ...]] = frozenset(
    tuple(name.split("+"))
    for name in """
    uv poetry pdm hatch rye pipenv pip pip3 pipx conda pre-commit
    npm pnpm yarn bun deno corepack nx turbo lerna
    just make gmake task mise
    go cargo rustup gradle gradlew ./gradlew mvn mvnw ./mvnw dotnet
    gh glab git docker docker+compose docker-compose podman kubectl helm terraform
    bundle rake gem composer mix swift xcodebuild bazel bazelisk nix brew apt apt-get
    aws gcloud az
    """.split()
)
# Programs that run a project's tests, and the sub-command that does (``go test``).
TEST_RUNNERS: frozenset[tuple[str, ...]] = frozenset(
    tuple(name.split("+"))
    for name in """
    pytest py.test unittest nose2 tox nox jest vitest mocha ava tap playwright+test
    phpunit rspec test go+test cargo+test npm+test pnpm+test yarn+test bun+test
    deno+test dotnet+test mvn+test gradle+test ./gradlew+test mix+test swift+test
    make+test just+test task+test
    """.split()
)
# What may end a plain pattern (``$``, ``\\b``, white space) or separate its words.
_PATTERN_END = re.compile(r"(?:\\b|\\s[*+?]?|\$|\s)+$")
_GAP = re.compile(r"\\s[*+?]?|\[ \][*+?]?| [*+?]")
_SPECIALS = frozenset("\\.^$*+?()[]{}|")


def pattern_words(pattern: str) -> list[str] | None:
    """The words a plain command pattern stands for (``^uv\\s+run`` is ``uv run``), or
    None when it is more than a run of words (an alternation, a class, a wildcard)."""
    text = _PATTERN_END.sub("", pattern.strip())
    text = text.removeprefix("^").removeprefix("\\b")
    text = _GAP.sub(" ", text)
    plain = unanchored(text)
    if any(char in _SPECIALS for char in _unescaped_specials(text)):
        return None
    words = plain.split()
    return words or None


def _unescaped_specials(text: str) -> str:
    """The characters of ``text`` a regular expression reads as special (not escaped)."""
    out, escaped = [], False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in _SPECIALS and char != ".":  # a dot in a name: ``py.test``, ``./gradlew``
            out.append(char)
    return "".join(out)


def strip_runners(words: list[str]) -> tuple[list[str], list[str]]:
    """(the runner prefixes in front of ``words``, what they run), ``python -m`` included."""
    stripped: list[str] = []
    changed = True
    while changed and words:
        changed = False
        for prefix in RUNNER_PREFIXES:
            if tuple(words[: len(prefix)]) == prefix:
                stripped += words[: len(prefix)]
                words = words[len(prefix) :]
                changed = True
                break
        if not changed and len(words) >= 2 and is_interpreter(words[0]) and words[1] == "-m":
            stripped += words[:2]
            words = words[2:]
            changed = True
    return stripped, words


def runner_problem(pattern: str) -> str | None:
    """Why ``pattern`` names no command of its own (completing "command trigger 'x' ..."),
    or None: a runner prefix alone, a bare multi-purpose program, or a runner with only
    the test runner behind it."""
    words = pattern_words(pattern)
    if words is None:
        return None
    runner, rest = strip_runners(words)
    shown = " ".join(runner)
    if runner and not rest:
        return (
            f"is only a runner prefix ('{shown}'), so it fires on everything the project "
            "runs through it"
        )
    program = tuple(rest)
    if program in MULTI_PURPOSE:
        name = " ".join(program)
        return f"is a bare multi-purpose program ('{name}'), so it fires on every use of {name}"
    if runner and program in TEST_RUNNERS:
        return (
            f"names only a runner and the test runner ('{' '.join(words)}'), so it fires on "
            "every test run"
        )
    return None
