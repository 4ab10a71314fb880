"""`lessons replay`: a recorded Claude Code session through the hook, call by call."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from lessons_core.delivery.deliver import GATE_PREFIX
from lessons_core.jsonio import dumps
from lessons_core.session import state as sessions
from lessons_core.store.layout import SESSIONS, Layout
from lessons_core.store.project import init_project
from lessons_core.telemetry.log import log_path
from tests.conftest import make_repo, run, save_lesson
from tests.transcript_records import record, tool_result, tool_use, write

REAL = Path(__file__).parent / "fixtures" / "claude_code_transcript" / "session.jsonl"
DOC = Path(__file__).resolve().parents[1] / "docs" / "replay.md"
RELEASE = "release-bump-version-scripts-release-sh"
APP = "code-src-app-py-free-import"
DEPLOY = "deploy-deploy-deploy-build"
DOCS = "docs-docs-british-english"
SHOP_PATH_CHARS = 120


def shop_lessons(layout: Layout) -> None:
    """The four lessons the recorded session ran with (tests/fixtures/.../README.md)."""
    for lesson_id, rule, files, commands in (
        (RELEASE, "Bump VERSION before running scripts/release.sh; it tags whatever is there.",
         (), (r"scripts/release\.sh",)),
        (APP, "Keep src/app.py free of import-time side effects.", ("src/app.py",), ()),
        (DEPLOY, "Run make check before make deploy; deploy does not build.",
         (), ("make deploy",)),
        (DOCS, "Write docs in British English.", ("docs/**",), ()),
    ):  # fmt: skip
        topics = (lesson_id.split("-")[0],)
        save_lesson(layout, lesson_id, rule, topics=topics, files=files, commands=commands)


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    """The recorded session's repo and lessons, at another path than /home/dev/shop.

    The session note and nudges name the repo's path (the launcher's), so its length is
    fixed here: token counts, and the docs' example output, must not depend on where
    pytest keeps its temp folders."""
    pad = SHOP_PATH_CHARS - len(str(tmp_path / "shop-"))
    assert pad > 0, f"{tmp_path} is too long for the fixed-length shop path"
    root = tmp_path / ("shop-" + "x" * pad)
    root = make_repo(root, {"src/app.py": "VALUE = 1\n", "scripts/release.sh": ""})
    layout, _ = init_project(root)
    shop_lessons(layout)
    monkeypatch.chdir(root)
    return layout


def replay_json(path: Path) -> dict[str, Any]:
    result = run("replay", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def calls(data: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(c["label"], c["mode"], c["lessons"], c["outcome"]) for c in data["calls"]]


def test_each_call_of_the_real_session_as_the_hook_answers_it(shop: Layout) -> None:
    """Gate for the commands and for the file changed before any read of it (and again
    after /compact), silence for reads of what was shown, and for repeats."""
    assert calls(replay_json(REAL)) == [
        ("SCENARIO:work release it and tidy the app", None, [], None),
        ("Write src/app.py", "gate", [APP], "ok"),  # /home/dev/shop moved onto this repo
        ("Bash cat src/app.py", None, [], "ok"),
        ("Bash bash scripts/release.sh", "gate", [RELEASE], "refused"),
        ("Bash bash scripts/release.sh", None, [], "ok"),
        ("Bash make deploy", "gate", [DEPLOY], "refused"),
        ("Bash make deploy", None, [], "failed"),
        ("Edit src/app.py", None, [], "ok"),
        ("Write notes.txt", None, [], "ok"),
        ("SCENARIO:after edit the app once more", None, [], None),
        ("Edit src/app.py", "gate", [APP], "ok"),  # again after /compact
    ]


def test_totals_of_the_real_session(shop: Layout) -> None:
    """Silent share, tokens per call and per delivering call, never fired, failures."""
    data = replay_json(REAL)
    totals = data["totals"]
    tokens = [c["tokens"] for c in data["calls"] if c["mode"]]
    assert (totals["calls"], totals["prompts"], totals["tool_calls"]) == (11, 2, 9)
    assert (totals["delivering"], totals["gates"], totals["compactions"]) == (4, 4, 1)
    assert totals["silent_share"] == round(7 / 11, 4)
    assert totals["tokens"] == sum(tokens)
    assert totals["tokens_per_call"] == round(sum(tokens) / 11, 2)
    assert totals["tokens_per_delivering_call"] == round(sum(tokens) / 4, 2)
    assert totals["never_fired"] == [DOCS]
    assert totals["failed_after_lesson"] == [
        {"line": 42, "label": "Bash make deploy", "lessons": [DEPLOY]}
    ]
    assert totals["session_note_tokens"] > 0  # at the start and after the compaction
    assert totals["nudge_tokens"] > 0  # after make deploy failed
    assert data["skipped_lines"] > 0


def test_json_carries_the_text_the_model_would_get(shop: Layout) -> None:
    """Each delivering call has the exact text, its tokens and the transcript's tool id."""
    data = replay_json(REAL)
    gate = data["calls"][3]
    assert gate["tool_use_id"] == "toolu_0002_2"
    assert gate["text"].startswith(GATE_PREFIX)
    assert "Bump VERSION before running scripts/release.sh" in gate["text"]
    assert gate["tokens"] == (len(gate["text"]) + 3) // 4
    assert data["calls"][0]["text"] == ""


