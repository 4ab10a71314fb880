"""``lessons review`` over the code a branch changes, on a real repo with real commits:
the lessons its files and added commands bring up, most specific first, and the
triggers it leaves on deleted or renamed files."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from lessons_core.review.diff import added_lines, changed_files
from lessons_core.review.github import PER_LEVEL, data, prop
from lessons_core.review.ranges import resolve_range
from lessons_core.store.layout import Layout
from tests.conftest import git, make_repo, run
from tests.lesson_graphs import write_lesson
from tests.review_branch import branch_repo, write


@pytest.fixture
def branch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    layout = branch_repo(tmp_path / "repo")
    monkeypatch.chdir(layout.root)
    return layout


def _review(*args: str) -> dict:  # type: ignore[type-arg]
    result = run("review", *args, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


def test_lessons_that_apply_most_specific_first_with_what_they_matched(branch: Layout) -> None:
    """The exact path before `src/db/*.py` before `src/db/**` (file tier), then the
    command lessons; each names the file and the first added line, or the command."""
    code = _review("main..HEAD")["code"]
    assert [m["id"] for m in code["lessons"]] == [
        "db-models", "db-index", "db-all", "deploy-force", "db-migrate",
    ]  # fmt: skip
    first = code["lessons"][0]
    assert first["forbid"] == r"\bDROP TABLE\b"
    assert first["matches"] == [
        {"via": "file", "trigger": "src/db/models.py", "file": "src/db/models.py", "line": 2,
         "broad": False},
    ]  # fmt: skip
    force = next(m for m in code["lessons"] if m["id"] == "deploy-force")
    assert force["enforce"] is True
    assert force["matches"] == [
        {"via": "command", "trigger": "git push --force", "file": "scripts/deploy.sh",
         "line": 4, "command": "git push --force origin main",
         "part": "git push --force origin main", "broad": False},
    ]  # fmt: skip
    assert code["commands"] == [
        {"file": ".github/workflows/ci.yml", "line": 11, "command": "alembic upgrade head",
         "lessons": ["db-migrate"]},
        {"file": "scripts/deploy.sh", "line": 4, "command": "git push --force origin main",
         "lessons": ["deploy-force"]},
    ]  # fmt: skip
    statuses = {(f["status"], f["old"], f["new"]) for f in code["files"]}
    assert ("R", "src/util/paths.py", "src/common/paths.py") in statuses
    assert ("D", "src/legacy/old.py", "src/legacy/old.py") in statuses
    assert not any(f["new"].startswith(".lessons/") for f in code["files"])


def test_deleted_and_renamed_files_name_the_trigger_and_its_fix(branch: Layout) -> None:
    moved = {m["id"]: m for m in _review("main..HEAD")["code"]["moved"]}
    assert set(moved) == {"legacy-old", "util-paths"}
    gone = moved["legacy-old"]
    assert (gone["change"], gone["glob"], gone["still_matches"], gone["needs_fix"]) == (
        "deleted", "src/legacy/old.py", 0, True,
    )  # fmt: skip
    assert 'remove it from "files" in .lessons/lessons/legacy-old.json' in gone["fix"]
    assert "lessons deprecate legacy-old" in gone["fix"]
    renamed = moved["util-paths"]
    assert renamed["new"] == "src/common/paths.py"
    assert renamed["fix"] == (
        "in .lessons/lessons/util-paths.json, change the file trigger 'src/util/paths.py' "
        "to 'src/common/paths.py'"
    )


def test_a_glob_that_follows_the_file_or_still_matches_needs_no_fix(branch: Layout) -> None:
    """A rename a glob still matches is not listed; a deletion under a glob that still
    matches other files is listed as a check, not a fix."""
    root = branch.root
    git(root, "mv", "src/db/session.py", "src/db/sessions.py")
    git(root, "rm", "-q", "src/db/models.py")
    git(root, "commit", "-qm", "more")
    moved = _review("HEAD~1..HEAD")["code"]["moved"]
    assert [(m["id"], m["change"], m["needs_fix"]) for m in moved] == [
        ("db-models", "deleted", True),
        ("db-all", "deleted", False),
        ("db-index", "deleted", False),
    ]
    assert moved[1]["fix"].startswith("none needed: 'src/db/**' still matches 1 file")


def test_the_lesson_added_in_the_branch_is_in_both_parts(branch: Layout) -> None:
    data = _review("main..HEAD")
    assert [(c["change"], c["id"]) for c in data["changes"]] == [("added", "db-index")]
    assert "db-index" in [m["id"] for m in data["code"]["lessons"]]


def test_base_alone_reviews_the_working_tree_uncommitted_edits_included(branch: Layout) -> None:
    root = branch.root
    (root / "src/db/session.py").write_text("SESSION = None\nPOOL = 5\n")
    code = _review("HEAD")["code"]
    assert [(f["status"], f["new"]) for f in code["files"]] == [("M", "src/db/session.py")]
    db_all = next(m for m in code["lessons"] if m["id"] == "db-all")
    assert db_all["matches"][0]["line"] == 2


def test_a_range_names_the_lessons_only_the_working_tree_holds_and_how_to_include_them(
    branch: Layout,
) -> None:
    """A lesson just added (untracked) or edited (uncommitted) is not in the range's head:
    the review says so, with the command that includes them, instead of a bare "0
    lessons apply"; once committed, nothing is said."""
    write_lesson(branch, "paths-new", "Use pathlib for paths.", files=["src/db/models.py"])
    write_lesson(branch, "legacy-old", "Keep OLD at 2 now.", files=["src/legacy/old.py"])
    data = _review("main..HEAD")
    assert data["pending"] == {"ids": ["legacy-old", "paths-new"], "command": "lessons review main"}
    text = run("review", "main..HEAD").stdout
    assert (
        "The working tree holds 2 lessons that HEAD does not have (uncommitted or untracked: "
        "legacy-old, paths-new), left out of this review; 'lessons review main' reviews "
        "against the working tree and includes them"
    ) in text
    assert "paths-new" in {m["id"] for m in _review("main")["code"]["lessons"]}
    assert _review("main")["pending"] is None  # the working tree is what it reviews
    git(branch.root, "add", "-A")
    git(branch.root, "commit", "-qm", "lessons")
    assert _review("main..HEAD")["pending"] is None


