"""Whether a command an import found in a rule's words is too broad to be its trigger.

A runner prefix (``uv run``, ``npx``, ``pnpm run``, ``poetry run``) or a bare
multi-purpose program (``uv``, ``gh``, ``just``, ``git``) starts most of a project's
commands: a lesson on it would fire, or refuse, on the agent's every test run. Import
never writes one. ``import_command_problem`` is the one place the importers ask; it asks
the shared judgement (``trigger_checks.command_problem``) first, and this list covers the
runners that judgement does not refuse on its own. An import that carries patterns as
they were written (agentsmesh) asks ``runner_or_program`` alone.
"""

from __future__ import annotations

from lessons_core.matching.trigger_checks import command_problem

# Programs whose first word says little: what follows them is the command.
MULTI_PURPOSE = frozenset(
    """uv uvx pip pip3 pipx poetry pdm hatch rye conda mamba pixi tox nox npm npx pnpm yarn
    bun bunx deno node just make task mise git gh glab docker docker-compose podman
    kubectl helm cargo go dotnet gradle gradlew mvn mvnw bundle bundler composer swift
    flutter dart mix sbt bazel nx turbo lerna python python3 sh bash""".split()
)
# Words that run whatever follows them.
RUNNER_PREFIXES = frozenset(
    tuple(prefix.split())
    for prefix in (
        "uv run",
        "uv tool run",
        "poetry run",
        "pdm run",
        "hatch run",
        "pipenv run",
        "rye run",
        "pixi run",
        "conda run",
        "npm run",
        "npm exec",
        "pnpm run",
        "pnpm exec",
        "pnpm dlx",
        "yarn run",
        "yarn exec",
        "yarn dlx",
        "bun run",
        "bun x",
        "deno run",
        "deno task",
        "go run",
        "cargo run",
        "dotnet run",
        "docker compose run",
        "docker compose exec",
        "docker run",
        "docker exec",
        "python -m",
        "python3 -m",
        "mise run",
        "mise exec",
        "task run",
        "just run",
    )
)


def import_command_problem(pattern: str) -> str | None:
    """Why the literal command ``pattern`` (as ``literal_pattern`` writes it) is not a
    trigger an import writes, or None."""
    shared = command_problem(pattern)
    return shared.problem if shared is not None else runner_or_program(pattern)


def runner_or_program(pattern: str) -> str | None:
    """Why ``pattern`` is a runner prefix or a bare multi-purpose program, or None."""
    words = tuple(pattern.removeprefix("^").replace("\\", "").split())
    if words in RUNNER_PREFIXES:
        return (
            f"command trigger '{' '.join(words)}' is a runner prefix: it starts most of "
            "the project's commands"
        )
    if len(words) == 1 and words[0].removeprefix("./") in MULTI_PURPOSE:
        return (
            f"command trigger '{words[0]}' is a bare multi-purpose program: the words "
            "after it say what the command does"
        )
    return None
