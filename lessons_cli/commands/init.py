"""``lessons init``: create .lessons/ at the repo root."""

from __future__ import annotations

import subprocess
from pathlib import Path

import click

from lessons_core.project import init_project


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


@click.command("init")
@click.option(
    "--path",
    "path",
    type=click.Path(file_okay=False, path_type=Path),
    help="Create .lessons/ here instead of at the git repo root.",
)
def init_command(path: Path | None) -> None:
    """Create .lessons/ (config, lessons/, a .gitignore for local state).

    Safe to re-run: it only creates what is missing and never touches existing lessons.

    \b
    Example:
      lessons init
    """
    root = path.resolve() if path else repo_root(Path.cwd())
    layout, created = init_project(root)
    for item in created:
        click.echo(f"created {item.relative_to(root)}")
    if not created:
        click.echo(f"{layout.base} is already set up")
