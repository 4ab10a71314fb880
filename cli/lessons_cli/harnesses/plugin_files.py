"""The harnesses wired by a file of ours rather than entries in a shared settings file:
Pi's extension, Cline's plugin and the plugin of OpenCode and Kilo Code CLI. Writing
(``lessons init``), removing (``--remove-hooks``) and checking (``lessons doctor``) that
file, one way for all of them; ``PLUGIN_FILES`` says what differs.

The file is lessons' alone, so there is nothing to merge: its first line marks it as ours
(every version of it), ``init`` replaces a file of ours and refuses to overwrite anyone
else's, and ``--remove-hooks`` deletes it only when it is ours, leaving the folder's other
files (a project's own plugins) as they were. Its text is fixed by the version of lessons
(and, for Cline, the hook command), so ``doctor`` tells this version's file from an older
one by comparing bytes.

OpenCode and Kilo install their plugin package (``@opencode-ai/plugin``,
``@kilocode/plugin``) into each folder they load plugins from. The plugin lessons writes
needs no package, and ``init`` writes no stand-in for one: a stand-in would stop the client
installing the package other plugins of the project may import.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from lessons_cli.checks import FAIL, OK, WARN, Check
from lessons_cli.harnesses import cline, kilo, opencode, pi
from lessons_cli.harnesses.opencode_plugin import plugin_text
from lessons_cli.harnesses.spec import Wiring
from lessons_core.errors import LessonsError
from lessons_core.fsutil import atomic_write, write_target
from lessons_core.store import launcher

_HERE = Path(__file__).parent


class PluginFile(NamedTuple):
    """One harness's file. ``mark``: how every version of it opens. ``text``: the file
    this version writes, given the hook command ``init`` would put in settings (only
    Cline's plugin holds it). ``command_in``: reads that command back out of a written
    file, for a plugin that holds one; the others run ``.lessons/run`` beside them."""

    wiring: Wiring
    mark: bytes
    text: Callable[[str], bytes]
    command_in: Callable[[bytes], str | None] | None = None


def _pi_text(_command: str) -> bytes:
    return (_HERE / "pi_extension.ts").read_bytes()


def _cline_text(command: str) -> bytes:
    matchers = {event.name: event.matcher or "" for event in cline.WIRING.events}
    fills = {
        "__COMMAND__": json.dumps(command),
        "__REFUSABLE__": json.dumps(matchers["PreToolUse"].split("|")),
        "__HEARD__": json.dumps(matchers["PostToolUse"].split("|")),
    }
    text = (_HERE / "cline_plugin.js").read_text(encoding="utf-8")
    for slot, value in fills.items():
        text = text.replace(slot, value)
    return text.encode()


def _cline_command(data: bytes) -> str | None:
    found = re.search(r"^const COMMAND = (.*);$", data.decode(errors="replace"), re.MULTILINE)
    try:
        value = json.loads(found.group(1)) if found else None
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, str) else None


def _opencode_text(harness: str) -> Callable[[str], bytes]:
    tools = (opencode.CHANGE_TOOLS, opencode.TOOLS, opencode.SESSION_EVENTS)
    return lambda _command: plugin_text(harness, *tools)


PLUGIN_FILES: dict[str, PluginFile] = {
    "pi": PluginFile(pi.WIRING, _pi_text("").split(b"\n", 1)[0] + b"\n", _pi_text),
    "cline": PluginFile(
        cline.WIRING,
        b"// lessons for Cline: written by `lessons init --cline`",
        _cline_text,
        _cline_command,
    ),
    "opencode": PluginFile(opencode.WIRING, b"// lessons: ", _opencode_text("opencode")),
    "kilo": PluginFile(kilo.WIRING, b"// lessons: ", _opencode_text("kilo")),
}


def _current(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise LessonsError(f"{path}: cannot be read ({err.strerror}); fix it and re-run") from None


def _ours(plugin: PluginFile, path: Path) -> bytes | None:
    """The file at ``path``, when it is there and ours."""
    found = _current(path)
    return found if found is not None and found.startswith(plugin.mark) else None


def install(root: Path, plugin: PluginFile, command: str) -> bool:
    """Write the file; True if it changed. A file of that name lessons did not write is
    refused, by name."""
    path = write_target(root / plugin.wiring.settings, root)
    found, text = _current(path), plugin.text(command)
    if found == text:
        return False
    if found is not None and not found.startswith(plugin.mark):
        raise LessonsError(
            f"{path}: a file lessons did not write; rename or move it, then re-run "
            f"'lessons init --{plugin.wiring.harness}'"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text)
    return True


def uninstall(root: Path, plugin: PluginFile) -> bool:
    """Delete the file if it is ours; True if it was."""
    path = write_target(root / plugin.wiring.settings, root)
    if _ours(plugin, path) is None:
        return False
    path.unlink()
    return True


def installed(root: Path, plugin: PluginFile) -> bool:
    return _ours(plugin, root / plugin.wiring.settings) is not None


def checks(root: Path, plugin: PluginFile) -> list[Check]:
    """What ``lessons doctor`` says of the file: nothing when it is not ours; else whether
    the launcher it runs is there and it is the file this version writes."""
    found = _ours(plugin, root / plugin.wiring.settings)
    if found is None:
        return []
    name, file = plugin.wiring.harness, plugin.wiring.settings
    flag = f"lessons init --{name}"
    if plugin.command_in is None:
        command: str | None = ""
        target: Path | None = root / ".lessons" / launcher.NAME
    else:
        command = plugin.command_in(found)
        target = launcher.launcher_target(command, root, None) if command else None
    if target is None or not target.is_file():
        detail = f"{file} runs {target or 'no launcher'}, which is not there: lessons says nothing"
        return [Check(name, FAIL, detail, flag)]
    if command is None or found != plugin.text(command):
        detail = f"{file} was written by another version of lessons"
        return [Check(name, WARN, detail, f"{flag}  (rewrites it; commit the change)")]
    events = len(plugin.wiring.events)
    return [Check(name, OK, f"{file}: {events} events through .lessons/run")]
