"""Broad triggers: decided when the index is built, held back when something more specific
matches, one a call and a few a session."""

from __future__ import annotations

import pytest

from lessons_core.delivery.session_recall import recall_once
from lessons_core.index.cache import load_index
from lessons_core.matching import thresholds
from lessons_core.matching.breadth import crowded, routine_command, sweeping_glob
from lessons_core.matching.commands import compile_command
from lessons_core.matching.regex_literals import required_run
from lessons_core.recall.explain import HELD, SHOWN, explain
from lessons_core.recall.rank import recall
from lessons_core.recall.types import RecallRequest
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from tests.recall.conftest import WriteLesson

PATH = "src/api/client.ts"
EDIT = RecallRequest(files=(PATH,))


def flags(layout: Layout) -> dict[str, bool]:
    """Each trigger in the index, by text, with its broad flag."""
    index, _broken = load_index(layout)
    found = {entry.pattern: entry.broad for entry in index.commands}
    for entries in (*index.exact.values(), *index.by_prefix.values()):
        found.update({entry.glob: entry.broad for entry in entries})
    for keyword_entries in index.keywords.values():
        found.update({entry.keyword: entry.broad for entry in keyword_entries})
    return found


@pytest.mark.parametrize(
    ("glob", "sweeping"),
    [
        ("**", True),
        ("src/**", True),
        ("**/*.ts", True),
        ("src/**/*.ts", True),
        ("tests/**/*.test.ts", True),
        ("src/api/**", False),  # two folders pinned
        ("src/**/path*.ts", False),  # a name in the leaf
        ("**/package.json", False),
        ("*.md", False),  # the root only
        ("src/*.ts", False),  # one folder, no deeper
        ("src/api/client.ts", False),
    ],
)
def test_a_glob_sweeps_a_tree_only_by_file_type_below_one_folder(glob: str, sweeping: bool) -> None:
    """``**`` under at most one literal folder, and a leaf that is a wildcard or an
    extension: the whole tree by file type."""
    assert sweeping_glob(glob) is sweeping


@pytest.mark.parametrize(
    ("pattern", "routine"),
    [
        ("git", True),  # git status, git diff, git log, ...
        (r"\b(vitest|test)\b", True),  # npm test, pnpm test, make test, ...
        ("(?:sed|cat)", True),
        ("git push", False),  # one ordinary command: a rule about that command
        ("git push --force", False),
        ("scripts/release.sh", False),
    ],
)
def test_a_command_pattern_is_routine_when_it_fires_on_several_probes(
    pattern: str, routine: bool
) -> None:
    """Firing on two or more of the probe commands makes a pattern about a family of
    commands rather than one."""
    assert thresholds.BROAD_RECALL_PROBES == 2
    assert routine_command(required_run(pattern), compile_command(pattern).matches) is routine


def test_crowding_spares_exact_paths() -> None:
    """Six lessons on one folder glob crowd it; six on one file do not: they are all about
    that file."""
    assert thresholds.CROWDED_TRIGGER_LESSONS == 6
    assert crowded(6, exact=False)
    assert not crowded(5, exact=False)
    assert not crowded(60, exact=True)


def test_the_index_stores_each_triggers_breadth(layout: Layout, write_lesson: WriteLesson) -> None:
    """Globs, command patterns and keywords carry the flag; a trigger six lessons share
    becomes broad when the sixth arrives."""
    write_lesson("a-sweep", "Keep modules small.", files=("src/**",))
    write_lesson("a-folder", "Give requests a timeout.", files=("src/api/**",))
    write_lesson("a-exact", "Reuse the client.", files=(PATH,))
    write_lesson("b-git", "Sign commits.", commands=("git",))
    write_lesson("b-push", "Run the tests first.", commands=("git push",))
    write_lesson("c-common", "Mind the data.", keywords=("the data",))
    write_lesson("c-term", "Migrate with alembic.", keywords=("alembic",))
    assert flags(layout) == {
        "src/**": True,
        "src/api/**": False,
        PATH: False,
        "git": True,
        "git push": False,
        "the data": True,
        "alembic": False,
    }
    for n in range(5):
        write_lesson(f"d-{n}", f"Document route {n}.", files=("src/api/**",), created="2025-01-01")
    assert flags(layout)["src/api/**"] is True


