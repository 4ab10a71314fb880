"""No input a person, an agent, a merge or an importer can put in ``.lessons/`` silences
the other lessons or crashes a command.

Generated lesson files (trigger strings with reversed ranges, unbalanced brackets, control
characters, huge lengths, lone surrogates; fields of the wrong JSON type; bytes that are
not UTF-8; files cut short) are placed beside good lessons: ``lessons validate`` exits 1
naming each bad file and no other, and ``lessons query`` and the hook of every harness
still deliver every good lesson that applies. ``lessons add`` and ``lessons import`` given
such triggers refuse (exit 1) or save only triggers the judgement accepts, and never
crash. Any ``config.json`` is reported setting by setting, and recall runs on.

Each test counts the examples it ran and checks the count, so a run that generated
nothing cannot pass.
"""

from __future__ import annotations

import collections
import json
import re
import shutil
from collections.abc import Sized
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessons_core.authoring.characters import bad_character
from lessons_core.authoring.repo_files import tracked_files
from lessons_core.delivery.hooklog import log_path
from lessons_core.errors import quoted
from lessons_core.matching.glob_counts import FileIndex
from lessons_core.matching.glob_match import normalise_glob
from lessons_core.matching.globs import compile_glob, has_glob_chars
from lessons_core.matching.trigger_checks import (
    TriggerProblem,
    judge_command,
    judge_glob,
    judge_keyword,
)
from lessons_core.store.config import Config
from lessons_core.store.files import lesson_files, read_lesson
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson
from lessons_core.store.project import init_project
from tests.conftest import make_repo, run
from tests.hooks.conftest import call_hook, payload
from tests.security.conftest import (
    ANSWERS,
    COMMAND,
    checked_answer,
    command_calls,
    event_of,
    fuzz_settings,
)

HARNESSES = sorted(ANSWERS)
FILE_RULE = "Keep src/a.py import-safe at all times."
COMMAND_RULE = "Run make gen before every git push."
# id -> (rule, file triggers, command triggers)
GOOD: dict[str, tuple[str, list[str], list[str]]] = {
    "good-file": (FILE_RULE, ["src/a.py"], []),
    "good-cmd": (COMMAND_RULE, [], ["git push"]),
}
# Room for every match: the test is about which lessons survive, not about the budget.
ROOMY = Config(
    max_trigger_matches=100,
    max_prompt_matches=100,
    max_tokens=1_000_000,
    max_broad_matches=100,
    max_broad_per_session=100,
    max_session_tokens=1_000_000,
)

# Text around a bad token that cannot make it good: no '[', '?', '\\' nor '..'-forming
# slashes for globs, no regex syntax for commands, no letters or digits for keywords.
GLOB_FILLER = st.text(alphabet="abcxyz019._-*", max_size=8)
COMMAND_FILLER = st.text(alphabet="abcxyz019 _-", max_size=8)
KEYWORD_FILLER = st.text(alphabet="-_.!?, ", max_size=6)
NASTY = (
    "[z-a]", "[", "]", "[]", "[!]", "[!", "a[b-a]c", "**/[", "[[:alpha:]]", "\\", "a\\",
    "\x00", "\n", "\x1b[2J", "\ud800", "\udcff", "💥", "", " ", ".", "./", "/", "..", "../x",
    "!src/**", "#x", "**", "/etc/passwd", "C:\\x\\y.ts", "a" * 5000, "src/" + "n" * 300,
    "(a)\\1", "(?=git)", "x*", ".*", "a{1000}{1000}", "(" * 50, "--", "!!!",
)  # fmt: skip


def certainly_bad_globs() -> st.SearchStrategy[str]:
    tokens = st.sampled_from(
        ["[z-a]", "[b-a]", "\x00", "\x1b", "\n", "n" * 300, "x" * 5000, "\ud800"]
    )
    middle = st.tuples(GLOB_FILLER, tokens, GLOB_FILLER).map("".join)
    outside = GLOB_FILLER.map(lambda tail: "/nonexistent-fz/" + tail)
    return st.one_of(middle, outside)


