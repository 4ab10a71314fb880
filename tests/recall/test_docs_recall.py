"""The console examples in docs/recall.md are real: rerun, they print what the page shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from lessons_cli.app import cli
from lessons_core.store.layout import Layout
from lessons_core.store.model import Status
from tests.recall.conftest import WriteLesson

DOC = Path(__file__).resolve().parents[2] / "docs" / "recall.md"
DOC_ROOT = "/tmp/shop"  # where the examples were run
CREATED = "2026-11-29"  # the day they were run: the date shows in --explain
LESSONS = [
    ("api-reuse-shared-http-client-construct", "Reuse the shared HTTP client; never construct "
     "axios instances per call.", {"files": ("src/api/client.ts",)}),
    ("api-outbound-request-explicit-timeout", "Give every outbound request an explicit "
     "timeout.", {"files": ("src/api/**",)}),
    ("api-retry-webhook-deliveries-exponential-backoff", "Retry webhook deliveries with "
     "exponential backoff and jitter.", {"files": ("src/**/*.ts",), "keywords": ("webhook",)}),
    ("workflow-suite-git-push-ci-20", "Run the test suite before git push; CI takes 20 "
     "minutes to say no.", {"commands": ("git push",)}),
    ("db-generate-alembic-migrations-autogenerate-review", "Generate Alembic migrations with "
     "autogenerate, then review them by hand.",
     {"files": ("src/db/**",), "keywords": ("schema change",)}),
    ("docs-readme-screen-details-docs", "Keep the README to one screen; details go under "
     "docs/.", {"files": ("*.md",)}),
]  # fmt: skip


def console_examples() -> list[tuple[str, str]]:
    """(command line, expected output) of each ```console block of the page."""
    blocks = re.findall(r"```console\n\$ (.*?)\n(.*?)```", DOC.read_text(), re.S)
    return [(command, output) for command, output in blocks]


@pytest.fixture
def shop(layout: Layout, write_lesson: WriteLesson) -> Layout:
    """The store the examples were run in: six active lessons, a deprecated one, a broken file."""
    for lesson_id, rule, triggers in LESSONS:
        write_lesson(lesson_id, rule, created=CREATED, **triggers)
    write_lesson(
        "api-log-request-ids-full-request",
        "Log request ids, never full request bodies, in the API layer.",
        files=("src/api/*.ts",),
        created=CREATED,
        status=Status.DEPRECATED,
    )
    (layout.lessons_dir / "api-half-written.json").write_text("{\n")
    (layout.root / "src").mkdir()
    return layout


def test_the_page_has_examples() -> None:
    """The page shows plain, JSON and --explain output."""
    commands = [command for command, _ in console_examples()]
    assert len(commands) == 3
    assert any("--explain" in c for c in commands)
    assert any("--json" in c for c in commands)


@pytest.mark.parametrize(("command", "expected"), console_examples())
def test_console_example_is_what_lessons_prints(
    shop: Layout, monkeypatch: pytest.MonkeyPatch, command: str, expected: str
) -> None:
    """Each example, rerun on the same lessons, prints exactly what the page shows."""
    words = shlex.split(command)
    if words[0] == "cd":
        monkeypatch.chdir(shop.root / words[1])
        words = words[3:]
    else:
        monkeypatch.chdir(shop.root)
    assert words[0] == "lessons"
    result = CliRunner().invoke(cli, words[1:])
    assert result.exit_code == 0
    assert result.stdout.replace(str(shop.root), DOC_ROOT) == expected
