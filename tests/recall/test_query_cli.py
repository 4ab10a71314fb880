"""``lessons query``: plain block, JSON, --explain, sessions, path handling, monorepos."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lessons_cli.app import cli
from lessons_core.recall.rank import recall
from lessons_core.recall.render import render_block
from lessons_core.recall.types import RecallRequest
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project
from tests.recall.conftest import WriteLesson


@pytest.fixture
def store(layout: Layout, write_lesson: WriteLesson, monkeypatch: pytest.MonkeyPatch) -> Layout:
    """A store with a file, a command and a keyword lesson; the cwd is its root."""
    write_lesson("api-timeouts", "Keep request timeouts explicit.", files=("src/api/**",))
    write_lesson("api-client", "Reuse the shared client.", files=("src/api/client.ts",))
    write_lesson("git-push", "Run the tests before pushing.", commands=("git push",))
    write_lesson(
        "db-alembic", "Generate Alembic migrations, never by hand.", keywords=("schema change",)
    )
    monkeypatch.chdir(layout.root)
    return layout


def query(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["query", *args])
    return result.exit_code, result.stdout, result.stderr


def test_a_cut_rule_names_the_start_of_its_id_and_show_finds_it(
    store: Layout, write_lesson: WriteLesson
) -> None:
    """A rule shown cut ends in the start of its id no other active lesson's id has, and
    ``lessons show`` of that start prints the whole rule."""
    write_lesson(
        "api-client-retries-backoff",
        "Retry the client with backoff. Never retry a POST without an idempotency key.",
        files=("src/api/client.ts",),
    )
    code, out, _err = query("--file", "src/api/client.ts")
    assert code == 0
    assert "- Retry the client with backoff. … [api-client-retries]" in out
    shown = CliRunner().invoke(cli, ["show", "api-client-retries"])
    assert "idempotency key" in shown.stdout


def test_plain_output_is_exactly_the_block(store: Layout) -> None:
    """Plain output is what an agent is shown, nothing more."""
    code, out, err = query("--file", "src/api/client.ts")
    expected = render_block(
        recall(store, RecallRequest(files=("src/api/client.ts",)), config=Config())
    )
    assert (code, out, err) == (0, expected + "\n", "")
    assert "- Reuse the shared client.\n" in out
    assert out.index("shared client") < out.index("timeouts explicit")


def test_nothing_matched_prints_nothing(store: Layout) -> None:
    """No applicable rule: empty stdout, exit 0."""
    assert query("--file", "docs/index.md") == (0, "", "")


def test_json_shape(store: Layout) -> None:
    """``--json``: lessons in rank order with id, rule, via, trigger, terms; and more."""
    code, out, err = query(
        "--file", "src/api/client.ts", "--cmd", "git push", "--prompt", "a schema change", "--json"
    )
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert set(data) == {"lessons", "more"}
    assert data["more"] == 1  # three trigger matches a recall by default
    assert [(x["id"], x["via"], x["trigger"]) for x in data["lessons"]] == [
        ("api-client", "file", "src/api/client.ts"),
        ("api-timeouts", "file", "src/api/**"),
        ("git-push", "command", "git push"),
    ]
    first = data["lessons"][0]
    assert set(first) >= {"id", "rule", "via", "trigger", "terms", "gate", "matched", "broad"}
    assert (first["terms"], first["broad"]) == ([], False)


def test_limit_and_more(store: Layout) -> None:
    """``--limit 1`` shows the best rule and counts the rest."""
    code, out, _ = query("--file", "src/api/client.ts", "--limit", "1", "--json")
    data = json.loads(out)
    assert (code, [x["id"] for x in data["lessons"]], data["more"]) == (0, ["api-client"], 1)


@pytest.mark.parametrize(
    "spelling", ["src/api/client.ts", "./src/api/client.ts", "src\\api\\client.ts"]
)
def test_path_spellings(store: Layout, spelling: str) -> None:
    """Relative, ``./`` and backslash spellings of one path give the same answer."""
    _, out, _ = query("--file", spelling, "--json")
    assert [x["id"] for x in json.loads(out)["lessons"]] == ["api-client", "api-timeouts"]


def test_absolute_path_and_subdirectory_cwd(store: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    """From a subdirectory, relative paths are taken from there; absolute ones work too."""
    (store.root / "src" / "api").mkdir(parents=True)
    monkeypatch.chdir(store.root / "src")
    for spelling in ("api/client.ts", str(store.root / "src" / "api" / "client.ts")):
        _, out, _ = query("--file", spelling, "--json")
        assert json.loads(out)["lessons"][0]["id"] == "api-client"


def test_monorepo_uses_the_nearest_store(
    store: Layout, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A file in a package with its own .lessons/ is matched against that store."""
    package = init_project(store.root / "packages" / "web")[0]
    (package.root / ".lessons" / "lessons" / "web-api.json").write_text(
        json.dumps(
            {
                "id": "web-api",
                "rule": "Use the web fetch wrapper.",
                "topics": ["web"],
                "triggers": {"files": ["src/api/**"], "commands": [], "keywords": []},
                "status": "active",
                "created": "2026-01-01",
            }
        )
    )
    _, out, _ = query("--file", "packages/web/src/api/client.ts", "--json")
    assert [x["id"] for x in json.loads(out)["lessons"]] == ["web-api"]
    assert json.loads(out)["lessons"][0]["matched"] == "src/api/client.ts"


def test_session_suppresses_repeats(store: Layout) -> None:
    """``--session``: the second identical query in a session prints nothing."""
    first = query("--file", "src/api/client.ts", "--session", "abc")
    second = query("--file", "src/api/client.ts", "--session", "abc")
    other = query("--file", "src/api/client.ts", "--session", "xyz")
    assert "Reuse the shared client." in first[1]
    assert second == (0, "", "")
    assert other[1] == first[1]


