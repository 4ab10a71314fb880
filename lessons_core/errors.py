"""The one error family the library raises on purpose.

Every ``LessonsError`` is a user-facing problem (bad input, a missing file, a refused
capture) and carries a message that names the file or value at fault and the fix. The CLI
maps it to exit code 1 in one place; anything else escaping is a bug.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from os import PathLike
    from pathlib import Path

    # A path as the file functions take it (lessons_core.fsutil uses it too).
    StrPath: TypeAlias = "str | PathLike[str]"


_QUOTED_CHARS = 100


def quoted(text: str) -> str:
    """``text`` quoted for a message: at most 100 characters, on one line, with control
    characters and lone surrogates escaped (text from a lesson or config file must not
    write escape sequences to a terminal, nor fail to print)."""
    cut = text if len(text) <= _QUOTED_CHARS else text[: _QUOTED_CHARS - 1] + "…"
    return f"'{cut}'" if cut.isprintable() else repr(cut)


class LessonsError(Exception):
    """A problem the user can fix; ``str(err)`` says what and how."""


class NotInitialised(LessonsError):
    """No ``.lessons/`` directory above the working directory."""

    def __init__(self, start: StrPath) -> None:
        super().__init__(
            f"no .lessons/ directory in {start} or any parent; run 'lessons init' at the repo root"
        )


class LessonNotFound(LessonsError):
    """A lesson id that names no lesson file."""

    def __init__(self, lesson_id: str, near: str | None = None) -> None:
        self.lesson_id = lesson_id
        self.near = near  # the closest id the store has, for "did you mean"
        hint = f"did you mean '{near}'?" if near else "'lessons list' shows the ids"
        super().__init__(f"no lesson with id '{lesson_id}'; {hint}")


class InvalidLessonFile(LessonsError):
    """A lesson (or config) file that cannot be parsed or breaks the schema.

    ``kind`` names the fault for programs (``lessons validate`` maps it to a stable code):
    ``unparsable``, ``unknown-field``, ``missing-field``, ``bad-status``, ``id-mismatch``,
    ``invalid-value`` or ``too-large`` (a file over ``fsutil.MAX_STORE_FILE_BYTES``).
    """

    def __init__(
        self, path: StrPath, problem: str, key: str | None = None, kind: str = "invalid-value"
    ) -> None:
        from pathlib import Path  # noqa: PLC0415 (a hook meets it on a broken file only)

        self.path: Path = Path(path)
        self.problem = problem
        self.key = key
        self.kind = kind
        where = f"{path}" + (f" (key '{key}')" if key else "")
        super().__init__(f"{where}: {problem}")


class CaptureRefused(LessonsError):
    """``lessons add`` refused to save a lesson; the graph is unchanged."""

    def __init__(self, problem: str, fix: str, code: str) -> None:
        self.problem = problem
        self.fix = fix
        self.code = code
        super().__init__(f"{problem}\n  fix: {fix}")
