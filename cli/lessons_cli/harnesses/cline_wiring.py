"""Writing, removing and checking ``.cline/plugins/lessons.js``, the plugin through which
Cline runs ``lessons hook cline`` (the hook itself is ``lessons_cli.harnesses.cline``).

Cline wires hooks with files of their own, not entries in a shared settings file: the
plugin is ours whole, recognised by its first line, and any other plugin in the folder is
left alone. The text is ``cline_plugin.js`` beside this module with the hook command and
the tool names of ``cline.WIRING`` filled in, so ``lessons doctor`` can tell a plugin of
this version from an older one by comparing bytes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from lessons_cli.checks import FAIL, OK, WARN, Check
from lessons_cli.harnesses import cline
from lessons_core.errors import LessonsError
from lessons_core.fsutil import atomic_write, write_target
from lessons_core.store import launcher
from lessons_core.store.layout import Layout

TEMPLATE = Path(__file__).with_name("cline_plugin.js")
MARK = b"// lessons for Cline: written by `lessons init --cline`"
FLAG = "lessons init --cline"
_COMMAND = re.compile(r"^const COMMAND = (.*);$", re.MULTILINE)


def plugin_text(command: str) -> bytes:
    """The plugin that runs ``command`` (``lessons_core.store.launcher.hook_command``)."""
    matchers = {event.name: event.matcher or "" for event in cline.WIRING.events}
    fills = {
        "__COMMAND__": json.dumps(command),
        "__REFUSABLE__": json.dumps(matchers["PreToolUse"].split("|")),
        "__HEARD__": json.dumps(matchers["PostToolUse"].split("|")),
    }
    text = TEMPLATE.read_text(encoding="utf-8")
    for slot, value in fills.items():
        text = text.replace(slot, value)
    return text.encode()


def is_ours(path: Path) -> bool:
    return path.is_file() and path.read_bytes().startswith(MARK)


def install(root: Path, command: str) -> bool:
    """Write the plugin; True if it changed. A ``lessons.js`` of someone else's is kept
    and named."""
    path = write_target(root / cline.PLUGIN, root)
    text = plugin_text(command)
    if path.exists() and not is_ours(path):
        raise LessonsError(
            f"{path} is not a plugin lessons wrote; rename it and run '{FLAG}' again"
        )
    if path.exists() and path.read_bytes() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text)
    return True


def uninstall(root: Path) -> bool:
    """Delete the plugin if it is ours; True if it was."""
    path = write_target(root / cline.PLUGIN, root)
    if not is_ours(path):
        return False
    path.unlink()
    return True


def checks(layout: Layout) -> list[Check]:
    """The plugin runs a launcher that is there, and is the one this version writes."""
    path = layout.root / cline.PLUGIN
    if not is_ours(path):
        return []
    text = path.read_bytes()
    found = _COMMAND.search(text.decode(errors="replace"))
    command = _command(found.group(1)) if found else None
    target = launcher.launcher_target(command, layout.root, None) if command else None
    if target is None or not target.is_file():
        opened = target or "no launcher"
        detail = f"{cline.PLUGIN} runs {opened}, which is not there: every hook does nothing"
        return [Check("cline", FAIL, detail, FLAG)]
    if command is None or text != plugin_text(command):
        detail = f"{cline.PLUGIN} was written by another version of lessons"
        return [Check("cline", WARN, detail, FLAG)]
    events = len(cline.WIRING.events)
    return [Check("cline", OK, f"{cline.PLUGIN}: {events} events through .lessons/run")]


def _command(literal: str) -> str | None:
    try:
        value = json.loads(literal)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, str) else None
