"""Packs: folders of lessons inside the repository (here a real git submodule, or a plain
folder), named in the committed config, recalled as the project's lessons and labelled
with the pack's name; checked as their own source; never written; never outside the repo.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessons_core.store.project import init_project
from tests.conftest import git, make_repo
from tests.scopes_env import (
    bash_call,
    hook_text,
    lessons,
    personal_dir,
    read_call,
    write_lesson_file,
)

PACK = "vendor/platform-lessons"
SETTINGS_RULE = "Never import settings at module level; read them inside the function."
MIGRATION_RULE = "Give every migration a down step."


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    """The platform team's repository of lessons."""
    found = make_repo(tmp_path / "platform-lessons")
    write_lesson_file(
        found / "lessons",
        "settings-module-level",
        SETTINGS_RULE,
        files=["src/**/*.py"],
        commands=["python manage.py shell"],
    )
    commit_all(found, "first lessons")
    return found


def use_packs(root: Path, *packs: str) -> None:
    config = root / ".lessons" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "packs": list(packs)}))


@pytest.fixture
def root(tmp_path: Path, upstream: Path) -> Path:
    """A service repository with the pack as a git submodule, named in its config."""
    found = make_repo(tmp_path / "service", {"src/app/models.py": "x = 1\n"})
    git(found, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), PACK)
    init_project(found)
    use_packs(found, PACK)
    commit_all(found, "the platform pack")
    return found


def pack_state(root: Path) -> dict[str, bytes]:
    pack = root / PACK
    return {str(p.relative_to(pack)): p.read_bytes() for p in pack.rglob("*") if p.is_file()}


def test_a_pack_lesson_reaches_the_hook_labelled_with_the_pack(root: Path) -> None:
    text = hook_text(root, bash_call(root, "python manage.py shell"))
    assert f"- {SETTINGS_RULE} (pack platform-lessons)" in text
    assert hook_text(root, bash_call(root, "python manage.py shell")) == ""  # once a session
    query = json.loads(lessons(root, "query", "--file", "src/app/models.py", "--json").stdout)
    (hit,) = query["lessons"]
    assert (hit["id"], hit["source"]) == (
        "platform-lessons:settings-module-level",
        "pack platform-lessons",
    )


def test_a_pack_lesson_speaks_by_prompt_wording_as_the_projects_do(root: Path) -> None:
    done = lessons(root, "query", "--prompt", "import settings at module level in the function")
    assert f"{SETTINGS_RULE} (pack platform-lessons, prompt terms:" in done.stdout


def test_validate_checks_a_pack_as_its_own_source(root: Path) -> None:
    write_lesson_file(
        root / PACK / "lessons", "ghost", "Keep ghosts out of the attic.", files=["attic/**"]
    )
    done = lessons(root, "validate")
    assert f"{PACK}/lessons/ghost.json:" in done.stdout
    assert "L101" in done.stdout
    assert "3 lessons checked" in done.stdout or "2 lessons checked" in done.stdout


def test_add_never_writes_into_a_pack(root: Path) -> None:
    before = pack_state(root)
    lint = ("add", "Run the linter before every commit.", "--topic", "lint")
    done = lessons(root / PACK, *lint, "--trigger-cmd", "git commit")
    # Inside the submodule no project store is found; from the repo it goes to .lessons/.
    assert done.returncode == 1
    assert "no .lessons/ directory" in done.stderr
    assert lessons(root, *lint, "--trigger-cmd", "git commit").returncode == 0
    for command in ("rm", "deprecate"):
        refused = lessons(root, command, "platform-lessons:settings-module-level")
        assert refused.returncode == 1
        assert "edit it where the pack lives" in refused.stderr
    assert pack_state(root) == before


@pytest.mark.parametrize("path", ["../outside", "/etc", "vendor/../../outside"])
def test_a_pack_path_leaving_the_repo_is_refused_by_name(root: Path, path: str) -> None:
    outside = root.parent / "outside"
    write_lesson_file(
        outside / "lessons", "planted", "Planted from outside the repo.", commands=["make deploy"]
    )
    use_packs(root, path, PACK)
    assert (
        lessons(
            root,
            "add",
            "Run make deploy only from main.",
            "--topic",
            "deploy",
            "--trigger-cmd",
            "make deploy",
        ).returncode
        == 0
    )
    text = hook_text(root, bash_call(root, "make deploy"))
    assert "- Run make deploy only from main." in text
    assert "Planted" not in text
    checked = lessons(root, "validate")
    assert f".lessons/config.json: L011 error: {path} leads to" in checked.stdout
    assert checked.returncode == 1
    assert f"{path} leads to" in lessons(root, "doctor").stdout


