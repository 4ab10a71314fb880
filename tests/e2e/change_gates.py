"""One scenario every chat-completions client runs: a new file under a folder rule and a
shell write of a covered file, each refused once with its rule before anything changed,
and each retry applied (`tests/e2e/test_qwen.py`, `tests/e2e/test_cline.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from lessons_core.delivery.deliver import GATE_PREFIX
from tests.e2e.fake_chat_completions import FakeModel, first_with, tool_results
from tests.e2e.fake_server import ToolCall
from tests.e2e.sample_repo import APP_RULE, ClientProject

STORAGE_RULE = "Open files under src/storage through storage.paths only."
NEW_FILE = "src/storage/fresh.py"
# A here-document through the shell: it reads nothing, so no read prepared the change.
SHELL_WRITE = "cat > src/app.py <<'EOF'\nVALUE = 2\nEOF"
Model = TypeVar("Model", bound=FakeModel)


def script_new_file_and_shell_write(
    project: ClientProject[Model],
    create: Callable[[str, str], ToolCall],
    shell: Callable[[str], ToolCall],
) -> None:
    """Add the folder rule and script the scenario ``new``: ``create(path, text)`` makes
    the new file, ``shell(command)`` runs ``SHELL_WRITE``."""
    project.lessons("add", STORAGE_RULE, "--topic", "storage", "--trigger-file", "src/storage/**")
    fresh, app = project.root / NEW_FILE, project.root / "src" / "app.py"
    project.fake.probe = lambda: (fresh.exists(), app.read_text())
    project.fake.scenarios["new"] = [create(str(fresh), "X = 1\n"), shell(SHELL_WRITE)]


def assert_each_refused_once_then_applied(project: ClientProject[Model]) -> None:
    """Each rule reached the model with the refusal, while its file was as before; both
    retries ran."""
    fake = project.fake
    first = first_with(fake.requests, STORAGE_RULE)
    assert fake.observed[first] == (False, "VALUE = 1\n")
    assert GATE_PREFIX in tool_results(fake.requests[first])[-1]
    second = first_with(fake.requests, APP_RULE)
    assert fake.observed[second] == (True, "VALUE = 1\n")
    assert GATE_PREFIX in tool_results(fake.requests[second])[-1]
    assert (project.root / NEW_FILE).read_text() == "X = 1\n"
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 2\n"
    results = tool_results(fake.requests[-1])
    assert [GATE_PREFIX in r for r in results] == [True, False, True, False]
