"""`lessons check`: forbid patterns over the lines a change adds, in real git repos."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from lessons_core.check.diff_lines import parse_diff, unquote
from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project
from tests.conftest import INSTALL_BIN, git, make_repo, run

ROOT = Path(__file__).resolve().parent.parent


def forbid_lesson(
    layout: Layout,
    lesson_id: str,
    pattern: str,
    files: list[str],
    rule: str = "Never leave print() calls in src; use the logger.",
    status: str = "active",
) -> None:
    """A lesson file written as docs/format.md describes it, with a forbid pattern."""
    data = {
        "created": "2026-12-01",
        "evidence": [],
        "forbid": pattern,
        "id": lesson_id,
        "rule": rule,
        "status": status,
        "topics": ["logging"],
        "triggers": {"commands": [], "files": files, "keywords": []},
    }
    path = layout.lessons_dir / f"{lesson_id}.json"
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    root = make_repo(tmp_path / "repo", {"src/app.py": "x = 1\n", "README.md": "# demo\n"})
    layout, _ = init_project(root)
    forbid_lesson(layout, "no-print", r"\bprint\(", ["src/**/*.py"])
    git(root, "add", ".lessons")
    git(root, "commit", "-q", "-m", "lessons")
    monkeypatch.chdir(root)
    return layout


def write(root: Path, rel: str, text: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)


def test_staged_change_adding_forbidden_text_is_a_finding(store: Layout) -> None:
    write(store.root, "src/app.py", "x = 1\ny = 2\nprint(x)\n")
    write(store.root, "README.md", "# demo\nprint(1)\n")  # no forbid rule covers it
    git(store.root, "add", "src/app.py", "README.md")
    result = run("check")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "src/app.py:3: Never leave print() calls in src; use the logger. (matched: 'print(') "
        "[lesson no-print]",
        "lessons check: 1 finding in 1 file; 1 forbid rule over 3 added lines of the staged "
        "changes",
    ]
    data = json.loads(run("check", "--json").stdout)
    assert data["ok"] is False
    assert data["checked"] == "staged"
    assert data["findings"] == [
        {
            "file": "src/app.py",
            "line": 3,
            "lesson": "no-print",
            "rule": "Never leave print() calls in src; use the logger.",
            "forbid": r"\bprint\(",
            "matched": "print(",
        }
    ]


def test_unstaged_text_and_what_the_file_held_before_are_not_checked(store: Layout) -> None:
    write(store.root, "src/old.py", "print('already here')\n")
    git(store.root, "add", "src/old.py")
    git(store.root, "commit", "-q", "-m", "old")
    write(store.root, "src/old.py", "print('already here')\nz = 3\n")
    git(store.root, "add", "src/old.py")
    write(store.root, "src/app.py", "print('not staged')\n")
    result = run("check")
    assert result.exit_code == 0, result.stdout
    assert "no findings; 1 forbid rule over 1 added line of the staged changes" in result.stdout


def test_inactive_lessons_and_other_files_are_left_out(store: Layout) -> None:
    forbid_lesson(store, "old-rule", "x = ", ["src/**/*.py"], status="deprecated")
    write(store.root, "lib/app.py", "print(1)\n")
    git(store.root, "add", "lib/app.py", ".lessons")
    result = run("check")
    assert result.exit_code == 0, result.stdout


def test_hard_diffs_are_parsed_to_the_right_files_and_lines(store: Layout) -> None:
    root = store.root
    spaced, latin1 = "src/with space.py", os.fsdecode(b"src/caf\xe9.py")
    write(root, "src/moved.py", "print('kept')\n" + "".join(f"v{i} = {i}\n" for i in range(20)))
    write(root, "src/gone.py", "a = 1\n")
    write(root, "src/blob.py", b"\x00\x01print(\x00")
    git(root, "add", "src")
    git(root, "commit", "-q", "-m", "files")
    # A rename with one line changed: only that line is added, at the new path.
    git(root, "mv", "src/moved.py", "src/renamed.py")
    text = (root / "src/renamed.py").read_text().replace("v5 = 5", "v5 = print(5)")
    write(root, "src/renamed.py", text)
    git(root, "rm", "-q", "src/gone.py")
    write(root, "src/blob.py", b"\x00\x02print(\x00print(")  # binary: no lines
    write(root, spaced, "a = 1\nprint(a)")  # no newline at end of file
    write(root, latin1, "print('latin-1 name')\n")
    # An added line that reads like a diff header is text of the file.
    write(root, "src/tricky.py", "++ b/src/other.py\n@@ -1 +1 @@\nprint(3)\n")
    git(root, "add", "src")
    result = run("check")
    assert result.exit_code == 1
    found = {
        (f["file"], f["line"], f["matched"])
        for f in json.loads(run("check", "--json").stdout)["findings"]
    }
    assert found == {
        ("src/renamed.py", 7, "print("),
        (spaced, 2, "print("),
        (latin1, 1, "print("),
        ("src/tricky.py", 3, "print("),
    }
    assert "src/caf\\udce9.py:1: " in result.stdout  # the byte shown, never printed raw


def test_parse_diff_follows_hunk_counts_and_quoted_names() -> None:
    out = (
        b'diff --git "a/t\\tab.py" "b/t\\tab.py"\n--- /dev/null\n+++ "b/t\\tab.py"\n'
        b"@@ -0,0 +1,2 @@\n+++ b/fake.py\n+--- a/x\n"
        b"diff --git a/d.py b/d.py\n--- a/d.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"
        b"diff --git a/n.py b/n.py\n--- a/n.py\n+++ b/n.py\n@@ -3 +3 @@\n-a\n"
        b"\\ No newline at end of file\n+b\r\n\\ No newline at end of file\n"
    )
    assert [tuple(line) for line in parse_diff(out)] == [
        ("t\tab.py", 1, "++ b/fake.py"),
        ("t\tab.py", 2, "--- a/x"),
        ("n.py", 3, "b"),
    ]
    assert unquote(b'"b/caf\\303\\251 \\"q\\".py"') == 'b/café "q".py'.encode()


def test_range_checks_what_the_branch_adds_since_its_merge_base(store: Layout) -> None:
    root = store.root
    git(root, "checkout", "-q", "-b", "feature")
    write(root, "src/feature.py", "def f():\n    print('debug')\n")
    git(root, "add", "src/feature.py")
    git(root, "commit", "-q", "-m", "feature")
    git(root, "checkout", "-q", "main")
    write(root, "src/main_only.py", "print('landed on main after the branch')\n")
    git(root, "add", "src/main_only.py")
    git(root, "commit", "-q", "-m", "main moves on")
    git(root, "checkout", "-q", "feature")
    base = git(root, "merge-base", "main", "feature").strip()
    for given in ("main..feature", "main...HEAD", "main"):
        data = json.loads(run("check", given, "--json").stdout)
        assert [(f["file"], f["line"]) for f in data["findings"]] == [("src/feature.py", 2)]
        assert data["range"]["base"] == base
    result = run("check", "main..feature", "--format", "github")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        "::error file=src/feature.py,line=2,title=lessons no-print::Never leave print() calls "
        "in src; use the logger. (matched: 'print(')"
    )
    assert run("check", "feature..feature").exit_code == 0


def test_a_range_that_does_not_resolve_names_the_ref_and_exits_2(store: Layout) -> None:
    result = run("check", "origin/main..HEAD")
    assert result.exit_code == 2
    assert "'origin/main' names no commit" in result.stderr
    assert "fetch-depth: 0" in result.stderr
    assert result.stdout == ""


def test_outside_git_it_says_so_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init_project(tmp_path / "plain")
    monkeypatch.chdir(tmp_path / "plain")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    result = run("check")
    assert result.exit_code == 2
    assert "is not inside a git work tree" in result.stderr


def test_github_annotations_escape_what_would_end_the_command(store: Layout) -> None:
    forbid_lesson(
        store, "percent", "100%", ["docs/*.md"], rule="Say 'per cent', not 100%: one, two."
    )
    write(store.root, "docs/a,b:c.md", "it is 100%\r\n")
    git(store.root, "add", "docs", ".lessons")
    lines = run("check", "--format", "github").stdout.splitlines()
    assert lines[0] == (
        "::error file=docs/a%2Cb%3Ac.md,line=1,title=lessons percent::"
        "Say 'per cent', not 100%25: one, two. (matched: '100%25')"
    )


def test_a_nested_store_checks_its_own_folder_and_annotates_from_the_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    top = make_repo(tmp_path / "mono", {"pkg/src/a.py": "a = 1\n", "src/b.py": "b = 1\n"})
    layout, _ = init_project(top / "pkg")
    forbid_lesson(layout, "no-print", r"\bprint\(", ["src/**/*.py"])
    write(top, "pkg/src/a.py", "print(1)\n")
    write(top, "src/b.py", "print(2)\n")  # outside the package: not its rules
    git(top, "add", "-A")
    monkeypatch.chdir(top / "pkg")
    data = json.loads(run("check", "--json").stdout)
    assert [f["file"] for f in data["findings"]] == ["pkg/src/a.py"]
    assert run("check").stdout.startswith("src/a.py:1: ")


def hook_entry(hook_id: str) -> str:
    """The ``entry`` of one hook in the repo's .pre-commit-hooks.yaml."""
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    block = text.split(f"- id: {hook_id}\n", 1)[1].split("\n- id: ", 1)[0]
    found = re.search(r"^  entry: (.+)$", block, flags=re.M)
    assert found is not None
    return str(found[1])


