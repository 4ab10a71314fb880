"""The one event switch of every harness. An adapter is data: ``ANSWERS``, a table from
each event its harness sends to the function that reads that event's payload (typed as
the harness's client sends it) and writes the harness's answer. ``answer`` finds the
event and runs its entry; an event not in the table is answered with nothing.

Most harnesses name the event in the payload (``hook_event_name``); one whose payloads
do not (Copilot CLI) says how to tell them apart with an ``event_of`` of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

# What a hook writes on stdout, as JSON (None: nothing).
Output = dict[str, Any]
# One event's entry: its payload (the harness's TypedDict) in, the harness's answer out.
Answer = Callable[["Layout", Any, "Config"], "Output | None"]


def event_of(adapter: object, payload: Mapping[str, Any]) -> str:
    """The event ``payload`` belongs to: the adapter module's own reading (``event_of``),
    else the name the payload gives."""
    named = getattr(adapter, "event_of", None)
    return str(named(payload) if named else payload.get("hook_event_name", ""))


def answer(
    answers: Mapping[str, Answer],
    event: str,
    layout: Layout,
    payload: Mapping[str, Any],
    config: Config,
) -> Output | None:
    """The answer of the table ``answers`` to ``payload`` of ``event``; None for an event
    not in it."""
    entry = answers.get(event)
    return entry(layout, payload, config) if entry is not None else None
