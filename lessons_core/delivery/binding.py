"""Rules a person made binding: they refuse every call that breaks them, not the first of a
session only.

Two kinds, both set by a person in the lesson's file (docs/format.md), never by an agent:

- ``"enforce": true``: every shell command the lesson's command triggers match is refused
  with the rule;
- ``"forbid": PATTERN`` (a file lesson): every change to one of its files whose added text
  (``ToolAction.added``: an edit's new text, a write's content, a patch's added lines, a
  here-document written into the file) holds a match is refused, quoting the match and its
  line. The same change without the match runs.

``deliver.before_action`` asks here first, with the binding matches of its recall
(``Recall.binding``: found whatever the session was shown and whatever the budget). A
refusal tells the model what to do (change the call) and a person what to do when the rule
does not apply (remove the key from the lesson's file, named), so no session is stuck.

Fail open: a pattern that does not compile, or any error here, refuses nothing and leaves
one line in the hook's log; one broken lesson never silences the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lessons_core.delivery.hooklog import log_failure
from lessons_core.matching.forbid import (
    MAX_QUOTED_CHARS,
    ForbidPatternError,
    check_forbid,
    first_forbidden,
)
from lessons_core.recall.printable import inert
from lessons_core.recall.render import fence, inert_line

if TYPE_CHECKING:
    from collections.abc import Sequence

    from lessons_core.matching.forbid import Forbidden
    from lessons_core.recall.types import Hit
    from lessons_core.store.layout import Layout

FORBID_HEAD = (
    "Refused, and refused again while it stays so: this change adds text a project rule "
    "forbids. Change the code so it does not add the match, then make the call again."
)
ENFORCE_HEAD = (
    "Refused, every time: a project rule holds for every such command. Run one that "
    "follows the rule instead."
)
# Each rule comes in the labelled block, as every rule an agent is handed (its text,
# and the agent's own text quoted from the call, cannot close it), with the match and
# the lesson file. {key}: the lesson file's key; {file}: the lesson file, repo-relative.
PERSON_LINE = '  If it does not apply here, a person removes "{key}" from {file}.'


def refusal(
    layout: Layout, binding: Sequence[Hit], added: Sequence[tuple[str, str]], command: bool
) -> tuple[str, tuple[str, ...]] | None:
    """The refusal, and the ids of the rules it shows, of a call that adds ``added``
    (``ToolAction.added``) and runs a shell command or not, by the rules among ``binding``
    it breaks; None when it breaks none. Never raises (an error is logged and refuses
    nothing)."""
    try:
        return _refusal(layout, binding, added, command)
    except Exception as err:  # fail open: the call runs, the log says why
        log_failure(layout.top, "hook", "binding", err)
        return None


def _refusal(
    layout: Layout, binding: Sequence[Hit], added: Sequence[tuple[str, str]], command: bool
) -> tuple[str, tuple[str, ...]] | None:
    forbidden = _forbidden(layout, binding, added)
    enforced = [hit for hit in binding if hit.enforce and command]
    if not forbidden and not enforced:
        return None
    parts: list[str] = []
    shown: dict[str, None] = {}
    if forbidden:
        lines: list[str] = []
        for hit, path, found, line in forbidden:
            lines.append(inert_line(f"- [{hit.lesson_id}] {inert(hit.rule)}"))
            lines.append(
                inert_line(
                    f"  {inert(path)} line {found.line} of the added text adds "
                    f'"{inert(found.text)}": {inert(line)}'
                )
            )
            lines.append(_person_line("forbid", hit.lesson_id))
            shown.setdefault(hit.lesson_id, None)
        parts += [FORBID_HEAD, fence(lines, "")]
    enforced = [hit for hit in enforced if hit.lesson_id not in shown]
    if enforced:
        lines = []
        for hit in enforced:
            lines.append(inert_line(f"- [{hit.lesson_id}] {inert(hit.rule)}"))
            lines.append(_person_line("enforce", hit.lesson_id))
            shown.setdefault(hit.lesson_id, None)
        parts += [ENFORCE_HEAD, fence(lines, "")]
    return "\n".join(parts), tuple(shown)


def _forbidden(
    layout: Layout, binding: Sequence[Hit], added: Sequence[tuple[str, str]]
) -> list[tuple[Hit, str, Forbidden, str]]:
    """Each forbid match in the text ``added`` to a file its lesson covers: (the hit, the
    file, the match, the added line holding it)."""
    if not added:
        return []
    found: list[tuple[Hit, str, Forbidden, str]] = []
    for hit in binding:
        if not hit.forbid:
            continue
        try:
            check_forbid(hit.forbid)
        except ForbidPatternError as err:  # refuses nothing; the other lessons still do
            log_failure(layout.top, "hook", "forbid", ValueError(f"{hit.lesson_id}: {err}"))
            continue
        for path, text in added:
            if path != hit.matched:
                continue
            match = first_forbidden(hit.forbid, text)
            if match is not None:
                found.append((hit, path, match, _line(text, match.line)))
                break
    return found


def _line(text: str, number: int) -> str:
    """Line ``number`` (1-based) of ``text``, stripped and cut for quoting."""
    line = text.split("\n", number)[number - 1].strip() if number >= 1 else ""
    return line if len(line) <= MAX_QUOTED_CHARS else line[: MAX_QUOTED_CHARS - 1] + "…"


def _person_line(key: str, lesson_id: str) -> str:
    return PERSON_LINE.format(key=key, file=f".lessons/lessons/{lesson_id}.json")
