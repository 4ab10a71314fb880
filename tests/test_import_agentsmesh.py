"""``lessons import agentsmesh``: a small hand-written graph, then the real corpus."""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

import orjson
from click.testing import Result

from lessons_core.importers.apply import apply_plan
from lessons_core.importers.plan import ImportPlan, NoteKind
from lessons_core.matching.commands import compile_command
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.store.model import Lesson, Triggers
from lessons_core.store.topics import load_topics
from tests.conftest import corpus_dir, run


def corpus_file() -> Path:
    return corpus_dir() / "lessons.json"


def small_graph() -> dict[str, Any]:
    return {
        "version": 2,
        "topics": {
            "build": {"summary": "Building the package."},
            "Odd_Topic": {"summary": "A topic id this store cannot keep."},
        },
        "triggers": {
            "t-glob": {"kind": "file_glob", "pattern": "src/*/{a,b}.ts"},
            "t-neg": {"kind": "file_glob", "pattern": "!src/**"},
            "t-cmd": {"kind": "command_pattern", "pattern": "git log v"},
            "t-cmd-sym": {"kind": "command_pattern", "pattern": r"--prefix=\/opt\/"},
            "t-look": {"kind": "command_pattern", "pattern": "(?<=git )push"},
            "t-kw": {"kind": "keyword", "pattern": "release notes"},
        },
        "lessons": {
            "build-old": {
                "rule": "Run the old build script before releasing.",
                "topics": ["build"],
                "triggers": ["t-cmd"],
                "evidence": ["pr:1"],
                "status": "superseded",
                "supersededBy": "Build_New",
                "createdAt": "2026-01-02T10:11:12Z",
            },
            "Build_New": {
                "rule": "Run make dist before releasing; it rebuilds the bundle.",
                "rationale": "The bundle is committed.",
                "topics": ["build", "Odd_Topic"],
                "triggers": ["t-glob", "t-neg", "t-cmd-sym", "t-look", "t-kw", "t-missing"],
                "evidence": [],
                "status": "active",
                "createdAt": "2026-02-03",
                "scope": "always",
            },
            "build-gone": {
                "rule": "Never edit the generated changelog by hand.",
                "topics": ["build"],
                "triggers": ["t-kw"],
                "evidence": ["commit:abc"],
                "status": "deprecated",
                "createdAt": "2026-03-04",
            },
        },
    }


def write_graph(tmp_path: Path, graph: dict[str, Any]) -> Path:
    path = tmp_path / "lessons.json"
    path.write_text(json.dumps(graph))
    return path


def run_import(path: Path, *args: str) -> Result:
    return run("import", "agentsmesh", str(path), *args)


def test_small_graph_carries_every_field(repo: Layout, tmp_path: Path) -> None:
    """Ids, rules, rationale, topics, evidence, status, successor and date arrive."""
    result = run_import(write_graph(tmp_path, small_graph()))
    assert result.exit_code == 0, result.output
    lessons = load_graph(repo).lessons
    assert sorted(lessons) == ["build-gone", "build-new", "build-old"]
    old = lessons["build-old"]
    assert (old.status.value, old.superseded_by, old.created) == (
        "superseded",
        "build-new",
        "2026-01-02",
    )
    assert old.evidence == ("pr:1",)
    assert old.triggers.commands == ("(?:git log v)",)
    new = lessons["build-new"]
    assert new.rationale == "The bundle is committed."
    assert new.topics == ("build", "odd-topic")
    assert new.triggers.files == ("src/*/a.ts", "src/*/b.ts")
    assert new.triggers.commands == ("--prefix=/opt/",)
    assert new.triggers.keywords == ("release notes",)
    assert new.always is True  # scope 'always'
    assert old.always is False
    assert lessons["build-gone"].status.value == "deprecated"
    topics = load_topics(repo)
    assert topics["build"].summary == "Building the package."
    assert topics["odd-topic"].summary == "A topic id this store cannot keep."


