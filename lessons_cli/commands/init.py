"""``lessons init``: create .lessons/ at the repo root and wire agent harnesses to it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import click

from lessons_core import agent_docs, launcher, wiring
from lessons_core.errors import LessonsError
from lessons_core.project import init_project

# Codex (0.171.0, tests/e2e/test_codex.py) has hooks on by default, but skips a repo's
# .codex/hooks.json in an untrusted folder and each hook until it is trusted, silently.
HARNESS_NOTES = {
    "codex": (
        "Codex runs these hooks only once you trust the folder and the hooks: start `codex` "
        'here, choose "Trust and continue", then "Trust all and continue" when it says '
        "hooks need review (or trust them under /hooks). Trust them again whenever "
        "`lessons init` changes them. No feature flag is needed: `[features] hooks` is on "
        "by default (`codex_hooks` is its deprecated name)."
    ),
    # Gemini CLI (0.61.0, tests/e2e/test_gemini_cli.py) reads .gemini/settings.json only
    # in a trusted folder; headless, an untrusted folder is an exit, not a silent skip.
    "gemini": (
        "Gemini CLI runs a project's hooks only in a trusted folder. Trust {root} once: "
        'add "{root}": "TRUST_FOLDER" to ~/.gemini/trustedFolders.json, or answer its '
        "trust prompt in an interactive session (/permissions trust). A headless run "
        "(gemini -p) in an untrusted folder exits with code 55 unless "
        "GEMINI_CLI_TRUST_WORKSPACE=true is set"
    ),
    # Copilot CLI (1.0.102, tests/e2e/test_copilot.py) skips a repo's hooks silently unless
    # the folder is trusted.
    "copilot": (
        "Copilot CLI runs a repo's hooks only in a folder it trusts: start `copilot` here "
        'and answer "Yes, and remember this folder for future sessions" (a single '
        "`copilot -p` run can pass --trust-folder instead)"
    ),
}


def git_top(start: Path) -> Path | None:
    """The top of the git work tree holding ``start``, or None outside git."""
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
        return None
    return Path(out) if out else None


def store_root(path: Path | None, here: bool, cwd: Path) -> Path:
    """Where ``.lessons/`` goes: ``--path``, ``--here``, or the git top level.

    Never the home folder: a store there would serve every project below it. Outside a
    git work tree only when asked, since recall stops at the git top level and nothing
    else marks where a project ends.
    """
    if path is not None:
        root = path.resolve()
    elif here:
        root = cwd.resolve()
    else:
        top = git_top(cwd)
        if top is None:
            raise LessonsError(
                f"{cwd} is not inside a git work tree: run 'lessons init' in your project's "
                "repository (or 'git init' first), or pass --here to create .lessons/ in "
                "this folder anyway"
            )
        root = top.resolve()
    home = Path(os.environ.get("HOME") or "~").expanduser()
    if home.is_dir() and root == home.resolve():
        raise LessonsError(
            f"refusing to create .lessons/ in the home folder ({root}): every project under "
            "it would use those lessons; run 'lessons init' inside a project's repository"
        )
    return root


def hook_command(harness: str, root: Path) -> str:
    """The command a harness runs: the committed launcher, found from the project folder.

    The same on every machine (``lessons_core/launcher.py``); the launcher finds the
    installed lessons and runs it isolated, so a teammate's clone works as committed.
    """
    spec = wiring.WIRINGS[harness]
    store = ""
    if spec.project_dir_var is None:
        top = git_top(root)
        if top is not None and root.is_relative_to(top.resolve()) and root != top.resolve():
            store = root.relative_to(top.resolve()).as_posix()
    return launcher.hook_command(harness, spec.project_dir_var, store)


@click.command("init")
@click.option(
    "--path",
    "path",
    type=click.Path(file_okay=False, path_type=Path),
    help="Create .lessons/ here instead of at the git repo root.",
)
@click.option(
    "--here",
    is_flag=True,
    help="Create .lessons/ in the current folder, even outside a git work tree.",
)
@click.option("--claude-code", is_flag=True, help="Add the hooks to .claude/settings.json.")
@click.option("--codex", is_flag=True, help="Add the hooks to .codex/hooks.json.")
@click.option("--gemini", is_flag=True, help="Add the hooks to .gemini/settings.json.")
@click.option("--cursor", is_flag=True, help="Add the hooks to .cursor/hooks.json.")
@click.option("--copilot", is_flag=True, help="Add the hooks to .github/hooks/lessons.json.")
@click.option("--qwen", is_flag=True, help="Add the hooks to .qwen/settings.json.")
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
    here: bool,
    claude_code: bool,
    codex: bool,
    gemini: bool,
    cursor: bool,
    copilot: bool,
    qwen: bool,
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
    if path is not None and here:
        raise click.UsageError("--path and --here both say where .lessons/ goes; pass one")
    root = store_root(path, here, Path.cwd())
    chosen = [
        name
        for name, flag in (
            ("claude-code", claude_code),
            ("codex", codex),
            ("gemini", gemini),
            ("cursor", cursor),
            ("copilot", copilot),
            ("qwen", qwen),
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
        changed = wiring.install(root, spec, hook_command(harness, root))
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