def test_a_range_reviews_from_the_merge_base(branch: Layout) -> None:
    """Work landed on main after the branch point is not the branch's change, with two
    dots as with three (as `lessons check` reads a range)."""
    root = branch.root
    git(root, "checkout", "-q", "main")
    write(root, {"src/db/session.py": "SESSION = 'main moved on'\n"})
    git(root, "commit", "-qam", "main moves on")
    git(root, "checkout", "-q", "feature")
    merge_base = git(root, "merge-base", "main", "feature").strip()
    for given in ("main..feature", "main...feature"):
        data = _review(given)
        assert "src/db/session.py" not in {f["new"] for f in data["code"]["files"]}
        assert data["base_how"] == "the merge base of main and feature"
        assert (data["base"], data["head_ref"]) == (merge_base, "feature")
    assert "src/db/session.py" in {f["new"] for f in _review("main")["code"]["files"]}


def test_text_lists_rule_flags_matches_and_fixes(branch: Layout) -> None:
    out = run("review", "main..HEAD").stdout
    assert "Lessons for the code changes" in out
    assert "5 changed files · 2 added commands · 5 lessons apply · 2 triggers to fix" in out
    assert "'deploy-force':\n  Never force-push main; open a revert instead.\n" in out
    assert "- enforced: every matching command is refused" in out
    assert "- forbid: '\\bDROP TABLE\\b' must not be added to its files" in out
    assert (
        "- command 'git push --force' matched 'git push --force origin main' in "
        "'scripts/deploy.sh:4'"
    ) in out
    assert "- fix: in .lessons/lessons/util-paths.json, change the file trigger" in out
    code = out[out.index("Lessons for the code changes") :]
    assert code.index("'db-models':") < code.index("'db-index':") < code.index("'db-all':")


def test_unknown_ref_is_named_with_the_fix(branch: Layout) -> None:
    result = run("review", "main..nope")
    assert result.exit_code != 0
    assert "'nope' names no commit in" in result.stderr
    assert "pass a branch, tag or sha that this clone has" in result.stderr