def certainly_bad_commands() -> st.SearchStrategy[str]:
    tokens = st.sampled_from(["(a)\\1", "(?=git)", "(?!x)", "\x00", "y" * 5000, "\udcff"])
    middle = st.tuples(COMMAND_FILLER, tokens, COMMAND_FILLER).map("".join)
    return st.one_of(middle, st.sampled_from(["x*", ".*", "(a|)", "()"]))


def certainly_bad_keywords() -> st.SearchStrategy[str]:
    tokens = st.sampled_from(["--", "!!", "\x01", "ab\x7fcd", "k" * 5000, "\ud800"])
    return st.tuples(KEYWORD_FILLER, tokens, KEYWORD_FILLER).map("".join)


PLAUSIBLE_GLOBS = st.from_regex(
    r"(src|docs|\*\*)(/[a-z*?]{1,6}){0,3}(\.[a-z]{1,3})?", fullmatch=True
)
PLAUSIBLE_COMMANDS = st.from_regex(r"[a-z]{2,6}( [a-z-]{1,6}){0,2}", fullmatch=True)
PLAUSIBLE_KEYWORDS = st.from_regex(r"[a-zA-Z]{3,9}( [a-z]{2,6})?", fullmatch=True)


def any_trigger() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=30), st.sampled_from(NASTY))


def json_value() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=12),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
        ),
        max_leaves=6,
    )


def not_a(kind: type | tuple[type, ...], *, none_ok: bool = False) -> st.SearchStrategy[Any]:
    """A JSON value whose type is not ``kind`` (a bool is never an int here either)."""

    def wrong(value: Any) -> bool:
        if value is None:
            return not none_ok
        return not isinstance(value, kind)

    return json_value().filter(wrong)


def bad_string_list() -> st.SearchStrategy[Any]:
    return st.one_of(
        not_a(list),
        st.lists(json_value(), min_size=1, max_size=3).filter(
            lambda items: not all(isinstance(i, str) for i in items)
        ),
    )


# Field -> what breaks it. Each makes the file fail to load (an L0xx error).
WRONG_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "id": not_a(str),
    "rule": st.one_of(not_a(str), st.sampled_from(["", "   "])),
    "topics": bad_string_list(),
    "status": st.one_of(not_a(str), st.sampled_from(["retired", "ACTIVE", ""])),
    "created": st.one_of(not_a(str), st.sampled_from(["yesterday", "2026-1-1", "2026-01-01\n"])),
    "evidence": bad_string_list(),
    "rationale": not_a(str, none_ok=True),
    "superseded_by": not_a(str, none_ok=True),
    "gate": not_a(bool),
    "triggers": st.one_of(not_a(dict), st.fixed_dictionaries({"file": st.just(["src/a.py"])})),
    "triggers.files": st.one_of(bad_string_list(), st.just([""])),
    "triggers.commands": st.one_of(bad_string_list(), st.just([""])),
    "triggers.keywords": st.one_of(bad_string_list(), st.just([""])),
    "colour": st.just("red"),  # an unknown key
}


def lesson_dict(lesson_id: str, rule: str, **triggers: list[str]) -> dict[str, Any]:
    return {
        "id": lesson_id,
        "rule": rule,
        "topics": ["fuzz"],
        "triggers": {"files": [], "commands": [], "keywords": [], **triggers},
        "evidence": [],
        "status": "active",
        "created": "2026-01-01",
    }


def encoded(data: dict[str, Any]) -> bytes:
    """Pretty JSON as a person would write it; a lone surrogate stays a \\u escape (which
    no JSON reader may turn into UTF-8: the file is then broken as a whole)."""
    return json.dumps(data, indent=2, sort_keys=True).encode() + b"\n"


class Generated(NamedTuple):
    """One generated lesson file and what it must do."""

    raw: bytes
    data: dict[str, Any] | None  # what it holds, when it holds a lesson at all
    certainly_bad: bool  # a broken file, or one holding a trigger made to be rejected
    applies: frozenset[str]  # "file", "command": carries that call's good trigger


