"""What a tool call does, in the terms delivery decides on: it reads files, changes files,
or runs a shell command (which may read and write files of its own).

Every harness adapter translates its tool names and inputs into one of these three, so
the decision that follows (``deliver.before_action``: context with a read, a refusal of
a change whose rules the model has not had) is the same in every harness. Paths become
repo-relative here; anything outside the repo, or longer than a file system accepts, is
dropped.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lessons_core.delivery.tool_action import ToolAction
from lessons_core.matching.glob_match import MAX_NAME_CHARS, MAX_PATH_CHARS
from lessons_core.store.layout import repo_relative

if TYPE_CHECKING:
    from collections.abc import Iterable

    from lessons_core.matching.shell_command import ShellCommand
    from lessons_core.matching.shell_files import ShellFiles
    from lessons_core.store.layout import Layout

NOTHING = ToolAction()


def could_name_a_file(path: object) -> bool:
    """A "path" longer than any file system accepts names no file, and refusing it keeps
    every matcher's work on a path bounded."""
    return (
        isinstance(path, str)
        and len(path) <= MAX_PATH_CHARS
        and all(len(name) <= MAX_NAME_CHARS for name in path.replace("\\", "/").split("/"))
    )


def in_repo(layout: Layout, cwd: str | None, paths: Iterable[object]) -> tuple[str, ...]:
    """The repo-relative files among ``paths`` (relative ones to ``cwd``), in order, once."""
    base = cwd or os.getcwd()
    found = (
        repo_relative(p, layout.top, base)
        for p in paths
        if isinstance(p, str) and could_name_a_file(p)
    )
    return tuple(dict.fromkeys(f for f in found if f))


# The keys under which the harnesses' edit tools carry the text they write into the file:
# Claude Code's Edit and Gemini CLI's replace, Qwen Code's edit and Cursor's StrReplace
# (new_string), Write and write_file (content; Cursor's Write: contents), NotebookEdit
# (new_source), Copilot CLI's create (file_text) and edit (new_str); MultiEdit's and
# Cursor's MultiEdit ``edits`` hold a list of such objects.
ADDED_KEYS = ("new_string", "content", "contents", "new_source", "file_text", "new_str")


def edit_added(tool_input: object) -> str:
    """The text an edit tool's input adds to its file (``ADDED_KEYS``; each edit of a
    list), one piece a line apart; "" when it names none."""
    if not isinstance(tool_input, dict):
        return ""
    pieces = [tool_input[k] for k in ADDED_KEYS if isinstance(tool_input.get(k), str)]
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        pieces.extend(edit_added(edit) for edit in edits)
    return "\n".join(piece for piece in pieces if piece)


def changing(
    layout: Layout,
    cwd: str | None,
    *paths: object,
    content: object = None,
    added: Iterable[tuple[object, str]] | None = None,
) -> ToolAction:
    """A call that changes (or creates, or deletes) ``paths``; ``content`` is the tool's
    input, which tells a changed retry from a repeated one, and what it adds to the files
    (``edit_added``) unless ``added`` says it per path (a patch's lines)."""
    files = in_repo(layout, cwd, paths)
    if not files:
        return NOTHING
    if added is None:
        text = edit_added(content)
        pairs = tuple((file, text) for file in files) if text else ()
    else:
        pairs = added_in_repo(layout, cwd, added)
    return ToolAction(files=files, content=content, added=pairs)


def added_in_repo(
    layout: Layout, cwd: str | None, added: Iterable[tuple[object, str]]
) -> tuple[tuple[str, str], ...]:
    """``(path, text)`` pairs with each path repo-relative (relative ones to ``cwd``);
    those outside the repo dropped."""
    pairs = ((in_repo(layout, cwd, (path,)), text) for path, text in added if text)
    return tuple((found[0], text) for found, text in pairs if found)


def reading(layout: Layout, cwd: str | None, *paths: object) -> ToolAction:
    """A call that only reads ``paths``: it brings their rules as context, before the
    model's next call and so before it can change them."""
    files = in_repo(layout, cwd, paths)
    return ToolAction(reads=files) if files else NOTHING


def running(layout: Layout, cwd: str | None, command: object) -> ToolAction:
    """A shell command, parsed once (``matching.shell_command``; the action carries the
    parse), with the repo files it reads and writes (``matching.shell_files``): a file it
    writes is changed, as by an edit tool; one it reads (``cat``, ``sed -n``, ``head``,
    ...) is read."""
    if not isinstance(command, str) or not command.strip():
        return NOTHING
    from lessons_core.matching import shell_command  # noqa: PLC0415 (event: shell calls only)

    shell = shell_command.parse(command)
    effects = _effects(shell)
    reads, writes = effects.reads, effects.writes
    read = in_repo(layout, cwd, reads) if reads else ()
    # A folder searched (``rg x src``) is no file read: its rules are not this call's.
    read = tuple(f for f in read if not os.path.isdir(os.path.join(layout.top, f)))
    return ToolAction(
        command=command,
        shell=shell,
        reads=read,
        writes=in_repo(layout, cwd, writes) if writes else (),
        added=added_in_repo(layout, cwd, effects.added) if effects.added else (),
    )


def _effects(command: ShellCommand) -> ShellFiles:
    """The paths ``command`` reads and writes, as written in it, and the literal text it
    writes into them."""
    from lessons_core.matching.shell_files import shell_file_effects  # noqa: PLC0415 (commands only: large tables)

    return shell_file_effects(command)
