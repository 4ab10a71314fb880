"""``lessons init``: create .lessons/ at the repo root and wire agent harnesses to it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import click

from lessons_cli import mcp_sdk
from lessons_cli.harnesses import (
    HARNESSES,
    agent_docs,
    harness,
    servers,
    wiring,
    wirings,
)
from lessons_cli.harnesses.spec import Wiring
from lessons_core.containment import is_within, require_inside
from lessons_core.errors import LessonsError
from lessons_core.fsutil import write_target
from lessons_core.git import top_level
from lessons_core.git_ignored import ignored
from lessons_core.store import launcher
from lessons_core.store.layout import Layout, lessons_command
from lessons_core.store.project import init_project


def store_root(path: Path | None, here: bool, cwd: Path) -> Path:
    """Where ``.lessons/`` goes: ``--path``, ``--here``, or the git top level.

    Never the home folder: a store there would serve every project below it. Outside a
    git work tree only when asked, since recall stops at the git top level and nothing
    else marks where a project ends.
    """
    if path is not None:
        top = top_level(cwd)
        named = Path(os.path.abspath(cwd / path))
        if top is not None and is_within(str(named), str(top)):
            # A folder of the repo that links out of it is not a place in the repo.
            require_inside(named, top, fix="pass the folder it leads to by its own path")
        root = path.resolve()
    elif here:
        root = cwd.resolve()
    else:
        top = top_level(cwd)
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


def hook_command(name: str, root: Path) -> str:
    """The command a harness runs: the committed launcher, found from the project folder.

    The same on every machine (``lessons_core/store/launcher.py``); the launcher finds the
    installed lessons and runs it isolated, so a teammate's clone works as committed.
    """
    spec = harness(name).WIRING
    var = spec.project_dir_var
    return launcher.hook_command(name, var, _store_below(root, var))


def server_command(name: str, root: Path) -> str:
    """The command a harness starts for ``lessons mcp``, through the same launcher."""
    var = harness(name).WIRING.mcp_project_dir_var
    return launcher.server_command(var, _store_below(root, var))


def _store_below(root: Path, project_dir_var: str | None) -> str:
    """The store's folder relative to the git top level, where the harness runs its
    commands when it names no project folder ("" at the top)."""
    if project_dir_var is not None:
        return ""
    top = top_level(root)
    if top is not None and root.is_relative_to(top.resolve()) and root != top.resolve():
        return root.relative_to(top.resolve()).as_posix()
    return ""


F = TypeVar("F", bound=Callable[..., Any])


def harness_flags(command: F) -> F:
    """One flag per registered harness (``--claude-code``, ...), in registry order."""
    for name, spec in reversed(wirings().items()):
        flag = click.option(f"--{name}", is_flag=True, help=f"Add the hooks to {spec.settings}.")
        command = flag(command)
    return command


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
@harness_flags
@click.option(
    "--agents-md",
    is_flag=True,
    help="Add a lessons section to AGENTS.md (harnesses without hooks).",
)
@click.option("--claude-md", is_flag=True, help="Add the same section to CLAUDE.md.")
@click.option(
    "--mcp",
    is_flag=True,
    help="Also register the 'lessons mcp' server for the chosen harnesses that read MCP "
    "servers from a project file (Claude Code: .mcp.json; Codex CLI: .codex/config.toml; "
    "Gemini CLI: .gemini/settings.json; Copilot CLI: .github/mcp.json; Qwen Code: "
    ".qwen/settings.json).",
)
@click.option(
    "--remove-hooks",
    is_flag=True,
    help="Remove every hook entry and section lessons added; lessons themselves stay.",
)
def init_command(
    path: Path | None,
    here: bool,
    agents_md: bool,
    claude_md: bool,
    mcp: bool,
    remove_hooks: bool,
    **harness_flags: bool,
) -> None:
    """Create .lessons/ (config, lessons/, a .gitignore for local state) and wire harnesses.

    Safe to re-run: it only creates what is missing, never touches existing lessons, and
    replaces its own hook entries in place while leaving every other hook alone.

    \b
    Example:
      lessons init --claude-code
      lessons init --claude-code --mcp
      lessons init --codex --gemini --cursor --agents-md
      lessons init --remove-hooks
    """
    if path is not None and here:
        raise click.UsageError("--path and --here both say where .lessons/ goes; pass one")
    root = store_root(path, here, Path.cwd())
    chosen = [name for name in HARNESSES if harness_flags[name.replace("-", "_")]]
    docs = [name for name, flag in (("AGENTS.md", agents_md), ("CLAUDE.md", claude_md)) if flag]
    if mcp and not chosen:
        flags = [f"--{name}" for name, spec in wirings().items() if spec.mcp_settings]
        raise click.UsageError(
            f"--mcp registers the server for a harness: add {', '.join(flags[:-1])} or {flags[-1]}"
        )
    if remove_hooks:
        if chosen or docs or mcp:
            raise click.UsageError("--remove-hooks removes everything; pass it alone")
        _remove(root)
        return
    problem = mcp_sdk.missing() if mcp else None
    if problem is not None:  # a server the client could not start: register none
        raise LessonsError(f"{problem}; then run this again (nothing was written)")
    layout, created = init_project(root)
    for item in created:
        click.echo(f"created {item.relative_to(root)}")
    if not created and not chosen and not docs:
        click.echo(f"{layout.base} is already set up")
    written = [item for item in created if not item.is_dir()]
    for name in chosen:
        spec = harness(name).WIRING
        changed = _install(root, name, spec)
        click.echo(f"{'wired' if changed else 'already wired'} {name}: {spec.settings}")
        written += [root / spec.settings] if changed else []
        if spec.note:
            click.echo(f"note: {spec.note.format(root=root)}", err=True)
        if mcp:
            written += _register_server(root, name, spec)
    for doc in docs:
        changed = agent_docs.add_snippet(root / doc)
        click.echo(f"{'added' if changed else 'already has'} the lessons section: {doc}")
        written += [write_target(root / doc, root)] if changed else []
    _next_steps(root, layout, written)


def _install(root: Path, name: str, spec: Wiring) -> bool:
    """Wire ``name``: entries in its settings file, or a plugin file of its own."""
    return wiring.install(root, spec, hook_command(name, root))


def _emptied_folders(root: Path, files: list[str]) -> list[str]:
    """Delete the folders of ``files`` (``.gemini``, ``.github/hooks`` then ``.github``)
    that removing our part left empty, deepest first; a folder holding anything stays.
    Only real folders inside ``root`` are touched, never one reached through a link."""
    removed: list[str] = []
    folders = {str(Path(f).parent) for f in files} - {"."}
    chains = {
        "/".join(Path(f).parts[:n]) for f in folders for n in range(1, len(Path(f).parts) + 1)
    }
    for folder in sorted(chains, key=lambda name: (-name.count("/"), name)):
        path = root / folder
        if path.is_symlink() or not path.is_dir():
            continue
        try:
            path.rmdir()  # fails unless empty: nothing of anyone's can go
        except OSError:
            continue
        removed.append(folder)
    return removed


def _register_server(root: Path, name: str, spec: Wiring) -> list[Path]:
    """Register the server for ``name``; the file it changed, if any."""
    if spec.mcp_settings is None:
        click.echo(f"note: lessons registers no MCP server for {name} (docs/mcp.md)", err=True)
        return []
    changed = servers.install(root, spec.mcp_settings, server_command(name, root))
    said = "registered" if changed else "already registered"
    click.echo(f"{said} the lessons MCP server for {name}: {spec.mcp_settings}")
    return [root / spec.mcp_settings] if changed else []


def _next_steps(root: Path, layout: Layout, written: list[Path]) -> None:
    """What to run now: commit what this run wrote (teammates' hooks need the launcher
    and the settings), then check that the hooks will really run here. Before it, the two
    other scopes a lesson can have (docs/format.md)."""
    click.echo(
        "scopes: a lesson for you alone, in every repository: lessons add --personal ...; "
        'lessons a team shares across repositories: "packs" in .lessons/config.json'
    )
    click.echo("next:")
    top = top_level(root)
    if written and top is not None:
        _git_add_lines(top, written)
    lessons = "lessons" if shutil.which("lessons") else lessons_command(layout)
    click.echo(f"  {lessons} doctor")


def _git_add_lines(top: Path, written: list[Path]) -> None:
    """The ``git add`` line for ``written``; those the repo's ignore rules cover get their
    own ``git add -f`` line and a note naming the rule, since a plain ``git add`` of an
    ignored file fails and the hooks would never reach a teammate."""
    cwd = Path.cwd()
    names = {os.path.relpath(_resolved(path), top.resolve()): path for path in written}
    skipped = {found.path: found for found in ignored(top, list(names))}
    for found in skipped.values():
        click.echo(f"note: {found.said()}: {found.fix()}", err=True)
    plain = [path for name, path in names.items() if name not in skipped]
    forced = [path for name, path in names.items() if name in skipped]
    for flag, paths in (("", plain), (" -f", forced)):
        if paths:
            quoted = dict.fromkeys(_sh_quoted(os.path.relpath(path, cwd)) for path in paths)
            click.echo(f"  git add{flag} -- {' '.join(quoted)}")


def _resolved(path: Path) -> Path:
    """``path`` with its folder's links resolved (the file itself may be a link to add)."""
    return path.parent.resolve() / path.name


