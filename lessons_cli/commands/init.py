"""``lessons init``: create .lessons/ at the repo root and wire agent harnesses to it."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import click

from lessons_core import agent_docs, wiring
from lessons_core.project import init_project

HARNESS_NOTES = {
    "codex": "Codex runs hooks only with `[features] codex_hooks = true` in its config.toml",
    "gemini": (
        "Gemini CLI runs a project's hooks only in a trusted folder. Trust {root} once: "
        'add "{root}": "TRUST_FOLDER" to ~/.gemini/trustedFolders.json, or answer its '
        "trust prompt in an interactive session (/permissions trust). A headless run "
        "(gemini -p) in an untrusted folder exits with code 55 unless "
        "GEMINI_CLI_TRUST_WORKSPACE=true is set"
    ),
}


def repo_root(start: Path) -> Path:
    """The git top level of ``start``, or ``start`` itself outside git."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=start,
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return start
    return Path(out) if out else start


def hook_command(harness: str) -> str:
    """The command a harness runs: this interpreter, with lessons imported as a module.

    ``sys.executable`` is the interpreter lessons is installed in, whether that is a pipx
    or ``uv tool`` environment or a project venv, so the hook works without the venv
    being activated and whatever PATH the harness runs with; ``-m lessons_cli`` does not
    depend on where the console script was put. Re-run init after moving the environment.

    ``-I`` (isolated): with ``-m`` alone Python puts the working directory, that is the
    repo the agent works in, first on ``sys.path``, and a repo that ships a
    ``lessons_cli/`` folder would have its own code run by the hook on every tool call.
    Isolated mode leaves the working directory and ``PYTHON*`` variables out.
    """
    return f"{shlex.quote(sys.executable)} -I -m lessons_cli hook {harness}"


@click.command("init")
@click.option(
    "--path",
    "path",
    type=click.Path(file_okay=False, path_type=Path),
    help="Create .lessons/ here instead of at the git repo root.",
)
@click.option("--claude-code", is_flag=True, help="Add the hooks to .claude/settings.json.")
@click.option("--codex", is_flag=True, help="Add the hooks to .codex/hooks.json.")
@click.option("--gemini", is_flag=True, help="Add the hooks to .gemini/settings.json.")
@click.option("--cursor", is_flag=True, help="Add the hooks to .cursor/hooks.json.")
@click.option(
    "--agents-md",
    is_flag=True,
    help="Add a lessons section to AGENTS.md (harnesses without hooks).",
)
@click.option("--claude-md", is_flag=True, help="Add the same section to CLAUDE.md.")
@click.option(
    "--remove-hooks",
    is_flag=True,
    help="Remove every hook entry and section lessons added; lessons themselves stay.",
)
def init_command(
    path: Path | None,
    claude_code: bool,
    codex: bool,
    gemini: bool,
    cursor: bool,
    agents_md: bool,
    claude_md: bool,
    remove_hooks: bool,
) -> None:
    """Create .lessons/ (config, lessons/, a .gitignore for local state) and wire harnesses.

    Safe to re-run: it only creates what is missing, never touches existing lessons, and
    replaces its own hook entries in place while leaving every other hook alone.

    \b
    Example:
      lessons init --claude-code
      lessons init --codex --gemini --cursor --agents-md
      lessons init --remove-hooks
    """
    root = path.resolve() if path else repo_root(Path.cwd())
    chosen = [
        name
        for name, flag in (
            ("claude-code", claude_code),
            ("codex", codex),
            ("gemini", gemini),
            ("cursor", cursor),
        )
        if flag
    ]
    docs = [name for name, flag in (("AGENTS.md", agents_md), ("CLAUDE.md", claude_md)) if flag]
    if remove_hooks:
        if chosen or docs:
            raise click.UsageError("--remove-hooks removes everything; pass it alone")
        _remove(root)
        return
    layout, created = init_project(root)
    for item in created:
        click.echo(f"created {item.relative_to(root)}")
    if not created and not chosen and not docs:
        click.echo(f"{layout.base} is already set up")
    for harness in chosen:
        spec = wiring.WIRINGS[harness]
        changed = wiring.install(root, spec, hook_command(harness))
        click.echo(f"{'wired' if changed else 'already wired'} {harness}: {spec.settings}")
        if harness in HARNESS_NOTES:
            click.echo(f"note: {HARNESS_NOTES[harness].format(root=root)}", err=True)
    for name in docs:
        changed = agent_docs.add_snippet(root / name)
        click.echo(f"{'added' if changed else 'already has'} the lessons section: {name}")


def _remove(root: Path) -> None:
    removed = False
    for spec in wiring.WIRINGS.values():
        if wiring.uninstall(root, spec):
            click.echo(f"removed {spec.harness} hooks: {spec.settings}")
            removed = True
    for name in agent_docs.DOC_FILES:
        if agent_docs.remove_snippet(root / name):
            click.echo(f"removed the lessons section: {name}")
            removed = True
    if not removed:
        click.echo("no hooks or sections of lessons found")
