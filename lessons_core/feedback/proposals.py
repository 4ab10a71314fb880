"""Which triggers a capture suggestion may propose: only those ``lessons add`` accepts.

A failure nudge's line and the stop-time request carry the trigger of the action the
session saw (``session.action``): a file's path, or a pattern anchored to the command's
words. ``^uv run pytest`` is such a pattern, and ``lessons add`` refuses it (the runner
and the test runner alone fire on every test run), as it refuses a pattern firing on a
large share of the project's everyday commands (``lessons_core.project_commands``). A
suggestion proposing it would ask the agent for a lesson that refuses its own first test
run of every session, so none is made: the same judgement as capture, import and validate
(``matching.trigger_checks.command_problem``). Imported only when a suggestion is about
to be made.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lessons_core.matching.trigger_checks import COMMAND_INTERPRETER, command_problem
from lessons_core.project_commands import everyday_commands
from lessons_core.session.action import FILE, ActionId
from lessons_core.store.layout import Layout


def breadth_judge(layout: Layout) -> Callable[[ActionId], bool]:
    """Whether an action's trigger passes the breadth judgement in ``layout``'s project;
    the project's commands are read once, at the first command trigger judged."""
    project: list[list[str]] = []

    def proposable(action: ActionId) -> bool:
        if action.kind == FILE:  # an exact path: as precise as a trigger gets
            return True
        if not project:
            project.append(everyday_commands(Path(layout.top)))
        problem = command_problem(action.value, project=project[0])
        # A script's interpreter alone is a warning at capture, not a refusal.
        return problem is None or problem.kind == COMMAND_INTERPRETER

    return proposable
