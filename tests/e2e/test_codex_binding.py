"""The real Codex CLI refusing a file lesson's ``forbid`` pattern in an ``apply_patch``
every time, against the fake model (see test_codex.py)."""

from __future__ import annotations

import pytest

from lessons_core.delivery.binding import FORBID_HEAD
from tests.e2e.codex_project import Project, patch_call, shell_call, update_patch
from tests.e2e.test_codex import BLOCKED, _outputs, _statuses

pytestmark = pytest.mark.e2e

SPLIT_RULE = "Use os.path.basename for file names in src/app.py, never split('/')."


def test_a_patch_adding_the_forbidden_text_is_refused_every_time_and_basename_applies(
    codex: Project,
) -> None:
    """A shell read brings the rules; a patch whose + lines add split('/') is refused with
    the rule and the match while the file is unchanged, and refused again when sent
    again; the patch using basename() applies."""
    codex.lessons("add", SPLIT_RULE, "--topic", "paths", "--trigger-file", "src/app.py",
                  "--forbid", r"split\('/'\)")  # fmt: skip
    fake = codex.fake
    split = update_patch("src/app.py", "VALUE = 1", "NAME = PATH.split('/')[-1]")
    fake.scenarios["forbid"] = [
        shell_call("sed -n 1,200p src/app.py"),
        patch_call(split),
        patch_call(split),
        patch_call(update_patch("src/app.py", "VALUE = 1", "NAME = os.path.basename(PATH)")),
    ]
    run = codex.codex("SCENARIO:forbid name the file")
    refusals = [
        (index, text)
        for index, request in enumerate(fake.requests)
        for text in _outputs(request)[-1:]
        if text.startswith(BLOCKED + FORBID_HEAD)
    ]
    assert len(refusals) == 2
    for index, text in refusals:
        assert fake.observed[index][1] == "VALUE = 1\n"  # nothing was written
        assert SPLIT_RULE in text
        assert "\"split('/')\": NAME = PATH.split('/')[-1]" in text
        assert 'a person removes "forbid" from .lessons/lessons/' in text
    assert _statuses(run.hooks, "PreToolUse") == ["Completed", "Blocked", "Blocked", "Completed"]
    assert (codex.root / "src" / "app.py").read_text() == "NAME = os.path.basename(PATH)\n"