def test_a_shallow_clone_says_to_fetch_more_history(branch: Layout, tmp_path: Path) -> None:
    """CI's default checkout has one commit: the base is not in it."""
    base = git(branch.root, "rev-parse", "main").strip()
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", "--branch", "feature",
         f"file://{branch.root}", str(clone)],
        check=True, capture_output=True,
    )  # fmt: skip
    result = subprocess.run(
        [str(Path(__file__).parents[1] / ".venv/bin/lessons"), "review", f"{base}..HEAD"],
        cwd=clone, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode != 0
    assert f"'{base}' names no commit in this shallow clone" in result.stderr
    assert "fetch more history" in result.stderr
    assert "fetch-depth: 0" in result.stderr


def test_markdown_neutralises_rule_text(branch: Layout) -> None:
    """No mention, issue link, HTML, entity, heading or code fence from a rule."""
    write_lesson(
        branch,
        "db-hostile",
        "Ask @octocat about #12 <img src=x onerror=alert(1)> &amp; ```\n# not a heading",
        files=["src/db/models.py"],
    )
    git(branch.root, "add", "-A")
    git(branch.root, "commit", "-qm", "hostile")
    out = run("review", "main..HEAD", "--format", "markdown").stdout
    assert "@&#8203;octocat" in out
    assert "@octocat" not in out
    assert "\\#&#8203;12" in out
    assert "<" not in out.replace("\\<", "")
    assert "\\<img src=x onerror=alert\\(1\\)\\>" in out
    assert "\\&amp;" in out
    assert "```" not in out.replace("\\`\\`\\`", "")
    assert "\n# not a heading" not in out


def test_github_annotations_on_the_changed_files(branch: Layout) -> None:
    out = run("review", "main..HEAD", "--format", "github").stdout
    lines = out.splitlines()
    assert (
        "::notice file=src/db/models.py,line=2,title=lesson db-models::Add a migration with "
        "every model change. [forbids '\\bDROP TABLE\\b'] (file trigger 'src/db/models.py')"
    ) in lines
    assert (
        "::notice file=scripts/deploy.sh,line=4,title=lesson deploy-force::Never force-push "
        "main; open a revert instead. [enforced] (command trigger 'git push --force' matched "
        "the added command 'git push --force origin main')"
    ) in lines
    warning = next(line for line in lines if "util-paths" in line)
    assert warning.startswith(
        "::warning file=.lessons/lessons/util-paths.json,title=lesson util-paths%3A fix its "
        "trigger::'src/util/paths.py' was renamed to 'src/common/paths.py'"
    )
    assert all(line.startswith(("::notice ", "::warning ", "::error ")) for line in lines)


def test_github_escaping_follows_its_rules() -> None:
    assert data("100% sure\r\nnext") == "100%25 sure next"  # one line, % escaped
    assert data("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert data("ping @octocat") == "ping @\u200boctocat"
    assert prop("dir:a,b/x%.py") == "dir%3Aa%2Cb/x%25.py"


def test_github_cuts_each_level_at_what_github_shows(branch: Layout) -> None:
    root = branch.root
    for number in range(15):
        write_lesson(
            branch, f"db-many-{number:02}", f"Rule {number} on models.", files=["src/db/*.py"]
        )
    write(root, {"src/db/file,with:colon.py": "X = 1\n"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "many")
    lines = run("review", "main..HEAD", "--format", "github").stdout.splitlines()
    notices = [line for line in lines if line.startswith("::notice ")]
    assert len(notices) == PER_LEVEL
    assert notices[-1].startswith("::notice title=lessons review::")
    assert "more notices: the job summary" in notices[-1]
    assert any("file=src/db/file%2Cwith%3Acolon.py,line=1," in line for line in notices)


def test_review_reads_no_script_through_a_link_or_a_fifo(branch: Layout, tmp_path: Path) -> None:
    """With the working tree as head, a changed script that is a link out of the repo
    is not read (its commands are not the repo's), and one replaced by a FIFO neither
    makes the review wait nor fails it."""
    outside = tmp_path / "outside.sh"
    outside.write_text("#!/bin/sh\ngit push --force elsewhere\n")
    root = branch.root
    (root / "scripts/linked.sh").symlink_to(outside)
    git(root, "add", "scripts/linked.sh")
    (root / "scripts/deploy.sh").unlink()
    os.mkfifo(root / "scripts/deploy.sh")
    code = _review("HEAD")["code"]
    assert [(f["status"], f["new"]) for f in code["files"]] == [
        ("M", "scripts/deploy.sh"),
        ("A", "scripts/linked.sh"),
    ]
    assert code["commands"] == []


def test_added_lines_of_files_named_with_spaces_quotes_and_non_ascii(tmp_path: Path) -> None:
    """git quotes some names in a patch and ends others with a tab: each is read back as
    the path the name-status list gives."""
    names = ["a b.sh", 'q"x.sh', "ü.sh", "tab\there.sh"]
    root = tmp_path / "repo"
    make_repo(root, dict.fromkeys(names, "a\n"))
    for name in names:
        (root / name).write_text("a\nrm -rf x\n")
    span = resolve_range(root, "HEAD")
    changes = changed_files(root, span)
    assert sorted(change.new for change in changes) == sorted(names)
    assert added_lines(root, span, changes) == {name: [2] for name in names}


def test_keywords_match_changed_paths_and_added_commands_after_triggers(
    branch: Layout,
) -> None:
    """A keyword is matched in a path's words and an added command's, as recall does, and
    ranks after every file and command trigger."""
    write_lesson(branch, "ops-deploy", "Announce deploys in the ops channel.", keywords=["deploy"])
    write_lesson(branch, "db-alembic", "Pin alembic in CI.", keywords=["alembic"])
    git(branch.root, "add", "-A")
    git(branch.root, "commit", "-qm", "keyword lessons")
    lessons = _review("main..HEAD")["code"]["lessons"]
    assert [m["id"] for m in lessons][-2:] == ["db-alembic", "ops-deploy"]
    by_id = {m["id"]: m["matches"] for m in lessons}
    assert by_id["ops-deploy"] == [
        {"via": "keyword", "trigger": "deploy", "file": "scripts/deploy.sh", "line": 4,
         "broad": False},
    ]  # fmt: skip
    assert by_id["db-alembic"] == [
        {"via": "keyword", "trigger": "alembic", "file": ".github/workflows/ci.yml", "line": 11,
         "command": "alembic upgrade head", "part": None, "broad": False},
    ]  # fmt: skip