def test_report_names_every_loss(repo: Layout, tmp_path: Path) -> None:
    """The JSON report lists each item not carried with its lesson and reason."""
    result = run_import(write_graph(tmp_path, small_graph()), "--json")
    assert result.exit_code == 0
    assert result.stderr == ""
    report = json.loads(result.stdout)
    lost = {(n["subject"], n["code"]) for n in report["not_carried"]}
    assert lost == {
        ("build-new", "glob"),
        ("build-new", "command"),
        ("build-new", "trigger-unknown"),
        ("build-old", "created-time"),
    }
    details = " ".join(n["detail"] for n in report["not_carried"])
    assert "'!src/**' is a negation" in details
    assert "'(?<=git )push' uses a lookaround" in details
    translated = {n["code"] for n in report["translated"]}
    assert translated >= {"lesson-id", "topic-id", "glob", "command-substring", "command-syntax"}
    assert report["lessons"]["created"] == ["build-gone", "build-new", "build-old"]


def test_text_report(repo: Layout, tmp_path: Path) -> None:
    """The plain report counts what was written and prints each loss in full, grouped
    by its reason."""
    result = run_import(write_graph(tmp_path, small_graph()))
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0].endswith(
        "(agentsmesh): 3 lessons (3 new, 0 updated, 0 unchanged), "
        "2 topic summaries (2 new, 0 updated, 0 unchanged)"
    )
    assert "not carried: 4" in lines
    glob = lines.index("  glob (1):")
    assert lines[glob + 1] == (
        "    build-new: file glob '!src/**' is a negation; a file trigger names the files it "
        "is about"
    )


def test_substring_wrapping_keeps_javascript_matches(repo: Layout, tmp_path: Path) -> None:
    """``git log v`` still fires on ``git log v1.2`` as it did in JavaScript."""
    run_import(write_graph(tmp_path, small_graph()))
    (pattern,) = load_graph(repo).lessons["build-old"].triggers.commands
    assert compile_command(pattern).matches("git log v1.2.0..HEAD")
    assert not compile_command(pattern).matches("git log --oneline")


def test_dry_run_writes_nothing(repo: Layout, tmp_path: Path) -> None:
    """``--dry-run`` reports the same counts and leaves the store as it was."""
    result = run_import(write_graph(tmp_path, small_graph()), "--dry-run")
    assert result.stdout.startswith("would import ")
    assert "3 lessons (3 new," in result.stdout
    assert load_graph(repo).lessons == {}
    assert not repo.topics_dir.exists()


def test_reimport_updates_what_changed(repo: Layout, tmp_path: Path) -> None:
    """A lesson changed at the source is rewritten; the others are left untouched."""
    graph = small_graph()
    path = write_graph(tmp_path, graph)
    run_import(path)
    graph["lessons"]["build-gone"]["rule"] = "Never edit CHANGELOG.md by hand."
    write_graph(tmp_path, graph)
    report = json.loads(run_import(path, "--json").stdout)
    assert report["lessons"] == {
        "created": [],
        "updated": ["build-gone"],
        "unchanged": ["build-new", "build-old"],
    }


def test_broken_existing_file_is_left_alone(repo: Layout, tmp_path: Path) -> None:
    """A lesson file that does not parse is never overwritten; the report says so."""
    repo.lessons_dir.mkdir(exist_ok=True)
    broken = repo.lesson_path("build-gone")
    broken.write_text("{ not json")
    report = json.loads(run_import(write_graph(tmp_path, small_graph()), "--json").stdout)
    assert broken.read_text() == "{ not json"
    assert {"code": "existing-file-broken", "subject": "build-gone"}.items() <= {
        **report["not_carried"][-1]
    }.items()
    assert "build-gone" not in report["lessons"]["created"]


def test_unknown_version_is_a_user_error(repo: Layout, tmp_path: Path) -> None:
    """A graph of another format version exits 1 naming the file and the key."""
    path = write_graph(tmp_path, {**small_graph(), "version": 7})
    result = run_import(path)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert f"{path} (key 'version'): format version 7" in result.stderr


