"""The GitHub Actions workflow in docs/review.md and the ``lessons-review`` pre-commit hook,
run as written: their commands are taken from the docs page and from
``.pre-commit-hooks.yaml``, so neither can drift from what is tested."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import git
from tests.review_branch import branch_repo, write

PROJECT = Path(__file__).parents[1]
REVIEW_STEP = "Review the change against the lessons"


def _workflow() -> dict[Any, Any]:
    page = (PROJECT / "docs/review.md").read_text()
    section = page[page.index("## In GitHub Actions") :]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block is not None
    loaded = yaml.safe_load(block.group(1))
    assert isinstance(loaded, dict)
    return loaded


def _env(**extra: str) -> dict[str, str]:
    """A runner's environment: the installed ``lessons`` first on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "LESSONS_"))}
    env["PATH"] = f"{PROJECT / '.venv/bin'}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def test_workflow_checks_out_enough_history_on_pull_requests() -> None:
    workflow = _workflow()
    # YAML 1.1 reads the key `on` as true
    assert "pull_request" in (workflow.get("on") or workflow[True])
    steps = workflow["jobs"]["lessons-review"]["steps"]
    checkout = steps[0]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"]["fetch-depth"] == 0
    assert checkout["with"]["ref"] == "${{ github.event.pull_request.head.sha }}"
    review = next(step for step in steps if step.get("name") == REVIEW_STEP)
    assert review["env"] == {
        "BASE": "${{ github.event.pull_request.base.sha }}",
        "HEAD": "${{ github.event.pull_request.head.sha }}",
    }
    assert "${{" not in review["run"]  # values come through env, never pasted into shell


def test_workflow_review_step_on_a_real_branch(tmp_path: Path) -> None:
    """The step's script, run the way a runner runs it (bash -e -o pipefail) with the
    pull request's shas: the summary gets the Markdown, stdout the annotations."""
    layout = branch_repo(tmp_path / "repo")
    root = layout.root
    base, head = (git(root, "rev-parse", ref).strip() for ref in ("main", "feature"))
    # The base branch moves on after the branch point, as it does while a PR is open.
    git(root, "checkout", "-q", "main")
    write(root, {"src/db/session.py": "SESSION = 'landed on main'\n"})
    git(root, "commit", "-qam", "main moves on")
    base = git(root, "rev-parse", "main").strip()
    git(root, "checkout", "-q", "--detach", head)  # actions/checkout with ref: head.sha
    step = next(
        s for s in _workflow()["jobs"]["lessons-review"]["steps"] if s.get("name") == REVIEW_STEP
    )
    script = tmp_path / "step.sh"
    script.write_text(step["run"])
    summary = tmp_path / "summary.md"
    summary.write_text("")
    result = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=root,
        env=_env(BASE=base, HEAD=head, GITHUB_STEP_SUMMARY=str(summary)),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    markdown = summary.read_text()
    assert markdown.startswith("## Lesson changes since `")
    assert "### Added\n\n#### `db-index`" in markdown
    assert "## Lessons for the code changes" in markdown
    assert "- file `src/db/models.py` matched `src/db/models.py:2`" in markdown
    assert (
        "- command `git push --force` matched `git push --force origin main` in "
        "`scripts/deploy.sh:4`"
    ) in markdown
    assert "`src/legacy/old.py` deleted, which file trigger `src/legacy/old.py` matched" in markdown
    assert "`src/util/paths.py` renamed to `src/common/paths.py`" in markdown
    code = markdown[markdown.index("## Lessons for the code changes") :]
    assert code.startswith("## Lessons for the code changes\n\n5 changed files · ")
    assert "session.py" not in code  # main's own change is not the PR's
    annotations = result.stdout.splitlines()
    assert "::notice file=src/db/models.py,line=2,title=lesson db-models::" in "\n".join(
        annotations
    )
    assert any(a.startswith("::notice file=scripts/deploy.sh,line=4,") for a in annotations)
    assert any(
        a.startswith("::warning file=.lessons/lessons/legacy-old.json,") for a in annotations
    )
    assert result.stderr == ""


def _hook() -> dict[str, Any]:
    hooks = yaml.safe_load((PROJECT / ".pre-commit-hooks.yaml").read_text())
    return next(hook for hook in hooks if hook["id"] == "lessons-review")


def test_pre_commit_hook_reviews_the_staged_change(tmp_path: Path) -> None:
    """The hook's entry, run as pre-commit runs it (no file names: pass_filenames is
    false), on a staged change to a covered file and a script adding a covered command."""
    hook = _hook()
    assert hook["pass_filenames"] is False
    assert hook["language"] == "python"
    layout = branch_repo(tmp_path / "repo")
    root = layout.root
    write(
        root,
        {
            "src/db/session.py": "SESSION = None\nPOOL = 5\n",
            "scripts/migrate.sh": "#!/bin/sh\nalembic upgrade head\n",
        },
    )
    git(root, "add", "-A")
    result = subprocess.run(
        shlex.split(hook["entry"]) + list(hook.get("args", [])),
        cwd=root,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "2 changed files · 1 added command · 3 lessons apply · 0 triggers to fix" in out
    assert "- file 'src/db/**' matched 'src/db/session.py:2'" in out
    assert "- 'scripts/migrate.sh:2' 'alembic upgrade head': 'db-migrate'" in out


def test_pre_commit_hook_on_the_first_commit(tmp_path: Path) -> None:
    """Before any commit HEAD names nothing: the hook reviews against the empty tree and
    lets the commit through; lessons' own files (the launcher, the config) are not code."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, {"src/a.py": "X = 1\n"})
    env = _env()

    def lessons(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["lessons", *args], cwd=root, env=env, capture_output=True, text=True, check=False
        )

    assert lessons("init").returncode == 0
    added = lessons("add", "Keep src/a.py tiny.", "--topic", "src", "--trigger-file", "src/a.py")
    assert added.returncode == 0, added.stderr
    git(root, "add", "-A")
    result = subprocess.run(
        shlex.split(_hook()["entry"]), cwd=root, env=env, capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Lesson changes since '4b825dc642cb', HEAD, as given\n")
    assert "1 changed file · 0 added commands · 1 lesson apply · 0 triggers to fix" in result.stdout
    assert "- file 'src/a.py' matched 'src/a.py:1'" in result.stdout
