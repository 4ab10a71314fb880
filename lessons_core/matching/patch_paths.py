"""The files a patch's text names: Codex's ``apply_patch`` format, or a unified diff.

Codex edits files by sending a patch, not a path, so the paths come from its headers::

    *** Begin Patch
    *** Update File: src/app.py
    *** Move to: src/main.py
    *** Add File: docs/new.md
    *** Delete File: old.txt
    *** End Patch

A unified diff (``git diff``, ``diff -u``) names each changed file in its ``+++`` line,
and a deleted one in its ``---`` line (its ``+++`` is ``/dev/null``). Plain string
methods, one pass over the lines: no ``re`` for the hook to import.
"""

from __future__ import annotations

BEGIN = "*** Begin Patch"
_HEADERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")


def is_patch(text: str) -> bool:
    """Whether ``text`` is in the ``apply_patch`` format."""
    return BEGIN in text


def apply_patch_paths(text: str) -> list[str]:
    """Every path an ``apply_patch`` patch adds, updates, deletes or moves to, in order,
    without repeats. A changed line that mentions a header starts with ``+`` or ``-``."""
    paths: dict[str, None] = {}
    for line in text.split("\n"):
        if line.startswith("*** "):
            header = next((h for h in _HEADERS if line.startswith(h)), None)
            path = line[len(header) :].strip() if header else ""
            if path:
                paths.setdefault(path, None)
    return list(paths)


def diff_paths(text: str, strip: int | None = None) -> list[str]:
    """The files a unified diff changes, in order, without repeats, with ``strip``
    leading folders removed (patch's ``-pN``; None: git's ``a/`` and ``b/`` only)."""
    paths: dict[str, None] = {}
    old = ""
    for line in text.split("\n"):
        if line.startswith("--- "):
            old = _diff_path(line[4:])
        elif line.startswith("+++ "):
            new = _diff_path(line[4:])
            name = _stripped(old if new == "/dev/null" else new, strip)
            if name and name != "/dev/null":
                paths.setdefault(name, None)
    return list(paths)


def patch_text_paths(text: str, strip: int | None = None) -> list[str]:
    """The files a patch names, whichever of the two formats it is in."""
    return apply_patch_paths(text) if is_patch(text) else diff_paths(text, strip)


def _diff_path(header: str) -> str:
    """The path of a ``---``/``+++`` line: up to a tab (a timestamp follows it)."""
    path = header.split("\t", 1)[0].rstrip("\r").strip()
    if len(path) >= 2 and path[0] == path[-1] == '"':
        path = path[1:-1]
    return path


def _stripped(path: str, strip: int | None) -> str:
    if path == "/dev/null":
        return path
    if strip is None:
        return path[2:] if path.startswith(("a/", "b/")) else path
    return "/".join(path.split("/")[strip:])


def patch_added(text: str, strip: int | None = None) -> list[tuple[str, str]]:
    """(path, the lines the patch adds to it) for each file a patch in either format adds
    lines to, in order: an ``apply_patch`` section's ``+`` lines (all of an added file's),
    given to the file it updates and to the one it moves to; a unified diff's ``+`` lines
    of each hunk, given to its ``+++`` file. What a ``forbid`` pattern is searched in."""
    added: dict[str, list[str]] = {}
    targets: list[str] = []
    apply = is_patch(text)
    previous = ""
    for line in text.split("\n"):
        if apply and line.startswith("*** "):
            targets = _apply_targets(line, targets)
        elif not apply and line.startswith("+++ ") and previous.startswith("--- "):
            new = _diff_path(line[4:])
            name = "" if new == "/dev/null" else _stripped(new, strip)
            targets = [name] if name else []
        elif line.startswith("+"):
            for path in targets:
                added.setdefault(path, []).append(line[1:].rstrip("\r"))
        previous = line
    return [(path, "\n".join(found)) for path, found in added.items()]


def _apply_targets(line: str, targets: list[str]) -> list[str]:
    """The files the ``+`` lines after an ``apply_patch`` ``***`` line go to: an added or
    updated file, and the one it moves to; none after a deletion."""
    header = next((h for h in _HEADERS if line.startswith(h)), None)
    if header is None:  # *** End of File, *** End Patch
        return targets
    path = line[len(header) :].strip()
    if header == "*** Move to: ":
        return [*targets, path] if path else targets
    return [path] if path and header != "*** Delete File: " else []
