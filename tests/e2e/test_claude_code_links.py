"""The real Claude Code CLI in a repo whose ``.lessons/lessons`` links out of it: every hook
it runs fails open (no text reaches the model, the tool calls run) and logs the link,
and nothing is written where the link leads."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.e2e.claude_project import TOOLS, Project, bash_call, write_call
from tests.e2e.sample_repo import APP_RULE, RELEASE_RULE

pytestmark = pytest.mark.e2e


def test_a_lessons_folder_linking_out_silences_the_hooks_and_is_logged(
    project: Project,
) -> None:
    """The lessons moved out of the repo and linked back: neither rule reaches the model,
    the Write and the command run, hook.log names the link, the outside folder is as it
    was."""
    lessons = project.root / ".lessons" / "lessons"
    outside = project.home / "lessons-elsewhere"
    shutil.move(lessons, outside)
    lessons.symlink_to(outside)
    before = sorted((p.name, p.read_bytes()) for p in outside.iterdir())
    fake = project.fake
    fake.scenarios["linked"] = [
        write_call(project.root, "src/app.py", "VALUE = 2\n"),
        bash_call("bash scripts/release.sh"),
    ]
    result = project.claude("SCENARIO:linked change and release", "--allowedTools", TOOLS)
    assert result["permission_denials"] == []
    assert (project.root / "src" / "app.py").read_text() == "VALUE = 2\n"
    assert (project.root / "released.txt").exists()
    for request in fake.requests:
        text = json.dumps(request["messages"])
        assert APP_RULE not in text
        assert RELEASE_RULE not in text
    log = (project.root / ".lessons" / "local" / "hook.log").read_text().splitlines()
    assert log
    assert all(f"{lessons} is a symbolic link to {outside}" in line for line in log)
    assert sorted((p.name, p.read_bytes()) for p in outside.iterdir()) == before
    assert not any(os.path.islink(p) for p in (project.root / ".lessons" / "local").iterdir())
