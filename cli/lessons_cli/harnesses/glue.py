"""Harnesses that run a code file of ours instead of reading hook entries from a settings
file (Pi loads ``.pi/extensions/*.ts``): writing, removing and checking that file.

The file is shipped beside the harness modules (``Wiring.glue`` names it) and written as
it is, so every clone gets the same bytes and a review reads what runs. Its first line
marks it as ours: ``init`` replaces a file of ours and refuses to overwrite anyone
else's; ``--remove-hooks`` deletes it only when it is ours, leaving the folder's other
files (a project's own extensions) as they were.
"""

from __future__ import annotations

from pathlib import Path

from lessons_cli.checks import FAIL, OK, WARN, Check
from lessons_cli.harnesses.spec import Wiring
from lessons_core.errors import LessonsError
from lessons_core.fsutil import atomic_write, write_target
from lessons_core.store import launcher

_HERE = Path(__file__).parent


def text_of(wiring: Wiring) -> bytes:
    """The file ``init`` writes for ``wiring``, as shipped."""
    assert wiring.glue is not None, wiring.harness
    return (_HERE / wiring.glue).read_bytes()


def is_ours(data: bytes, wiring: Wiring) -> bool:
    """Whether ``data`` opens with the shipped file's first line (any version of it)."""
    return data.split(b"\n", 1)[0] == text_of(wiring).split(b"\n", 1)[0]


def _current(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise LessonsError(f"{path}: cannot be read ({err.strerror}); fix it and re-run") from None


def install(root: Path, wiring: Wiring) -> bool:
    """Write the file; True if it changed. A file of that name lessons did not write is
    refused, by name."""
    path = write_target(root / wiring.settings, root)
    found, text = _current(path), text_of(wiring)
    if found == text:
        return False
    if found is not None and not is_ours(found, wiring):
        raise LessonsError(
            f"{path}: a file lessons did not write; rename or move it and re-run "
            f"(lessons writes its {wiring.harness} glue there)"
        )
    atomic_write(path, text)
    return True


def uninstall(root: Path, wiring: Wiring) -> bool:
    """Delete the file if it is ours; True if it was."""
    path = write_target(root / wiring.settings, root)
    found = _current(path)
    if found is None or not is_ours(found, wiring):
        return False
    path.unlink()
    return True


def installed(root: Path, wiring: Wiring) -> bool:
    found = _current(root / wiring.settings)
    return found is not None and is_ours(found, wiring)


def checks(root: Path, wiring: Wiring) -> list[Check]:
    """What ``lessons doctor`` says of the file: nothing when it is not ours; else whether
    it is this version's and the launcher it runs is there."""
    found = _current(root / wiring.settings)
    if found is None or not is_ours(found, wiring):
        return []
    name, flag = wiring.harness, f"lessons init --{wiring.harness}"
    if not (root / ".lessons" / launcher.NAME).is_file():
        detail = f"{wiring.settings} runs .lessons/{launcher.NAME}, which is not there"
        return [Check(name, FAIL, detail + ": lessons says nothing", flag)]
    if found != text_of(wiring):
        detail = f"{wiring.settings} was written by another version of lessons"
        return [Check(name, WARN, detail, f"{flag}  (rewrites it; commit the change)")]
    events = len(wiring.events)
    return [Check(name, OK, f"{wiring.settings}: {events} events through .lessons/run")]