def _sh_quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _remove(root: Path) -> None:
    """Take out every hook entry, server and section of ours. A file that cannot be edited
    is named and left as it is, and the others are still cleaned; the command then fails."""
    touched: list[str] = []  # the files changed or deleted, repo-relative
    failed: list[LessonsError] = []

    def undo(step: Callable[[], bool], said: str, file: str) -> None:
        try:
            done = step()
        except LessonsError as err:
            click.echo(f"error: {err}", err=True)
            failed.append(err)
            return
        if done:
            click.echo(said)
            touched.append(file)

    for spec in wirings().values():
        said = f"removed {spec.harness} hooks: {spec.settings}"
        undo(partial(wiring.uninstall, root, spec), said, spec.settings)
    server_files = {spec.mcp_settings for spec in wirings().values() if spec.mcp_settings}
    for settings_file in sorted(server_files):
        said = f"removed the lessons MCP server: {settings_file}"
        undo(partial(servers.uninstall, root, settings_file), said, settings_file)
    for name in agent_docs.DOC_FILES:
        said = f"removed the lessons section: {name}"
        undo(partial(agent_docs.remove_snippet, root / name), said, name)
    for folder in _emptied_folders(root, touched):
        click.echo(f"removed the empty folder {folder}/")
    removed = bool(touched)
    if failed:
        raise LessonsError(f"{len(failed)} file(s) left as they were; fix them and re-run")
    if not removed:
        click.echo("no hooks or sections of lessons found")