def test_bad_lesson_is_a_user_error(repo: Layout, tmp_path: Path) -> None:
    """A lesson without a rule exits 1 naming the lesson's key; nothing is written."""
    graph = small_graph()
    del graph["lessons"]["build-gone"]["rule"]
    result = run_import(write_graph(tmp_path, graph))
    assert result.exit_code == 1
    assert "(key 'lessons.build-gone.rule'): must be a non-empty string" in result.stderr
    assert load_graph(repo).lessons == {}


def test_real_corpus_arrives_whole(repo: Layout) -> None:
    """All 576 real lessons arrive with their status, successor, date and every trigger
    but one: `pnpm exec`, a runner prefix that would fire on most of the project's
    commands, is reported as not carried."""
    source = json.loads(corpus_file().read_text())
    result = run_import(corpus_file(), "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    [broad] = report["not_carried"]
    assert broad["code"] == "command-broad"
    assert "'pnpm exec' is a runner prefix" in broad["detail"]
    listed = json.loads(run("list", "--json").stdout)["lessons"]
    assert len(listed) == 576
    assert collections.Counter(x["status"] for x in listed) == {
        "active": 523,
        "superseded": 43,
        "deprecated": 10,
    }
    lessons = load_graph(repo).lessons
    for lesson_id, raw in source["lessons"].items():
        lesson = lessons[lesson_id]
        assert lesson.status.value == raw["status"]
        assert lesson.superseded_by == raw.get("supersededBy")
        assert lesson.created == raw["createdAt"]
        assert lesson.rule == raw["rule"]
        kinds = collections.Counter(source["triggers"][t]["kind"] for t in raw["triggers"])
        dropped = int(lesson_id == broad["subject"])
        assert len(lesson.triggers.commands) == kinds["command_pattern"] - dropped
        assert len(lesson.triggers.keywords) == kinds["keyword"]
        assert len(lesson.triggers.files) >= kinds["file_glob"]
    assert len(load_topics(repo)) == len(source["topics"])


def test_real_corpus_reimport_changes_no_byte(repo: Layout) -> None:
    """Importing the real corpus twice leaves every file's bytes and mtime as they were."""
    run_import(corpus_file())
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in repo.base.rglob("*.json")}
    report = json.loads(run_import(corpus_file(), "--json").stdout)
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in repo.base.rglob("*.json")}
    assert after == before
    assert len(report["lessons"]["unchanged"]) == 576
    assert report["lessons"]["created"] == report["lessons"]["updated"] == []
    assert orjson.loads(repo.lesson_path(report["lessons"]["unchanged"][0]).read_bytes())


def test_superseded_without_successor_arrives_deprecated(repo: Layout, tmp_path: Path) -> None:
    """Our format needs a successor for 'superseded'; without one the lesson is deprecated."""
    graph = small_graph()
    del graph["lessons"]["build-old"]["supersededBy"]
    report = json.loads(run_import(write_graph(tmp_path, graph), "--json").stdout)
    assert load_graph(repo).lessons["build-old"].status.value == "deprecated"
    assert {"code": "successor-none", "subject": "build-old"}.items() <= next(
        n for n in report["not_carried"] if n["code"] == "successor-none"
    ).items()


def test_plan_never_writes_an_invalid_lesson(repo: Layout) -> None:
    """A planned lesson the store would reject is reported and not written."""
    bad = Lesson("ok-id", "A rule.", ("t",), Triggers(keywords=("kw",)), created="yesterday")
    result = apply_plan(repo, ImportPlan("test", "test", (bad,)))
    assert result.lessons.created == []
    assert [(n.code, n.subject) for n in result.notes_of(NoteKind.NOT_CARRIED)] == [
        ("invalid", "ok-id")
    ]
    assert not repo.lesson_path("ok-id").exists()
