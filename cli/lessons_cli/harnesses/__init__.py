"""The harnesses lessons wires, one module each: ``claude_code``, ``codex``, ``gemini``,
``cursor``, ``copilot``, ``qwen``, ``pi``, ``cline``, ``opencode`` and ``kilo`` (the last
four answer a plugin or extension file of their own, not hook entries).

Each harness module owns everything about its harness: the tools whose calls it reads
(``TOOLS``), the wiring ``lessons init`` writes (``WIRING``: settings file, events,
matchers built from those tools, the note ``init`` prints), how a payload names its
folder and its tool call (``project_dir``, ``action_of``), and its events as data:
``ANSWERS``, from each event to the function that reads that event's payload (typed as
its client sends it) and writes the harness's answer, which ``events.answer`` runs
(``EVENTS`` are its keys). What keeps a harness from running hooks outside the repo's
own settings (trust, hooks turned off) is in ``switches``, which ``lessons doctor``
reads; writing settings files is ``wiring``, the records ``spec``, and the ``lessons mcp``
entry in a project's file of MCP servers ``servers``.

``HARNESSES`` below is the one list of them: the hook runner, ``lessons hook``'s choices,
``lessons init``'s flags and ``--remove-hooks``, ``lessons doctor`` and the replays all
derive from it; tests/hooks/test_wired_tools.py holds every module's wiring to what its
adapter handles.

A hook imports this package, ``spec``, ``events`` and one harness module on every tool
call, so none of them imports click, re or pathlib at module level (docs/performance.md).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Protocol

    from lessons_cli.harnesses.events import Answer
    from lessons_cli.harnesses.spec import Wiring
    from lessons_core.delivery.tool_action import ToolAction
    from lessons_core.store.layout import Layout

    class Harness(Protocol):
        ANSWERS: Mapping[str, Answer]
        EVENTS: frozenset[str]
        TOOLS: tuple[str, ...]
        WIRING: Wiring

        def project_dir(self, payload: Any) -> str | None: ...

        def action_of(self, layout: Layout, payload: Any) -> ToolAction: ...


# Harness name on the command line -> its module in this package, in the order
# `lessons init --help` lists them.
HARNESSES: dict[str, str] = {
    "claude-code": "claude_code",
    "codex": "codex",
    "gemini": "gemini",
    "cursor": "cursor",
    "copilot": "copilot",
    "qwen": "qwen",
    "pi": "pi",
    "cline": "cline",
    "opencode": "opencode",
    "kilo": "kilo",
}


# A hook's input (a harness's JSON for one event) is read up to this many bytes; a larger
# one is refused (logged, silent), as no tool call's JSON is that large.
MAX_PAYLOAD_BYTES = 16 << 20


def harness(name: str) -> Harness:
    """The module of harness ``name`` (imported here: each hook pays for its own only)."""
    module = f"{__name__}.{HARNESSES[name]}"
    __import__(module)
    found: Harness = sys.modules[module]
    return found


def wirings() -> dict[str, Wiring]:
    """Every harness's wiring, in registry order (imports every harness module)."""
    return {name: harness(name).WIRING for name in HARNESSES}
