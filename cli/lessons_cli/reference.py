"""The CLI reference in docs/cli.md, generated from the commands' own help.

Run ``python -m lessons_cli.reference > docs/cli.md`` after changing a command; a test
fails while the page and the help disagree.
"""

from __future__ import annotations

import click

from lessons_cli.app import cli

HEADER = (
    "# Command reference\n\n"
    "Generated from `--help` by `python -m lessons_cli.reference > docs/cli.md`; "
    "a test keeps it in step with the code.\n"
)


def command_paths(group: click.Group = cli, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command as its words after ``lessons``, the group itself first."""
    paths = [prefix]
    for name in sorted(group.commands):
        command = group.commands[name]
        if isinstance(command, click.Group):
            paths.extend(command_paths(command, (*prefix, name)))
        else:
            paths.append((*prefix, name))
    return paths


def help_text(path: tuple[str, ...]) -> str:
    """What ``lessons PATH --help`` prints, at a fixed width so the page is stable.

    The root context takes the group's own settings (``-h`` beside ``--help``), as a real
    run does; click caches each command's help option from the first context that asks,
    so a page built without them would depend on what ran before in the process.
    """
    command: click.Command = cli
    settings = {**cli.context_settings, "terminal_width": 100, "max_content_width": 100}
    ctx = click.Context(cli, info_name="lessons", **settings)
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
        ctx = click.Context(
            command, info_name=name, parent=ctx, terminal_width=100, max_content_width=100
        )
    return command.get_help(ctx)


def render() -> str:
    sections = [HEADER]
    for path in command_paths():
        title = " ".join(("lessons", *path))
        sections.append(f"## `{title}`\n\n```text\n{help_text(path)}\n```\n")
    return "\n".join(sections)


if __name__ == "__main__":
    click.echo(render(), nl=False)
