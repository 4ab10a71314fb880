"""Every payload a real client recorded (tests/fixtures/<harness>/), run through its
adapter in order in one project, answers exactly as recorded in
tests/fixtures/recorded_answers.json: the bytes each harness reads, so a change to how
an adapter is built cannot change what a client sees.

A change that means to change an answer rewrites the file:
``python -m tests.hooks.test_recorded_answers`` (then read the diff).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from lessons_cli.harnesses import HARNESSES
from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project
from tests.conftest import make_repo
from tests.hooks.conftest import FIXTURES, call_hook, payload, write_lesson

RECORDED = FIXTURES / "recorded_answers.json"


def _lessons(layout: Layout) -> None:
    """Rules on what the recorded payloads touch: files, commands, a prompt's words, a
    gate, an always-on lesson."""
    write_lesson(layout, "code-app", "Keep src/app.py free of side effects.", files=("src/app.py",))
    write_lesson(layout, "code-a", "Never rename src/a.py.", files=("src/a.py",))
    write_lesson(layout, "code-new", "New modules need a test.", files=("src/new.py", "*.txt"))
    write_lesson(layout, "docs-readme", "README examples must run.", files=("README.md",))
    write_lesson(layout, "release", "Bump VERSION first.", commands=(r"scripts/release\.sh",))
    write_lesson(layout, "make-check", "make check needs CI=1.", commands=("^make check",))
    write_lesson(layout, "push", "Push only from main.", commands=("git push",), gate=True)
    write_lesson(layout, "python", "Use the venv's python.", commands=("^python3",))
    write_lesson(layout, "release-word", "Releases go out on Tuesdays.", keywords=("release",))
    write_lesson(layout, "always-tabs", "Indent with spaces.", always=True)


def recorded_answers(base: Path) -> dict[str, dict[str, str]]:
    """Harness -> recorded payload -> the hook's output for it (the project folder
    written ``$PROJECT``), each harness in a project of its own under ``base``."""
    found: dict[str, dict[str, str]] = {}
    for harness, module in HARNESSES.items():
        layout, _ = init_project(make_repo(base / module, {"src/a.py": "x = 1\n"}))
        _lessons(layout)
        root = layout.root
        answers: dict[str, str] = {}
        for path in sorted((FIXTURES / module).glob("*.json")):
            out = call_hook(harness, payload(harness, path.stem, root)).decode()
            answers[path.stem] = out.replace(str(root), "$PROJECT")
        found[harness] = answers
    return found


def test_every_recorded_payload_gets_the_recorded_answer(tmp_path: Path) -> None:
    """Each harness's answers to its client's recorded payloads are byte for byte those
    kept in recorded_answers.json."""
    expected = json.loads(RECORDED.read_text())
    found = recorded_answers(tmp_path)
    for harness in HARNESSES:
        assert found[harness] == expected[harness], harness
    assert sum(1 for answers in found.values() for out in answers.values() if out) > 40


if __name__ == "__main__":  # rewrite the recorded answers
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        answers = recorded_answers(Path(folder))
    RECORDED.write_text(json.dumps(answers, indent=1, sort_keys=True) + "\n")
    sys.exit(0)