def test_explain_lists_every_lesson(store: Layout, write_lesson: WriteLesson) -> None:
    """``--explain`` accounts for matched, unmatched, inactive and broken lessons."""
    (store.lessons_dir / "broken.json").write_text("{")
    code, out, err = query("--file", "src/api/client.ts", "--limit", "1", "--explain")
    assert (code, err) == (0, "")
    assert "  1. api-client [shown]" in out
    assert "  2. api-timeouts [cut by budget]" in out
    assert "key: tier 0 file | specificity (1,3,2,1,0,3,17)" in out
    assert "not matched (2):" in out
    assert "       - command git push: no command in the request" in out
    assert "broken files, skipped (1):" in out
    assert "shown 1, cut by budget 1" in out


def test_explain_json_carries_rank_keys(store: Layout) -> None:
    """``--explain --json`` gives each lesson its outcome, checks and rank key."""
    _, out, _ = query("--file", "src/api/client.ts", "--explain", "--json")
    data = json.loads(out)
    lessons = {x["id"]: x for x in data["lessons"]}
    assert lessons["api-client"]["outcome"] == "shown"
    assert lessons["api-client"]["rank_key"]["specificity"] == [1, 3, 2, 1, 0, 3, 17]
    assert lessons["git-push"]["outcome"] == "not matched"
    assert data["shown"] == ["api-client", "api-timeouts"]


def test_explain_reports_session_exclusion(store: Layout) -> None:
    """A rule already shown in the session is explained as such, and explain records nothing."""
    query("--file", "src/api/client.ts", "--session", "abc", "--limit", "1")
    _, out, _ = query("--file", "src/api/client.ts", "--session", "abc", "--explain")
    assert "api-client [shown earlier in this session]" in out
    assert "api-timeouts [shown]" in out
    _, again, _ = query("--file", "src/api/client.ts", "--session", "abc")
    assert "Keep request timeouts explicit." in again


def test_explain_reports_a_spent_session_budget(store: Layout) -> None:
    """With the session's tokens spent, explain says which rules wait for the next
    context window and which still speak. A keyword's rule spends them; the rule about
    the very command run draws on none (the next test)."""
    store.config_path.write_text('{"max_session_tokens": 1}\n')
    query("--prompt", "a schema change", "--session", "abc")
    _, out, _ = query("--file", "src/api/client.ts", "--session", "abc", "--explain")
    assert "api-client [shown]" in out
    assert "api-timeouts [held back: session budget spent]" in out
    assert out.endswith("shown 1, cut by budget 0, held back: session budget spent 1\n")


def test_rules_about_the_very_command_run_draw_on_no_session_budget(store: Layout) -> None:
    """The session budget is the folder, keyword and prompt rules': a rule about the very
    command run (or file touched) speaks without spending it, so after one the folder
    rule still speaks."""
    store.config_path.write_text('{"max_session_tokens": 1}\n')
    query("--cmd", "git push", "--session", "abc")
    _, out, _ = query("--file", "src/api/client.ts", "--session", "abc", "--explain")
    assert "api-client [shown]" in out
    assert "api-timeouts [shown]" in out


def test_broken_files_warn_on_stderr(store: Layout) -> None:
    """A broken lesson file is named on stderr; the others are still served on stdout."""
    (store.lessons_dir / "broken.json").write_text("{")
    code, out, err = query("--file", "src/api/client.ts")
    assert code == 0
    assert "Reuse the shared client." in out
    assert err.startswith("warning: skipped ")
    assert "broken.json" in err


def test_query_needs_something_to_match(store: Layout) -> None:
    """No --file, --cmd or --prompt is a usage error."""
    code, out, err = query()
    assert (code, out) == (2, "")
    assert "give at least one of --file, --cmd or --prompt" in err


def test_help_has_an_example() -> None:
    """``lessons query --help`` documents every option with an example."""
    code, out, _ = query("--help")
    assert code == 0
    for option in ("--file", "--cmd", "--prompt", "--session", "--limit", "--json", "--explain"):
        assert option in out
    assert "Example:" in out


def run_lessons(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lessons_cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )


def test_files_in_two_stores_are_refused(store: Layout) -> None:
    """Files under different .lessons/ stores exit 1 with a message naming both."""
    init_project(store.root / "packages" / "web")
    done = run_lessons(store.root, "query", "--file", "src/a.ts", "--file", "packages/web/b.ts")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "different lesson stores" in done.stderr
    assert "query each store separately" in done.stderr


def test_outside_any_store_is_an_error(tmp_path: Path) -> None:
    """No .lessons/ above the file: exit 1 and the fix ('lessons init')."""
    done = run_lessons(tmp_path, "query", "--file", "x.py")
    assert (done.returncode, done.stdout) == (1, "")
    assert "run 'lessons init'" in done.stderr


def test_a_prompt_naming_a_file_brings_its_rules_as_the_hook_would(store: Layout) -> None:
    """``--prompt`` finds the files a prompt names, as the prompt hook does; --explain
    and --json say how the rule came."""
    code, out, _ = query("--prompt", "why does `src/api/client.ts:40` retry?")
    assert code == 0
    assert "- Reuse the shared client. (named in the prompt: src/api/client.ts)" in out
    code, out, _ = query("--prompt", "fix src/api/client.ts", "--json")
    assert [(hit["id"], hit["via"]) for hit in json.loads(out)["lessons"]] == [
        ("api-client", "named"),
        ("api-timeouts", "named"),
    ]
    code, out, _ = query("--prompt", "fix src/api/client.ts", "--explain")
    assert "via named: src/api/client.ts (src/api/client.ts)" in out
