"""The plugin file of OpenCode and Kilo Code CLI in a project: written by ``lessons init
--opencode`` / ``--kilo``, deleted by ``--remove-hooks``, checked by ``lessons doctor``.

The file (``WIRING.settings``: ``.opencode/plugin/lessons.js``, ``.kilo/plugin/lessons.js``)
is lessons' alone, so there is nothing to merge into: the plugin folder's other files are
never touched, a ``lessons.js`` that lessons did not write is never overwritten, and
removing it leaves the folder as it was before (emptied folders go, as for every harness).

At start both clients install their plugin package (``@opencode-ai/plugin``,
``@kilocode/plugin``) from the npm registry into each folder they load plugins from. The
plugin lessons writes needs no package, and ``init`` writes no stand-in for one: a
stand-in would stop the client installing the package other plugins of the project may
import. Offline, that install waits for the registry (docs/hooks.md says how to skip it).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lessons_cli.checks import OK, WARN, Check
from lessons_cli.harnesses import opencode
from lessons_cli.harnesses.opencode_plugin import plugin_text
from lessons_cli.harnesses.spec import Wiring
from lessons_core.errors import LessonsError
from lessons_core.fsutil import atomic_write, write_target

# The first line of every plugin lessons wrote (older versions' too).
MARK = b"// lessons: "
# Harness -> the variables that make the client skip a project's plugins.
SWITCHES = {
    "opencode": ("OPENCODE_PURE", "OPENCODE_DISABLE_PROJECT_CONFIG"),
    "kilo": ("KILO_PURE", "KILO_DISABLE_PROJECT_CONFIG"),
}
HARNESSES = frozenset(SWITCHES)


def plugin(spec: Wiring) -> bytes:
    """The plugin this version writes for ``spec``'s harness."""
    return plugin_text(spec.harness, opencode.CHANGE_TOOLS, opencode.TOOLS, opencode.SESSION_EVENTS)


def is_ours(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(MARK)) == MARK
    except OSError:
        return False


def install(root: Path, spec: Wiring) -> bool:
    """Write the plugin; True if the file changed. A file of that name lessons did not
    write is left alone, and the command fails naming it."""
    path = write_target(root / spec.settings, root)
    text = plugin(spec)
    if path.exists() and not is_ours(path):
        raise LessonsError(
            f"{path} exists and was not written by lessons; rename or move it, then re-run "
            f"'lessons init --{spec.harness}'"
        )
    if path.is_file() and path.read_bytes() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text)
    return True


def uninstall(root: Path, spec: Wiring) -> bool:
    """Delete the plugin if lessons wrote it; True if it went."""
    path = write_target(root / spec.settings, root)
    if not path.is_file() or not is_ours(path):
        return False
    path.unlink()
    return True


def checks(root: Path, spec: Wiring, env: Mapping[str, str]) -> list[Check]:
    """The plugin is there, lessons', this version's, and not switched off by ``env``."""
    path = root / spec.settings
    if not path.is_file() or not is_ours(path):
        return []
    fix = f"lessons init --{spec.harness}"
    if path.read_bytes() != plugin(spec):
        detail = f"{spec.settings} differs from the plugin this version writes"
        return [Check(spec.harness, WARN, detail, f"{fix}  (rewrites it; commit the change)")]
    found = [Check(spec.harness, OK, f"{spec.settings}: the plugin runs .lessons/run")]
    for name in SWITCHES[spec.harness]:
        if env.get(name, "") not in ("", "0", "false"):
            detail = f"{name} is set here: the client loads no project plugin, lessons' neither"
            found.append(Check(spec.harness, WARN, detail, f"unset {name}"))
    return found