def test_a_broad_match_waits_while_a_specific_one_applies(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """Editing a file a folder rule covers: the sweeping rule is held back and counted as
    more; on a file only it covers, it is shown."""
    write_lesson("api-timeouts", "Give requests a timeout.", files=("src/api/**",))
    write_lesson("code-small", "Keep modules small.", files=("src/**",))
    found = recall(layout, EDIT, config=Config())
    assert ([h.lesson_id for h in found.hits], found.more) == (["api-timeouts"], 1)
    alone = recall(layout, RecallRequest(files=("src/db/models.ts",)), config=Config())
    assert [(h.lesson_id, h.broad) for h in alone.hits] == [("code-small", True)]


def test_a_read_leaves_broad_matches_for_the_change(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """A read of a file only broad rules cover is silent, and counts nothing as more; the
    specific rule about it speaks; the change that follows brings the broad one, and a
    gated broad rule speaks on the read too."""
    write_lesson("api-timeouts", "Give requests a timeout.", files=("src/api/**",))
    write_lesson("code-small", "Keep modules small.", files=("src/**",))
    reading = RecallRequest(files=("src/db/models.ts",), read=True)
    quiet = recall(layout, reading, config=Config())
    assert (quiet.hits, quiet.more, quiet.matched) == ((), 0, ("code-small",))
    specific = recall(layout, EDIT._replace(read=True), config=Config())
    assert ([h.lesson_id for h in specific.hits], specific.more) == (["api-timeouts"], 0)
    change = recall(layout, RecallRequest(files=("src/db/models.ts",)), config=Config())
    assert [h.lesson_id for h in change.hits] == ["code-small"]
    write_lesson("code-gated", "Run the formatter.", files=("src/**",), gate=True)
    gated = recall(layout, reading, config=Config())
    assert [h.lesson_id for h in gated.hits] == ["code-gated"]


def test_one_broad_match_a_call(layout: Layout, write_lesson: WriteLesson) -> None:
    """With only broad matches, ``max_broad_matches`` of them (one by default) are shown."""
    for n, glob in enumerate(("src/**", "**/*.ts", "src/**/*.ts")):
        write_lesson(f"broad-{n}", f"Broad rule {n}.", files=(glob,))
    found = recall(layout, EDIT, config=Config())
    assert (len(found.hits), found.more) == (1, 2)
    wider = recall(layout, EDIT, config=Config(max_broad_matches=2))
    assert (len(wider.hits), wider.more) == (2, 1)


def test_a_few_broad_rules_a_session(layout: Layout, write_lesson: WriteLesson) -> None:
    """A session sees ``max_broad_per_session`` broad rules (three by default); then a
    call with only broad matches is silent."""
    for n in range(5):
        write_lesson(f"broad-{n}", f"Broad rule {n}.", files=("src/**",), created="2025-01-01")
    shown = [recall_once(layout, EDIT, "s", config=Config()).hits for _ in range(5)]
    assert [len(hits) for hits in shown] == [1, 1, 1, 0, 0]
    assert [h.lesson_id for h in recall_once(layout, EDIT, "other", config=Config()).hits] == [
        "broad-0"
    ]


def test_a_gated_lesson_is_never_held_back(layout: Layout, write_lesson: WriteLesson) -> None:
    """``gate: true`` on a broad trigger still speaks beside a specific match."""
    write_lesson("api-timeouts", "Give requests a timeout.", files=("src/api/**",))
    write_lesson("code-gated", "Never commit secrets.", files=("src/**",), gate=True)
    found = recall(layout, EDIT, config=Config())
    assert [h.lesson_id for h in found.hits] == ["api-timeouts", "code-gated"]


def test_a_lesson_is_listed_at_its_specific_match(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """A sweeping glob and a keyword both match: the lesson counts as specific, labelled
    by its keyword."""
    write_lesson("api-timeouts", "Give requests a timeout.", files=("src/api/**",))
    write_lesson("code-webhook", "Retry webhooks.", files=("src/**",), keywords=("webhook",))
    found = recall(
        layout, RecallRequest(files=(PATH,), prompt="fix the webhook retries"), config=Config()
    )
    assert [(h.lesson_id, h.via, h.broad) for h in found.hits] == [
        ("api-timeouts", "file", False),
        ("code-webhook", "keyword", False),
    ]


def test_explain_names_a_held_back_rule(layout: Layout, write_lesson: WriteLesson) -> None:
    """``--explain`` gives a held-back rule its own outcome."""
    write_lesson("api-timeouts", "Give requests a timeout.", files=("src/api/**",))
    write_lesson("code-small", "Keep modules small.", files=("src/**",))
    outcomes = {v.lesson_id: v.outcome for v in explain(layout, EDIT, config=Config()).verdicts}
    assert outcomes == {"api-timeouts": SHOWN, "code-small": HELD}
