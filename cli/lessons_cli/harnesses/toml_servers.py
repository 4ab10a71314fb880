"""The ``lessons mcp`` server in a TOML file of MCP servers: Codex CLI's
``[mcp_servers.lessons]`` table in a project's ``.codex/config.toml``.

The file is the user's Codex configuration (model, profiles, comments), so it is edited as
text, never re-serialised: our table is appended at the end, replaced where it stands on
a re-run, and cut out on removal, each line of everything else kept as it was. Every edit
is parsed again before it is written and must hold exactly the wanted entry; a file that
does not parse, a server called ``lessons`` of someone else's, or one of ours written in
another form (inline, dotted keys) is left to the user.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lessons_core.errors import LessonsError
from lessons_core.fsutil import atomic_write, write_target

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the test matrix runs 3.11
    import tomli as tomllib

NAME = "lessons"
TABLE = "mcp_servers"
# The header of our table, ``[mcp_servers.lessons]``, spaced or quoted as TOML allows.
_HEADER = re.compile(
    rf'^[ \t]*\[[ \t]*{TABLE}[ \t]*\.[ \t]*(?:{NAME}|"{NAME}"|\'{NAME}\')[ \t]*\][ \t]*(?:#.*)?$'
)
# Any table or array-of-tables header: where our table ends.
_ANY_HEADER = re.compile(r"^[ \t]*\[")
BOM = "\ufeff"


def read(path: Path) -> tuple[str, dict[str, Any]]:
    """The file's text, as its bytes say (line endings and a byte-order mark kept), and
    what it holds (empty for a missing file)."""
    if not path.exists():
        return "", {}
    try:
        text = path.read_bytes().decode("utf-8")
        return text, tomllib.loads(text.removeprefix(BOM))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise LessonsError(
            f"{path}: not valid TOML ({err}); fix it by hand and re-run, "
            "lessons never rewrites a file it cannot read"
        ) from None


def entry_of(data: dict[str, Any]) -> object:
    """The ``lessons`` server entry in a parsed file, or None."""
    servers = data.get(TABLE)
    return servers.get(NAME) if isinstance(servers, dict) else None


def install(
    root: Path, settings_file: str, wanted: dict[str, Any], is_ours: Callable[[object], bool]
) -> bool:
    """Put ``wanted`` as our table in ``settings_file``; True if the file changed.
    ``is_ours`` tells an entry of lessons' from someone else's."""
    path = write_target(root / settings_file, root)
    text, data = read(path)
    present = entry_of(data)
    if present is not None and not is_ours(present):
        raise LessonsError(
            f"{path}: [{TABLE}] already has a server called '{NAME}' that does not run "
            "lessons; rename or remove it, then re-run"
        )
    if present == wanted:
        return False
    newline = "\r\n" if "\r\n" in text else "\n"
    block = _block(wanted, newline)
    lines = text.splitlines(keepends=True)
    span = _span(lines)
    if present is not None and span is None:
        raise _by_hand(path)
    if span is None:
        head = "".join(lines)
        if head.strip(BOM + " \t\r\n") and not head.endswith("\n"):
            head += newline
        new = head + (newline if head.strip(BOM + " \t\r\n") else "") + block
    else:
        start, end = span
        new = "".join(lines[:start]) + block + _after(lines[end:], newline)
    _write_checked(path, new, wanted)
    return True


def uninstall(root: Path, settings_file: str, is_ours: Callable[[object], bool]) -> bool:
    """Remove our table from ``settings_file``; True if the file changed. A file left
    with nothing in it is deleted."""
    path = write_target(root / settings_file, root)
    if not path.exists():
        return False
    text, data = read(path)
    if not is_ours(entry_of(data)):
        return False
    lines = text.splitlines(keepends=True)
    span = _span(lines)
    if span is None:
        raise _by_hand(path)
    start, end = span
    newline = "\r\n" if "\r\n" in text else "\n"
    before = "".join(lines[:start]).rstrip("\r\n")
    after = "".join(lines[end:]).lstrip("\r\n")
    gap = newline * 2 if before.strip(BOM) and after else newline if before.strip(BOM) else ""
    new = before + gap + after
    if not new.strip(BOM + " \t\r\n"):
        path.unlink()
        return True
    _write_checked(path, new, None)
    return True


def _block(entry: dict[str, Any], newline: str) -> str:
    """Our table as TOML text, in the file's line endings; a JSON string is a valid TOML
    basic string."""
    lines = [f"[{TABLE}.{NAME}]"]
    for key, value in entry.items():
        if isinstance(value, list):
            lines.append(f"{key} = [{', '.join(json.dumps(str(v)) for v in value)}]")
        else:
            lines.append(f"{key} = {json.dumps(str(value))}")
    return newline.join(lines) + newline


def _span(lines: list[str]) -> tuple[int, int] | None:
    """The lines of our table, from its header to the next header, or None when no
    header names it. Blank and comment lines at its end are left out: a comment there
    belongs to what follows (ours holds none)."""
    for start, line in enumerate(lines):
        if _HEADER.match(line.rstrip("\r\n")):
            end = start + 1
            while end < len(lines) and not _ANY_HEADER.match(lines[end]):
                end += 1
            while end > start + 1 and _loose(lines[end - 1]):
                end -= 1
            return start, end
    return None


def _loose(line: str) -> bool:
    """A blank line or a comment."""
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _after(rest: list[str], newline: str) -> str:
    """What follows our table, set off by a blank line when something does."""
    tail = "".join(rest)
    return newline + tail.lstrip("\r\n") if tail.strip() else tail


def _write_checked(path: Path, text: str, wanted: dict[str, Any] | None) -> None:
    """Write ``text`` once it parses and holds exactly ``wanted`` as our entry."""
    try:
        data = tomllib.loads(text.removeprefix(BOM))
    except tomllib.TOMLDecodeError:
        data = None
    if data is None or entry_of(data) != wanted:
        doing = "add" if wanted is not None else "remove"
        raise LessonsError(
            f"{path}: lessons cannot {doing} its [{TABLE}.{NAME}] table here without "
            f"changing what the rest of the file means (is [{TABLE}] written inline?); "
            "make the change by hand"
        )
    atomic_write(path, text.encode("utf-8"))


def _by_hand(path: Path) -> LessonsError:
    return LessonsError(
        f"{path}: the '{NAME}' server is written in a form lessons does not edit (not its "
        f"own [{TABLE}.{NAME}] table); change it by hand and re-run"
    )
