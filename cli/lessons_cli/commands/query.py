"""``lessons query``: which rules apply to this file, command or prompt, right now."""

from __future__ import annotations

from pathlib import Path

import click

from lessons_cli.output import echo_json
from lessons_core.delivery.deliver import allowance, session_key
from lessons_core.delivery.session_recall import recall_once
from lessons_core.index.cache import load_index
from lessons_core.recall.every import every_match
from lessons_core.recall.explain import explain as explain_request
from lessons_core.recall.explain_text import render_text
from lessons_core.recall.prompt_files import named_files
from lessons_core.recall.prompt_terms import project_names
from lessons_core.recall.rank import recall
from lessons_core.recall.render import render_block
from lessons_core.recall.types import Allowance, RecallRequest
from lessons_core.session import state as sessions
from lessons_core.store.config import read_config
from lessons_core.store.layout import layout_for_files


@click.command("query")
@click.option(
    "--file",
    "files",
    multiple=True,
    metavar="PATH",
    help="File about to be edited: relative to here or absolute (repeatable).",
)
@click.option("--cmd", "command", metavar="COMMAND", help="Shell command about to run.")
@click.option("--prompt", metavar="TEXT", help="The request in words (matched with BM25).")
@click.option(
    "--session",
    metavar="ID",
    help="Show each rule once per session ID; rules shown before stay quiet.",
)
@click.option(
    "--limit", type=click.IntRange(min=1), metavar="N", help="Show at most N rules in all."
)
@click.option(
    "--json", "as_json", is_flag=True, help='Print {"lessons": [...], "more": N} in rank order.'
)
@click.option(
    "--explain",
    is_flag=True,
    help="List every lesson, whether and why it matched, and its rank key.",
)
@click.option(
    "--all",
    "every",
    is_flag=True,
    help="Every rule that matches, broad ones too, past the caps and the token budget "
    "and whatever a --session was shown (what a hook block's 'N more rules match' line "
    "runs).",
)
def query_command(
    files: tuple[str, ...],
    command: str | None,
    prompt: str | None,
    session: str | None,
    limit: int | None,
    as_json: bool,
    explain: bool,
    every: bool,
) -> None:
    """Print the rules that apply to a file, a command and/or a prompt.

    The output is exactly the block an agent is shown: one rule a line, each labelled with
    why it appeared, most specific first; nothing at all when no rule applies. The nearest
    .lessons/ above the files is used (monorepos), else the one above this directory.

    \b
    Example:
      lessons query --file src/api/client.ts
      lessons query --cmd 'cd web && pnpm test:e2e' --session "$SESSION_ID"
      lessons query --prompt 'add a migration for the orders table' --json
      lessons query --file ./src/db/models.py --explain
      lessons query --cmd 'pnpm test' --all
    """
    if not (files or command or prompt):
        raise click.UsageError("give at least one of --file, --cmd or --prompt")
    layout, relative = layout_for_files(files, Path.cwd())
    named = named_files(layout, prompt) if prompt else ()
    project = project_names(layout) if prompt else ()
    request = RecallRequest(
        files=relative, command=command, prompt=prompt, named=named, project=project
    )
    config, problems = read_config(layout.config_path)
    for _key, problem, _kind in problems:  # recall runs with the defaults meanwhile
        click.echo(f"warning: {layout.config_path}: {problem}", err=True)
    if explain:
        # Explaining reads the session's state but records nothing.
        left = (
            allowance(sessions.load(layout, session_key(session)), config, limit)
            if session
            else Allowance(limit=limit)
        )
        explanation = explain_request(layout, request, config=config, allowance=left)
        if as_json:
            echo_json(explanation.to_dict())
        else:
            click.echo(render_text(explanation))
        return
    index, broken = load_index(layout)
    for err in broken:
        click.echo(f"warning: skipped {err}", err=True)
    if every:
        found = every_match(layout, request, config, index)
    elif session:
        found = recall_once(
            layout, request, session_key(session), config=config, limit=limit, index=index
        )
    else:
        found = recall(
            layout, request, config=config, allowance=Allowance(limit=limit), index=index
        )
    if as_json:
        echo_json({"lessons": [hit.to_dict() for hit in found.hits], "more": found.more})
        return
    block = render_block(found)
    if block:
        click.echo(block)