def test_a_pack_linked_out_of_the_repo_is_refused_by_name(root: Path) -> None:
    outside = root.parent / "outside"
    write_lesson_file(
        outside / "lessons", "planted", "Planted from outside the repo.", commands=["make deploy"]
    )
    (root / "vendor" / "linked").symlink_to(outside)
    use_packs(root, "vendor/linked")
    assert "Planted" not in hook_text(root, bash_call(root, "make deploy"))
    done = lessons(root, "validate")
    assert f"{root / 'vendor' / 'linked'} is a symbolic link to {outside}" in done.stdout


def test_contradictions_across_scopes_name_each_source(root: Path) -> None:
    """A pack, the project and a personal lesson that disagree where all fire: L204 names
    the pack's file and the project's, and with --personal the personal one too."""
    write_lesson_file(
        root / PACK / "lessons",
        "tags-always",
        "Always push tags after a release.",
        commands=["git push"],
    )
    assert (
        lessons(
            root,
            "add",
            "Never push tags after a release.",
            "--topic",
            "git",
            "--trigger-cmd",
            "git push",
        ).returncode
        == 0
    )
    done = lessons(root, "validate")
    assert (
        f"{PACK}/lessons/tags-always.json: L204 warning: the pack platform-lessons rule "
        "contradicts project lesson 'git-push-tags-release' "
        "(.lessons/lessons/git-push-tags-release.json)"
    ) in done.stdout
    write_lesson_file(
        personal_dir() / "lessons",
        "tags-mine",
        "Always push tags after a release.",
        commands=["git push"],
    )
    mine = lessons(root, "validate", "--personal")
    assert (
        f"{personal_dir() / 'lessons' / 'tags-mine.json'}: L204 warning: the personal rule "
        "contradicts project lesson 'git-push-tags-release'"
    ) in mine.stdout


def test_review_shows_a_submodule_bump_as_lesson_changes(root: Path, upstream: Path) -> None:
    """The pack's repository gains a lesson and changes one; the service bumps its
    submodule: review shows both, from the working tree and from the commit."""
    write_lesson_file(
        upstream / "lessons", "migrations-down", MIGRATION_RULE, files=["migrations/**"]
    )
    data = json.loads((upstream / "lessons" / "settings-module-level.json").read_text())
    data["triggers"]["commands"] = []
    (upstream / "lessons" / "settings-module-level.json").write_text(json.dumps(data, indent=2))
    commit_all(upstream, "more lessons")
    git(root / PACK, "-c", "protocol.file.allow=always", "pull", "-q", "origin", "HEAD")
    git(root, "add", PACK)
    staged = lessons(root, "review", "HEAD").stdout
    assert "1 added · 1 changed" in staged
    assert "'platform-lessons:migrations-down':\n  " + MIGRATION_RULE in staged
    assert "'platform-lessons:settings-module-level'" in staged
    git(root, "commit", "-q", "-m", "bump the platform lessons")
    text = lessons(root, "review", "HEAD~1..HEAD").stdout
    assert "1 added · 1 changed" in text
    assert "'platform-lessons:migrations-down'" in text
    assert MIGRATION_RULE in text


def test_a_vendored_pack_is_reviewed_from_the_tree(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "vendored", {"src/a.py": "x\n"})
    init_project(root)
    use_packs(root, "team/lessons-pack")
    commit_all(root, "config")
    write_lesson_file(
        root / "team" / "lessons-pack" / "lessons", "team-rule", MIGRATION_RULE, files=["src/a.py"]
    )
    review = lessons(root, "review", "HEAD").stdout
    assert "1 added · 0 changed" in review
    assert "'lessons-pack:team-rule':\n  " + MIGRATION_RULE in review
    text = hook_text(root, read_call(root, "src/a.py"))
    assert f"- {MIGRATION_RULE} (pack lessons-pack)" in text


def test_a_packs_always_on_lesson_comes_at_session_start_and_a_personal_one_never(
    root: Path,
) -> None:
    rule = "Use the platform's make targets, never raw docker commands, for every task."
    pack_file = write_lesson_file(root / PACK / "lessons", "platform-make", rule)
    pack_file.write_text(pack_file.read_text().replace('"active"', '"active",\n  "always": true'))
    mine = "Answer in British English in every repository."
    personal = write_lesson_file(personal_dir() / "lessons", "mine-always", mine)
    personal.write_text(personal.read_text().replace('"active"', '"active",\n  "always": true'))
    start = {
        "session_id": "s1",
        "transcript_path": "",
        "cwd": str(root),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    text = hook_text(root, start)
    assert f"- {rule} (pack platform-lessons, always on)" in text
    assert mine not in text