@st.composite
def lesson_file(draw: st.DrawFn, number: int) -> Generated:
    """``fz-N.json``: a lesson with generated triggers, now and then one made to be
    rejected, a field of the wrong type, bytes that are not UTF-8 or a file cut short."""
    rule = f"Fuzzed rule number {number} keeps its own wording apart."
    triggers: dict[str, list[str]] = {
        "files": draw(st.lists(any_trigger(), max_size=3)),
        "commands": draw(st.lists(any_trigger(), max_size=2)),
        "keywords": draw(st.lists(any_trigger(), max_size=2)),
    }
    applies = set()
    if draw(st.booleans()):
        triggers["files"].append("src/a.py")
        applies.add("file")
    if draw(st.booleans()):
        triggers["commands"].append("git push")
        applies.add("command")
    shape = draw(
        st.sampled_from(["bad trigger", "any triggers", "plausible", "wrong type", "bytes"])
    )
    if shape == "plausible":  # triggers such as people write, good or merely odd
        triggers = {
            "files": draw(st.lists(PLAUSIBLE_GLOBS, max_size=3)),
            "commands": draw(st.lists(PLAUSIBLE_COMMANDS, max_size=2)),
            "keywords": draw(st.lists(PLAUSIBLE_KEYWORDS, max_size=2)),
        }
        triggers["files"] += ["src/a.py"] if "file" in applies else []
        triggers["commands"] += ["git push"] if "command" in applies else []
    if shape == "bad trigger":
        kind, strategy = draw(
            st.sampled_from(
                [
                    ("files", certainly_bad_globs()),
                    ("commands", certainly_bad_commands()),
                    ("keywords", certainly_bad_keywords()),
                ]
            )
        )
        triggers[kind].insert(draw(st.integers(0, len(triggers[kind]))), draw(strategy))
    data = lesson_dict(f"fz-{number}", rule, **triggers)
    if shape == "wrong type":
        field = draw(st.sampled_from(sorted(WRONG_FIELDS)))
        value = draw(WRONG_FIELDS[field])
        if field.startswith("triggers."):
            data["triggers"][field.split(".")[1]] = value
        else:
            data[field] = value
        return Generated(encoded(data), None, True, frozenset())
    raw = encoded(data)
    if shape == "bytes":
        where = draw(st.integers(0, raw.rindex(b"}") - 1))
        cut = draw(st.sampled_from([b"", b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"<<<<<<< HEAD\n"]))
        if cut:  # not UTF-8, or a merge marker, inside the text
            return Generated(raw[:where] + cut + raw[where:], None, True, frozenset())
        return Generated(raw[:where], None, True, frozenset())  # cut short
    return Generated(raw, data, shape == "bad trigger", frozenset(applies))


def is_bad(lesson: Generated, root: Path) -> bool:
    """What validate must fail on: a file that does not load, one holding a trigger the
    judgement rejects, or an active lesson none of whose triggers can fire (a rejected
    one, or a glob naming a folder: recall is only ever asked about files)."""
    if lesson.data is None:
        return True
    triggers = lesson.data["triggers"]
    texts = [t for values in triggers.values() for t in values]
    if any("\ud800" <= char <= "\udfff" for text in texts for char in text):
        return True  # a lone surrogate: no JSON reader takes the file
    judged = [
        *(judge_glob(g, root) for g in triggers["files"]),
        *(judge_command(c) for c in triggers["commands"]),
        *(judge_keyword(k) for k in triggers["keywords"]),
    ]
    if any(isinstance(result, TriggerProblem) for result in judged):
        return True
    folders = [g for g in triggers["files"] if _names_a_folder(g, root)]
    return len(folders) == len(texts)  # no trigger at all counts too


def _names_a_folder(glob: str, root: Path) -> bool:
    text = normalise_glob(glob)
    return text.endswith("/") or (not has_glob_chars(text) and (root / text).is_dir())


def reset(layout: Layout) -> None:
    """Between examples: only the good lessons, no session, no hook log."""
    for path in lesson_files(layout):
        path.unlink()
    for lesson_id, (rule, files, commands) in GOOD.items():
        data = lesson_dict(lesson_id, rule, files=files, commands=commands)
        layout.lesson_path(lesson_id).write_bytes(encoded(data))
    forget_sessions(layout)
    log = log_path(layout.root)
    if log.exists():
        log.unlink()


def forget_sessions(layout: Layout) -> None:
    shutil.rmtree(layout.local_dir / "sessions", ignore_errors=True)