def docs_action_command() -> str:
    """The `lessons check` step of the GitHub Actions example in docs/maintaining.md."""
    text = (ROOT / "docs" / "maintaining.md").read_text()
    found = re.findall(r"^      - run: (lessons check .+)$", text, flags=re.M)
    assert len(found) == 1
    return str(found[0])


def shell(command: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``command`` through ``sh -c`` with the installed ``lessons`` first on PATH."""
    path = os.pathsep.join([str(INSTALL_BIN), os.environ["PATH"]])
    return subprocess.run(
        ["sh", "-c", command],
        cwd=cwd,
        env={**os.environ, "PATH": path, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_pre_commit_entry_and_the_docs_ci_step_run_as_written(
    store: Layout, tmp_path: Path
) -> None:
    """The exact commands of .pre-commit-hooks.yaml and docs/maintaining.md, run on a real
    clone of a repo with a branch, as pre-commit and GitHub Actions run them."""
    assert shutil.which("lessons", path=str(INSTALL_BIN))
    entry = hook_entry("lessons-check")
    assert entry == "lessons check"
    root = store.root
    write(root, "src/app.py", "x = 1\nprint(x)\n")
    git(root, "add", "src/app.py")
    refused = shell(entry, root)
    assert refused.returncode == 1, refused.stderr
    assert refused.stdout.startswith("src/app.py:2: Never leave print()")
    git(root, "reset", "-q", "src/app.py")
    write(root, "src/app.py", "x = 2\n")
    git(root, "add", "src/app.py")
    assert shell(entry, root).returncode == 0

    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(root), str(origin))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    git(clone, "checkout", "-q", "-b", "pr")
    write(clone, "src/pr.py", "def go():\n    print('pr')\n")
    git(clone, "add", "src/pr.py")
    git(clone, "commit", "-q", "-m", "pr")
    step = docs_action_command()
    checked = shell(step, clone, GITHUB_BASE_REF="main")
    assert checked.returncode == 1, checked.stderr
    assert checked.stdout.splitlines()[0] == (
        "::error file=src/pr.py,line=2,title=lessons no-print::Never leave print() calls in "
        "src; use the logger. (matched: 'print(')"
    )
    git(clone, "rm", "-q", "src/pr.py")
    git(clone, "commit", "-q", "-m", "no debug")
    assert shell(step, clone, GITHUB_BASE_REF="main").returncode == 0