def test_skipped_lines_are_reported_on_stderr(shop: Layout) -> None:
    """The plain report goes to stdout; the count of unread lines to stderr."""
    result = run("replay", str(REAL))
    assert result.exit_code == 0
    assert "  line 42 Bash make deploy: deploy-deploy-deploy-build" in result.stdout
    assert result.stderr == "74 transcript lines hold nothing a hook sees\n"


def test_replay_leaves_no_trace(shop: Layout) -> None:
    """Other sessions' files stay as they were, none is added, and telemetry logs nothing."""
    shop.config_path.write_bytes(dumps({"telemetry": True}))
    sessions.claim(shop, "live-session", [APP])
    sessions.claim(shop, "old-session", [RELEASE])
    folder = shop.local_dir / SESSIONS
    old = folder / next(p for p in os.listdir(folder) if p.endswith(".json"))
    os.utime(old, (1, 1))  # older than the two weeks after which a startup prunes it
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    first = replay_json(REAL)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert sessions.load(shop, "live-session").shown == {APP}
    assert replay_json(REAL) == first  # and a second replay starts as fresh as the first
    assert not log_path(shop).exists()


def test_prompt_matches_are_replayed(shop: Layout, tmp_path: Path) -> None:
    """A prompt naming a keyword gets its rule as context, once."""
    save_lesson(shop, "db-migrate", "Generate migrations, never edit them.", keywords=("schema",))
    cwd = str(shop.root)
    path = write(
        tmp_path,
        [record("user", "change the schema", cwd=cwd), record("user", "schema again", cwd=cwd)],
    )
    data = replay_json(path)
    assert calls(data) == [
        ("change the schema", "context", ["db-migrate"], None),
        ("schema again", None, [], None),
    ]
    assert [c["event"] for c in data["calls"]] == ["UserPromptSubmit"] * 2


NO_DEPLOY_TARGET = "make: *** No rule to make target 'deploy'.  Stop."


def test_a_session_recorded_without_the_hook(shop: Layout, tmp_path: Path) -> None:
    """The failed call is gated in the replay, flagged, and its nudge counted."""
    cwd = str(shop.root)
    path = write(
        tmp_path,
        [
            record("user", "deploy it", cwd=cwd),
            record("assistant", [tool_use("t1", "Bash", command="make deploy")], cwd=cwd),
            record("user", [tool_result("t1", NO_DEPLOY_TARGET, error=True)], cwd=cwd),
        ],
    )
    totals = replay_json(path)["totals"]
    assert (totals["calls"], totals["gates"]) == (2, 1)
    assert totals["failed_after_lesson"] == [
        {"line": 2, "label": "Bash make deploy", "lessons": [DEPLOY]}
    ]
    assert totals["nudge_tokens"] > 0


def test_only_the_tools_the_hook_is_wired_for_count(shop: Layout, tmp_path: Path) -> None:
    """Read brings the file's rules, so the Edit after it is silent; a subagent keeps its
    own set of shown rules (its Edit, not read first, is refused)."""
    app = str(shop.root / "src" / "app.py")
    cwd = str(shop.root)
    path = write(
        tmp_path,
        [
            record("assistant", [tool_use("t1", "Read", file_path=app)], cwd=cwd),
            record("assistant", [tool_use("t2", "Edit", file_path=app)], cwd=cwd),
            record(
                "assistant",
                [tool_use("t3", "Edit", file_path=app)],
                cwd=cwd,
                isSidechain=True,
                agentId="a1",
            ),
            record("assistant", [tool_use("t4", "Edit", file_path=app)], cwd=cwd),
        ],
    )
    data = replay_json(path)
    assert [(c["line"], c["mode"]) for c in data["calls"]] == [
        (1, "context"),
        (2, None),
        (3, "gate"),
        (4, None),
    ]
    assert data["unhooked_calls"] == 0


def test_not_a_transcript(shop: Layout, tmp_path: Path) -> None:
    """A file without prompts or tool calls is a user error naming it."""
    path = tmp_path / "x.jsonl"
    path.write_text("hello\n")
    result = run("replay", str(path))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert f"{path}: holds no prompt, tool call or compaction" in result.stderr


def test_outside_a_lessons_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without .lessons/ there is nothing to replay against: say where to run init."""
    monkeypatch.chdir(tmp_path)
    result = run("replay", str(REAL))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "run 'lessons init' at the repo root" in result.stderr


def test_the_docs_example_is_real_output(shop: Layout) -> None:
    """docs/replay.md's console block is what replaying the fixture prints (stderr last)."""
    ((command, shown),) = re.findall(r"```console\n\$ (.*?)\n(.*?)```", DOC.read_text(), re.S)
    assert command.startswith("lessons replay ")
    result = run("replay", str(REAL))
    assert result.stdout + result.stderr == shown


def test_the_docs_json_is_real_output(shop: Layout) -> None:
    """docs/replay.md's JSON blocks are the fixture's totals and its fourth call."""
    totals, call = re.findall(r"```json\n(.*?)\n```", DOC.read_text(), re.S)
    data = replay_json(REAL)
    assert totals == orjson.dumps(data["totals"], option=orjson.OPT_INDENT_2).decode()
    assert call == orjson.dumps(data["calls"][3], option=orjson.OPT_INDENT_2).decode()