def file_calls(harness: str, root: Path) -> list[dict[str, Any]]:
    """One edit of src/a.py as the harness reports it (its recorded payloads, the path set
    here): the pre-tool event, and the post-tool event where context rules arrive there."""
    edit = {"file_path": str(root / "src" / "a.py"), "content": "x = 2\n"}
    patch = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
    return {
        "claude-code": lambda: [payload("claude-code", "pre_tool_use_edit", root, tool_input=edit)],
        "codex": lambda: [
            payload("codex", "pre_tool_use_apply_patch", root, tool_input={"command": patch})
        ],
        "gemini": lambda: [
            payload("gemini", "before_tool_write_file", root, tool_input=edit),
            payload("gemini", "after_tool_write_file", root, tool_input=edit),
        ],
        "cursor": lambda: [
            payload("cursor", "pre_tool_use_write", root, tool_input=edit),
            payload("cursor", "post_tool_use_write", root, tool_input=edit),
        ],
        "qwen": lambda: [
            payload("qwen", "pre_tool_use_edit", root, tool_input=edit),
            payload("qwen", "post_tool_use_edit", root, tool_input=edit),
        ],
        "copilot": lambda: [
            payload("copilot", "pre_tool_use_create", root, toolArgs={"path": edit["file_path"]})
        ],
    }[harness]()


def delivered(harness: str, calls: list[dict[str, Any]]) -> str:
    """Everything the harness's model is handed over ``calls`` (one session)."""
    texts = []
    for data in calls:
        text = checked_answer(harness, event_of(harness, data), call_hook(harness, data))
        texts.append(text or "")
    return "\n".join(texts)


def rule_of(lesson_id: str) -> str:
    if lesson_id in GOOD:
        return GOOD[lesson_id][0]
    return f"Fuzzed rule number {lesson_id.split('-')[1]} keeps its own wording apart."


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    """A git repo with src/a.py, .lessons/ with roomy budgets, as the working directory."""
    layout, _ = init_project(make_repo(tmp_path / "repo", {"src/a.py": "x = 1\n"}))
    layout.config_path.write_text(json.dumps(ROOMY.to_dict()))
    monkeypatch.chdir(layout.root)
    return layout


def counted(examples: Sized, expected: int) -> None:
    """The property ran on ``expected`` generated cases (hypothesis may stop early only
    when it has exhausted its strategies, which these are far from)."""
    assert len(examples) == expected, len(examples)


LESSON_EXAMPLES = 150


def test_bad_lesson_files_never_silence_the_good_ones(store: Layout) -> None:
    """1 to 4 generated files beside two good lessons: validate exits 1 naming exactly
    the bad files (and no good one); query and the hook of each of the six harnesses
    deliver every loadable lesson that carries the good trigger of the call."""
    examples: list[object] = []

    @fuzz_settings(LESSON_EXAMPLES)
    @given(st.integers(1, 4).flatmap(lambda n: st.tuples(*(lesson_file(i) for i in range(n)))))
    def check(files: tuple[Generated, ...]) -> None:
        reset(store)
        expect = {"file": {"good-file"}, "command": {"good-cmd"}}
        bad = set()
        for number, lesson in enumerate(files):
            name = f"fz-{number}"
            store.lesson_path(name).write_bytes(lesson.raw)
            if is_bad(lesson, store.root):
                bad.add(f".lessons/lessons/{name}.json")
            else:
                assert not lesson.certainly_bad, lesson  # the judgement missed one
            if _loads(store, name):
                for call in lesson.applies:
                    expect[call].add(name)
        report = run("validate", "--format", "json")
        findings = json.loads(report.stdout)["findings"]
        errors = {f["file"] for f in findings if f["severity"] == "error"}
        assert errors == bad, findings
        assert report.exit_code == (1 if bad else 0)
        query = run("query", "--file", "src/a.py", "--cmd", COMMAND, "--json")
        assert query.exit_code == 0, query.output
        shown = {hit["id"] for hit in json.loads(query.stdout)["lessons"]}
        assert expect["file"] | expect["command"] <= shown
        for harness in HARNESSES:
            for call, calls in (
                ("file", file_calls(harness, store.root)),
                ("command", command_calls(harness, store.root)),
            ):
                forget_sessions(store)
                text = delivered(harness, calls)
                for lesson_id in expect[call]:
                    assert rule_of(lesson_id) in text, (harness, call, lesson_id, text)
        assert not log_path(store.root).exists()  # no hook failed, even quietly
        examples.append((len(files), len(bad), len(expect["file"]) + len(expect["command"]) - 2))

    check()
    counted(examples, LESSON_EXAMPLES)
    files, bad, served = (sum(column) for column in zip(*examples, strict=True))
    print(f"lesson files: {files} generated, {bad} bad, {served} generated lessons served")
    assert bad >= LESSON_EXAMPLES
    assert files - bad >= LESSON_EXAMPLES // 3  # loadable files with odd triggers too
    assert served >= LESSON_EXAMPLES // 2


