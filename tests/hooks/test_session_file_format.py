"""A session file as a version before the session state had its own package wrote it:
read whole by this version, or, where a value is not what that format holds, read as
fresh for that value (a hook fails open)."""

from __future__ import annotations

import json
from pathlib import Path

from lessons_core.delivery import deliver as delivery
from lessons_core.delivery.tool_action import ToolAction
from lessons_core.feedback.stop_capture import stop_request
from lessons_core.session import state as sessions
from lessons_core.session.action import precise
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from tests.hooks.conftest import write_lesson

KEY = "sess"
# Written by the earlier version after a session that: edited src/a.py and was corrected;
# failed ``make deploy-prod`` twice, then ran ``make deploy ENV=prod``; failed ``mycheck
# --all`` (command not found), then ran it again; failed an edit of src/a.py; was refused
# ``git push origin main`` once ("since" set to 0 here: no lesson file exists).
WRITTEN_BEFORE: dict[str, object] = json.loads(
    """
{
    "broad": 0,
    "evidence": {
        "action": [
            "command",
            "git push origin"
        ],
        "corrections": [
            {
                "action": [
                    "file",
                    "src/a.py"
                ],
                "cues": [
                    "no",
                    "don't",
                    "instead",
                    "wrong"
                ],
                "quote": "No, don't edit that file, that is wrong: use src/b.py instead"
            }
        ],
        "fixed": {
            "32b5fdf974959e4e": "cmd ^mycheck",
            "ef1a3d5d9a341210": "cmd ^make deploy-prod"
        },
        "fixed_by": {
            "ef1a3d5d9a341210": [
                "cmd ^make deploy-prod",
                "make deploy ENV=prod",
                "fbae641f04384e22"
            ]
        },
        "last_command": [
            "c4e37f22c7f4768c",
            "git push origin"
        ],
        "recurred": {
            "ef1a3d5d9a341210": "cmd ^make deploy-prod"
        },
        "since": 0.0
    },
    "failures": {
        "32b5fdf974959e4e": {
            "classes": {
                "exit 127: command not found": 1
            },
            "last": "ok",
            "nudged": true,
            "seq": 3
        },
        "a7022a6d23935c32": {
            "classes": {
                "edit: old_string not found": 1
            },
            "last": "failed",
            "nudged": true,
            "seq": 4
        },
        "ef1a3d5d9a341210": {
            "classes": {
                "exit 2: No rule to make target": 2
            },
            "last": "failed",
            "nudged": true,
            "recurrence": "nudged",
            "seq": 1
        }
    },
    "shown": [
        "rel-gen-pushing"
    ],
    "tokens": 56
}
"""
)
# The earlier version's digest of a refused ``git push origin main``.
REFUSED_BEFORE = "16f880284c51ff51"
# What the earlier version's stop hook said for that file, one line per item.
TOLD_BEFORE = [
    "- after src/a.py the user said: \"No, don't edit that file, that is wrong: use src/b.py "
    'instead"',
    "- the command 'make deploy-prod' failed (exit 2: No rule to make target); right after "
    "it, 'make deploy ENV=prod' worked",
    "- the command 'mycheck' failed (exit 127: command not found), then was made again "
    "without failing",
]


def _write(project: Layout, data: object) -> Path:
    path = Path(sessions._path(project, KEY))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_a_session_file_written_before_loads_whole(project: Layout) -> None:
    """Every key of the earlier file is read, and written back as it was."""
    _write(project, WRITTEN_BEFORE)
    state = sessions.load(project, KEY)
    assert state.shown == frozenset({"rel-gen-pushing"})
    assert state.rest == {}
    written = state.to_dict()
    del written["updated"]
    assert written == WRITTEN_BEFORE


def test_the_actions_of_a_file_written_before_are_known_by_the_same_digests() -> None:
    """The failure history's keys are the digests of the same identities."""
    failures = WRITTEN_BEFORE["failures"]
    assert isinstance(failures, dict)
    for files, command in ((("src/a.py",), None), ((), "mycheck --all"), ((), "make deploy-prod")):
        action = precise(files, command)
        assert action is not None
        assert action.failure_key in failures


def test_the_stop_request_reads_the_evidence_written_before(project: Layout) -> None:
    """The stop hook lists what the earlier version's stop hook listed for that file."""
    _write(project, WRITTEN_BEFORE)
    text = stop_request(project, KEY, Config(), active=False)
    assert text is not None
    listed = [line for line in text.splitlines() if line.startswith("- ")]
    assert [" ".join(line.split()) for line in listed] == [
        " ".join(line.split()) for line in TOLD_BEFORE
    ]
    assert "--trigger-file src/a.py --evidence 'correction: No, don" in text


def test_a_retry_after_a_failure_written_before_counts_as_made_again(project: Layout) -> None:
    """The failed edit of src/a.py the earlier file holds is the action this version
    sees retried: its last outcome becomes a success."""
    _write(project, WRITTEN_BEFORE)
    edit = ToolAction(files=("src/a.py",), content={"old_string": "y", "new_string": "w"})
    action = precise(edit.files, None)
    assert action is not None
    assert sessions.load(project, KEY).failures[action.failure_key]["last"] == "failed"
    delivery.before_action(project, KEY, edit, Config())
    assert sessions.load(project, KEY).failures[action.failure_key]["last"] == "ok"


def test_a_refusal_written_before_lets_the_retry_run(project: Layout) -> None:
    """A call the earlier version refused (its digest in the file) runs when made again."""
    write_lesson(project, "push-gen", "Run make gen before pushing.", commands=("^git push",))
    push = ToolAction(command="git push origin main")
    refused = delivery.before_action(project, "another", push, Config())
    assert refused is not None
    assert refused.refuses
    _write(project, {**WRITTEN_BEFORE, "gates": [REFUSED_BEFORE]})
    made_again = delivery.before_action(project, KEY, push, Config())
    assert made_again is not None
    assert not made_again.refuses
    assert made_again.shown == ("push-gen",)


def test_values_not_of_that_format_are_read_as_fresh(project: Layout) -> None:
    """A file whose values are of no shape any version wrote (a hand edit, a torn copy):
    each such value reads as a new session's, and the hooks go on."""
    _write(
        project,
        {
            "shown": "rel-gen-pushing",
            "gates": {"a": 1},
            "failures": [1, 2],
            "evidence": {
                "action": "src/a.py",
                "corrections": [{"action": ["file"], "quote": 3}, "x"],
                "fixed": ["cmd ^mycheck"],
                "recurred": {"ab": "nothing"},
                "fixed_by": {"ab": ["cmd ^x", 1, 2]},
                "last_command": "make",
            },
        },
    )
    state = sessions.load(project, KEY)
    assert (state.shown, state.refusals, state.failures) == (frozenset(), [], {})
    assert stop_request(project, KEY, Config(), active=False) is None
    edit = ToolAction(files=("src/a.py",))
    delivery.before_action(project, KEY, edit, Config())
    after = sessions.load(project, KEY).evidence
    assert after["action"] == ["file", "src/a.py"]


def test_a_session_file_that_is_not_json_is_a_fresh_session(project: Layout) -> None:
    """A file cut short is a new session: nothing read, the next write replaces it."""
    path = _write(project, {})
    path.write_text('{"shown": ["a"')
    assert sessions.load(project, KEY).shown == frozenset()
    delivery.before_action(project, KEY, ToolAction(files=("src/a.py",)), Config())
    assert json.loads(path.read_text())["evidence"]["action"] == ["file", "src/a.py"]
