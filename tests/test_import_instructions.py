"""``lessons import instructions`` on a CLAUDE.md written like a real Python project's."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, Triggers
from lessons_core.store.project import init_project
from tests.conftest import import_instructions, make_repo, run

CLAUDE_MD = Path(__file__).parent / "fixtures" / "instructions" / "CLAUDE.md"
PROJECT = {
    "pyproject.toml": "[project]\nname = 'inventory'\n",
    "uv.lock": "version = 1\n",
    "manage.py": "import django\n",
    "README.md": "# inventory\n",
    "src/inventory/__init__.py": "",
    "src/inventory/models.py": "class Stock: ...\n",
    "src/inventory/api/views.py": "def stock(request): ...\n",
    "src/inventory/tasks/sync.py": "def sync(): ...\n",
    "src/inventory/services/stock.py": "def level(item): ...\n",
    "tests/conftest.py": "import pytest\n",
    "tests/factories.py": "class StockFactory: ...\n",
    "tests/test_models.py": "def test_stock(): ...\n",
    "tests/test_api.py": "def test_api(): ...\n",
    "tests/integration/test_db.py": "def test_db(): ...\n",
}
# The rules of the fixture that name nothing of the repo: they stay in CLAUDE.md.
UNNAMED = [
    "Use type hints on every public function.",
    "Prefer `pathlib.Path` over `os.path` in new code.",
    "Write docstrings in the imperative mood.",
]
# A rule about commit messages: its mistake is made where they are written.
ON_COMMIT = "Write commit messages in the imperative mood."
# The rules naming only what they ask for.
ASKING = ["Create migrations with `uv run python manage.py makemigrations`, then check them in."]
# The rules about the test modules, said in words: the mistake of not putting fixtures in
# `conftest.py` is made in the test modules, not in conftest.py.
ON_TESTS = [
    "Put shared fixtures in `conftest.py`, not in the test modules.",
    "Don't mock the ORM; use the factories in `tests/factories.py`.",
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    root = make_repo(tmp_path / "inventory", PROJECT)
    shutil.copy(CLAUDE_MD, root / "CLAUDE.md")
    layout, _ = init_project(root)
    monkeypatch.chdir(root)
    return layout


def imported(*args: str) -> dict[str, Any]:
    return import_instructions(*args)


def by_rule(layout: Layout) -> dict[str, Lesson]:
    return {lesson.rule: lesson for lesson in load_graph(layout).lessons.values()}


def strict_validate() -> list[dict[str, Any]]:
    checked = run("validate", "--strict", "--format", "json")
    findings: list[dict[str, Any]] = json.loads(checked.stdout)["findings"]
    assert checked.exit_code == 0, findings
    # A bare `pytest` beside `uv run pytest` is kept and said to be broad (L108): a notice
    # for people to read, not a problem.
    return [f for f in findings if f["code"] != "L108"]


def test_rules_become_lessons_triggered_where_their_mistake_is_made(project: Layout) -> None:
    """What a rule forbids (a file, a bare command) and the files it has edited become
    its triggers, never the command or file it asks for; the heading names the topic;
    descriptions, code blocks, a rule that only asks for a command and the rules naming
    nothing are each reported as staying in CLAUDE.md; lessons' own section is skipped;
    every lesson passes `lessons validate --strict`."""
    report = imported()
    lessons = by_rule(project)
    pytest_rule = lessons[
        "Run the test suite with `uv run pytest`; never call bare `pytest`, it misses the "
        "settings module."
    ]
    assert pytest_rule.triggers.commands == ("^pytest",)  # not the `uv run pytest` it asks for
    assert pytest_rule.topics == ("commands",)
    assert pytest_rule.evidence == ("import:CLAUDE.md",)
    lock = lessons["Never edit `uv.lock` by hand; change `pyproject.toml` and run `uv lock`."]
    assert lock.triggers == Triggers(files=("uv.lock",))  # not the alternative it asks for
    views = lessons["Keep views thin: business logic goes in `src/inventory/services/`."]
    assert views.triggers.files == ("src/inventory/services/**",)
    assert views.topics == ("code-style",)
    postgres = lessons[
        "Tests under tests/integration/ need a running Postgres: start it with "
        "`docker compose up -d db`."
    ]
    assert postgres.triggers == Triggers(files=("tests/integration/**",))
    assert postgres.topics == ("testing",)
    assert lessons["Never force-push to main."].triggers.commands == ("git push --force",)
    for rule in ON_TESTS:
        assert lessons[rule].triggers == Triggers(files=("tests/**/*.py",)), rule
    assert lessons[ON_COMMIT].triggers == Triggers(commands=("git commit",))
    assert len(lessons) == 8
    assert not any("lessons query" in rule for rule in lessons)  # init --agents-md's section
    assert not any(lesson.always for lesson in lessons.values())
    stays = [n["detail"] for n in report["not_carried"] if n["code"] == "no-trigger"]
    assert [detail.split("': ")[0].strip("'") for detail in stays] == UNNAMED
    assert all("loaded whole into every session (--always imports it" in d for d in stays)
    asks = [n["detail"] for n in report["not_carried"] if n["code"] == "asks-for-it"]
    assert [detail[1:60] for detail in asks] == [rule[:59] for rule in ASKING]
    assert "'uv run python manage.py makemigrations')" in asks[0]
    kinds = {note["code"] for note in report["not_carried"]}
    assert kinds == {"no-trigger", "asks-for-it", "description", "code-block", "heading"}
    assert strict_validate() == []


def test_always_makes_the_rest_always_on_lessons(project: Layout) -> None:
    """With --always the rules naming nothing become always-on lessons, as many as
    always_max_tokens has room for; one naming what it asks for still stays (validate
    would say it could have a trigger); the rest are reported, and validate passes."""
    project.config_path.write_text('{"always_max_tokens": 1000}\n')
    report = imported("--always")
    lessons = by_rule(project)
    assert [rule for rule in UNNAMED if lessons[rule].always] == UNNAMED
    codes = {note["code"] for note in report["not_carried"]}
    assert codes == {"asks-for-it", "description", "code-block", "heading"}
    assert strict_validate() == []


def test_a_second_import_changes_nothing(project: Layout) -> None:
    imported()
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in project.lessons_dir.iterdir()}
    again = imported()
    assert again["lessons"]["created"] == again["lessons"]["updated"] == []
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in project.lessons_dir.iterdir()}
    assert after == before


def test_the_default_files_and_two_names_of_one_file(project: Layout) -> None:
    """No FILE: every instruction file at the top of the repo; CLAUDE.md as a link to
    AGENTS.md is read once."""
    root = project.root
    (root / "CLAUDE.md").rename(root / "AGENTS.md")
    (root / "CLAUDE.md").symlink_to("AGENTS.md")
    (root / "GEMINI.md").write_text(
        "- Regenerate the API client after editing `src/inventory/api/views.py`.\n"
    )
    (root / ".github").mkdir()
    (root / ".github" / "copilot-instructions.md").write_text(
        "- Keep `src/inventory/models.py` free of queries.\n"
    )
    report = imported()
    assert report["source"] == "CLAUDE.md, AGENTS.md, GEMINI.md, .github/copilot-instructions.md"
    lessons = by_rule(project)
    assert len(lessons) == 10
    regenerate = "Regenerate the API client after editing `src/inventory/api/views.py`."
    assert lessons[regenerate].triggers.files == ("src/inventory/api/views.py",)
    assert lessons["Keep `src/inventory/models.py` free of queries."].triggers.files == (
        "src/inventory/models.py",
    )


def test_a_link_leaving_the_repo_is_refused_by_name(project: Layout, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("- Never edit `uv.lock` by hand.\n")
    (project.root / "AGENTS.md").symlink_to(outside)
    result = run("import", "instructions", "AGENTS.md")
    assert result.exit_code == 1
    assert "AGENTS.md is a symbolic link to" in result.stderr
    assert "outside" in result.stderr
    assert list(project.lessons_dir.iterdir()) == []


def test_no_instruction_file_says_which_it_looked_for(project: Layout) -> None:
    os.remove(project.root / "CLAUDE.md")
    result = run("import", "instructions")
    assert result.exit_code == 1
    assert "no instruction file in" in result.stderr
    assert "CLAUDE.md, AGENTS.md, GEMINI.md, .github/copilot-instructions.md" in result.stderr


def test_a_rule_reworded_further_down_is_one_lesson(project: Layout) -> None:
    """ "Use Conventional Commits." under another heading rewords "Commit using
    Conventional Commits.": one lesson, said so, and validate finds no near-duplicate."""
    (project.root / "CLAUDE.md").write_text(
        "## Workflow\n\n- Commit using Conventional Commits.\n\n"
        "## Guidelines\n\n- Use Conventional Commits.\n"
    )
    report = imported()
    assert list(by_rule(project)) == ["Commit using Conventional Commits."]
    assert [note["code"] for note in report["translated"]].count("near-duplicate-merged") == 1
    assert [f for f in strict_validate() if f["code"] == "L202"] == []