def _loads(layout: Layout, lesson_id: str) -> Lesson | None:
    try:
        lesson = read_lesson(layout.lesson_path(lesson_id))
    except Exception:  # any failure to load is a broken file, reported by validate
        return None
    return lesson if lesson.is_active else None


ADD_EXAMPLES = 150


def mostly(usual: st.SearchStrategy[str], other: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """``usual`` four times in five (``one_of`` would give each branch the same share)."""
    return st.integers(0, 4).flatmap(lambda n: usual if n else other)


def test_add_refuses_or_saves_only_triggers_that_can_fire(store: Layout) -> None:
    """``lessons add`` with generated triggers (and now and then generated rule text):
    exit 0 or 1, never a crash; a refusal says the fix; what it saved loads, and every
    trigger in it passes the judgement."""
    examples: list[object] = []
    good = st.sampled_from(
        ["src/a.py", "./src/a.py", "src\\*.py", f"{store.root}/src/a.py", "git push", "alembic"]
    )
    bad = st.one_of(any_trigger(), certainly_bad_globs(), certainly_bad_commands())
    triggers = mostly(good, bad)
    rule = "Regenerate the client after editing the schema file."
    rules = mostly(st.just(rule), st.one_of(st.text(max_size=40), st.just("x\udcffy")))

    @fuzz_settings(ADD_EXAMPLES)
    @given(
        rules,
        st.lists(
            st.tuples(st.sampled_from(["file", "cmd", "keyword"]), triggers), min_size=1, max_size=3
        ),
    )
    def check(rule: str, given_triggers: list[tuple[str, str]]) -> None:
        reset(store)
        args = ["add", "--topic", "gen", "--json", "--force"]
        for kind, text in given_triggers:
            args += [f"--trigger-{kind}", text]
        result = run(*args, "--", rule)  # a rule may start with '-'

        assert result.exit_code in (0, 1), result.output
        if result.exit_code == 1:
            assert "fix:" in result.stderr
        else:
            saved = json.loads(result.stdout)["lesson"]
            lesson = read_lesson(store.lesson_path(saved["id"]))
            _assert_all_judged_good(lesson, store.root)
        examples.append(result.exit_code)

    check()
    counted(examples, ADD_EXAMPLES)
    print(f"add: {examples.count(0)} saved, {examples.count(1)} refused")
    assert examples.count(0) >= 20  # both sides were reached
    assert examples.count(1) >= 20


def _assert_all_judged_good(lesson: Lesson, root: Path) -> None:
    for glob in lesson.triggers.files:
        assert not isinstance(judge_glob(glob, root), TriggerProblem), glob
    for pattern in lesson.triggers.commands:
        assert not isinstance(judge_command(pattern), TriggerProblem), pattern
    for keyword in lesson.triggers.keywords:
        assert not isinstance(judge_keyword(keyword), TriggerProblem), keyword


IMPORT_EXAMPLES = 100


def imported(store: Layout, *args: str) -> tuple[int, list[Lesson]]:
    """Run ``lessons import ARGS``: it exits 0 or 1 and every lesson it wrote holds only
    triggers the judgement accepts. Its exit code and the lessons it wrote (those already
    in the store left out); refused, it writes none."""
    result = run("import", *args)
    assert result.exit_code in (0, 1), result.output
    written = [read_lesson(path) for path in lesson_files(store)]
    for lesson in written:
        _assert_all_judged_good(lesson, store.root)
    new = sorted((x for x in written if x.id not in GOOD), key=lambda x: x.id)
    if result.exit_code:
        assert new == [], (result.output, new)
    return result.exit_code, new


def is_unicode(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (holds no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def agentsmesh_refuses(graph: dict[str, Any]) -> bool:
    """Whether docs/importing.md's agentsmesh import must refuse ``graph`` (written out
    independently of the importer): an unknown version, a section that is not an object,
    a lesson that is not one or lacks a rule, a known status or a date, a successor that
    is not an id; text that is not Unicode (a lone surrogate)."""
    if not is_unicode(json.dumps(graph, ensure_ascii=False)):
        return True
    if graph.get("version") not in (1, 2):
        return True
    if any(not isinstance(graph.get(key, {}), dict) for key in ("lessons", "topics", "triggers")):
        return True
    for raw in graph.get("lessons", {}).values():
        if not isinstance(raw, dict):
            return True
        rule, created, successor = raw.get("rule"), raw.get("createdAt"), raw.get("supersededBy")
        if not isinstance(rule, str) or not rule.strip():
            return True
        if raw.get("status") not in ("active", "deprecated", "superseded"):
            return True
        if not isinstance(created, str) or not re.match(
            r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z", created[:10]
        ):
            return True
        if successor is not None and not isinstance(successor, str):
            return True
    return False


def carried_keywords(graph: dict[str, Any], lesson_id: str) -> set[str]:
    """The keyword triggers of ``lesson_id`` in ``graph`` that the judgement accepts:
    each must reach the imported lesson."""
    refs = graph["lessons"][lesson_id].get("triggers")
    found = set()
    for ref in refs if isinstance(refs, list) else []:
        trigger = graph["triggers"].get(ref) if isinstance(ref, str) else None
        if not isinstance(trigger, dict) or trigger.get("kind") != "keyword":
            continue
        pattern = trigger.get("pattern")
        if isinstance(pattern, str) and not isinstance(
            judge_keyword(pattern.strip()), TriggerProblem
        ):
            found.add(pattern.strip())
    return found


def holds_a_control_character(graph: dict[str, Any], lesson_id: str) -> bool:
    """Whether the lesson, or a trigger it names, holds a control character: capture
    refuses those in every field, so the import reports the lesson as not carried."""
    raw = graph["lessons"][lesson_id]
    refs = raw.get("triggers")
    texts: list[tuple[str, bool]] = []
    for ref in refs if isinstance(refs, list) else []:
        trigger = graph["triggers"].get(ref) if isinstance(ref, str) else None
        pattern = trigger.get("pattern") if isinstance(trigger, dict) else None
        if isinstance(pattern, str):
            texts.append((pattern, False))
    for key, value in raw.items():
        values = value if isinstance(value, list) else [value]
        texts += [(v, key == "rationale") for v in values if isinstance(v, str)]
    return any(bad_character(text, multiline) is not None for text, multiline in texts)


@st.composite
def agentsmesh_graph(draw: st.DrawFn) -> dict[str, Any]:
    """A graph whose trigger patterns are generated, with now and then a field of the
    wrong type anywhere a lesson, trigger or topic has one."""
    kinds = st.sampled_from(["file_glob", "command_pattern", "keyword"])
    patterns = st.one_of(any_trigger(), certainly_bad_globs(), certainly_bad_keywords())
    count = draw(st.integers(0, 4))
    triggers = {f"t{n}": {"kind": draw(kinds), "pattern": draw(patterns)} for n in range(count)}
    lesson: dict[str, Any] = {
        "rule": "Regenerate generated code instead of editing it.",
        "topics": ["gen"],
        "triggers": sorted(triggers),
        "evidence": [],
        "status": "active",
        "createdAt": "2026-02-03",
    }
    graph: dict[str, Any] = {
        "version": 2,
        "topics": {"gen": {"summary": "Generated code."}},
        "triggers": triggers,
        "lessons": {"gen-x": lesson},
    }
    if draw(st.booleans()):
        where = draw(st.sampled_from(["lesson", "trigger", "topic", "graph"]))
        value = draw(json_value())
        if where == "lesson":
            lesson[draw(st.sampled_from([*lesson, "supersededBy", "rationale", "scope"]))] = value
        elif where == "trigger" and triggers:
            trigger = triggers[draw(st.sampled_from(sorted(triggers)))]
            trigger[draw(st.sampled_from(["kind", "pattern"]))] = value
        elif where == "topic":
            graph["topics"]["gen"] = value
        else:
            graph[draw(st.sampled_from(["version", "topics", "triggers", "lessons"]))] = value
    return graph


def test_import_refuses_or_writes_only_triggers_that_can_fire(store: Layout) -> None:
    """``lessons import agentsmesh`` of generated graphs: exit 0 or 1, never a crash; every
    lesson written loads and holds only triggers the judgement accepts."""
    examples: list[tuple[int, int, int]] = []
    source = store.root.parent / "lessons.json"

    @fuzz_settings(IMPORT_EXAMPLES)
    @given(agentsmesh_graph())
    def check(graph: dict[str, Any]) -> None:
        reset(store)
        source.write_bytes(json.dumps(graph).encode("utf-8", "surrogatepass"))
        code, new = imported(store, "agentsmesh", str(source))
        if agentsmesh_refuses(graph):
            assert code == 1, graph
        else:
            assert code == 0, graph
            sources = graph.get("lessons", {})
            # A control character in a trigger that can fire makes capture refuse the
            # lesson; in one the judgement drops first (a glob), the rest is carried.
            carried = [i for i in sources if not holds_a_control_character(graph, i)]
            assert len(carried) <= len(new) <= len(sources), (graph, new)
            if carried == ["gen-x"] and new:
                assert [x.id for x in new] == ["gen-x"]
                assert carried_keywords(graph, "gen-x") <= set(new[0].triggers.keywords)
        examples.append((code, len(new), sum(1 for x in new if not x.triggers.is_empty())))

    check()
    counted(examples, IMPORT_EXAMPLES)
    print(f"import agentsmesh: {sorted(collections.Counter(examples).items())}")
    # Both sides were reached, and most valid graphs carried triggers.
    assert sum(1 for code, _n, _t in examples if code == 1) >= 10
    assert sum(1 for code, n, t in examples if code == 0 and n == t == 1) >= IMPORT_EXAMPLES // 3


RULE_FILE_EXAMPLES = 50


def test_rule_file_import_writes_only_globs_that_can_fire(store: Layout) -> None:
    """A Cursor rule whose ``globs`` line is generated: exit 0 or 1, never a crash; every
    glob written passes the judgement."""
    examples: list[tuple[int, int]] = []
    rules = store.root / ".cursor" / "rules"
    rules.mkdir(parents=True)
    globs = st.lists(
        # One line: any line break (str.splitlines's, U+0085 and U+2028 too) ends it.
        st.one_of(any_trigger(), certainly_bad_globs()).filter(
            lambda g: len(f"{g}.".splitlines()) == 1
        ),
        min_size=1,
        max_size=3,
    )

    @fuzz_settings(RULE_FILE_EXAMPLES)
    @given(globs)
    def check(patterns: list[str]) -> None:
        reset(store)
        text = "---\nglobs: " + ", ".join(patterns) + "\n---\n- Regenerate generated code.\n"
        (rules / "gen.mdc").write_bytes(text.encode("utf-8", "surrogatepass"))
        code, new = imported(store, "cursor")
        # The file's one bullet, and nothing else; a file that is not UTF-8 is skipped.
        expected = ["Regenerate generated code."] if is_unicode(text) else []
        if code == 0:
            # A rule whose globs leave it no scope, and whose words name no file, is
            # reported as not carried rather than written without a trigger.
            assert [x.rule for x in new] in (expected, []), (patterns, new)
            # The bullet names no file, so a lesson written for it has the globs that were
            # kept, or is always-on where a glob named every file (``*``): never a lesson
            # with no trigger (validate's L106), and never a glob that matches no file of
            # the store (validate's L101).
            assert all(x.triggers.files or x.always for x in new), (patterns, new)
            files = FileIndex(tracked_files(store.root))
            assert all(files.count(compile_glob(glob)) for x in new for glob in x.triggers.files), (
                patterns,
                new,
            )
        examples.append((code, sum(len(x.triggers.files) for x in new)))

    check()
    counted(examples, RULE_FILE_EXAMPLES)
    print(f"import cursor: {sorted(collections.Counter(examples).items())}")
    # Most files were imported (a generated glob seldom names a file of the store, and
    # one that names none is reported, not written).
    assert sum(1 for code, _globs in examples if code == 0) >= RULE_FILE_EXAMPLES // 2


CONFIG_EXAMPLES = 100
DEFAULTS = Config().to_dict()


def setting_is_good(key: str, value: Any) -> bool:
    """The documented rule for one setting (docs/format.md), written out independently."""
    default = DEFAULTS[key]
    if type(value) is not type(default):
        return False
    if key.startswith("delivery_"):
        return value in ("gate", "context")
    return not (isinstance(default, int) and not isinstance(default, bool) and value < 0)


@st.composite
def config_file(draw: st.DrawFn) -> tuple[bytes, set[str] | None]:
    """config.json bytes and the settings validate must name (None: the whole file)."""
    shape = draw(st.sampled_from(["settings", "settings", "settings", "not an object", "bytes"]))
    if shape == "bytes":
        raw = draw(st.sampled_from([b'{"max_tokens": ', b"\xff\xfe", b"[" * 100_000, b""]))
        return raw, None
    if shape == "not an object":
        return json.dumps(
            draw(json_value().filter(lambda v: not isinstance(v, dict)))
        ).encode(), None
    good_values = {key: st.from_type(type(value)) for key, value in DEFAULTS.items()}
    keys = st.one_of(
        st.sampled_from([*sorted(DEFAULTS), "telemtry", "max_token", "", "\ud800x", "a\x1bb"]),
        st.text(max_size=8),
    )
    data: dict[str, Any] = {}
    for key in draw(st.lists(keys, unique=True, max_size=6)):
        if key == "packs":  # folder paths are judged against the repo (tests/test_scopes_packs.py)
            value = []
        elif key in DEFAULTS and draw(st.booleans()):
            value = draw(good_values[key])
            if key.startswith("delivery_"):
                value = draw(st.sampled_from(["gate", "context", value]))
        else:
            value = draw(json_value())
        data[key] = value
    bad = {
        key for key, value in data.items() if key not in DEFAULTS or not setting_is_good(key, value)
    }
    return json.dumps(data).encode(), bad


def test_any_config_is_reported_and_recall_runs_on_the_defaults(store: Layout) -> None:
    """Generated config.json: validate names each bad setting (L011; the file when it
    does not parse) and nothing else fails; query and every harness's hook still deliver
    both good lessons."""
    examples: list[set[str] | None] = []

    @fuzz_settings(CONFIG_EXAMPLES)
    @given(config_file())
    def check(case: tuple[bytes, set[str] | None]) -> None:
        raw, bad = case
        reset(store)
        store.config_path.write_bytes(raw)
        report = run("validate", "--format", "json")
        findings = [f for f in json.loads(report.stdout)["findings"] if f["severity"] == "error"]
        assert {f["code"] for f in findings} <= {"L011"}, findings
        if bad is None:
            assert len(findings) == 1, findings
        else:
            assert len(findings) == len(bad), (findings, bad)
            for key in bad:
                assert any(f"setting {quoted(key)} " in f["message"] for f in findings), key
        assert report.exit_code == (1 if findings else 0)
        for lesson_id, asked in (
            ("good-file", ["--file", "src/a.py"]),
            ("good-cmd", ["--cmd", COMMAND]),
        ):
            # One call each: a valid max_tokens of 0 still shows the top rule of a call.
            query = run("query", *asked, "--json")
            assert query.exit_code == 0, query.output
            assert lesson_id in {hit["id"] for hit in json.loads(query.stdout)["lessons"]}
        for harness in HARNESSES:
            for rule, calls in (
                (FILE_RULE, file_calls(harness, store.root)),
                (COMMAND_RULE, command_calls(harness, store.root)),
            ):
                forget_sessions(store)
                assert rule in delivered(harness, calls), (harness, raw[:200])
        assert not log_path(store.root).exists()
        examples.append(bad)

    check()
    counted(examples, CONFIG_EXAMPLES)
    whole = sum(1 for bad in examples if bad is None)
    settings = sum(len(bad) for bad in examples if bad is not None)
    print(f"config: {whole} files that do not load, {settings} bad settings")
    assert whole >= 10
    assert settings >= CONFIG_EXAMPLES
