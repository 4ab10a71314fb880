"""Personal lessons: the user's own store, recalled in every repository wired with lessons,
only where a trigger matches, labelled, within the project's budget, once per session.

Every test runs lessons in its own processes with a temp home (``XDG_DATA_HOME`` under it,
the autouse fixture), never the real one.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from lessons_core.store.project import init_project
from tests.conftest import make_repo
from tests.scopes_env import (
    LESSONS,
    bash_call,
    hook_text,
    lessons,
    personal_dir,
    prompt_call,
    read_call,
    write_lesson_file,
)

DOCKER_RULE = "Never run docker compose down -v on this machine; it wipes the only dev database."
GH_RULE = "Pass --hostname to gh here; it is authenticated against the enterprise host."


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A git repo with .lessons/ and a few files."""
    found = make_repo(tmp_path / "repo", {"src/a.py": "x = 1\n", "compose.yml": "services: {}\n"})
    init_project(found)
    return found


def add_personal(root: Path, rule: str, *args: str) -> subprocess.CompletedProcess[str]:
    return lessons(root, "add", "--personal", rule, "--topic", "machine", *args)


def test_add_personal_writes_a_private_store_and_nothing_in_the_repo(root: Path) -> None:
    """The lesson lands in $XDG_DATA_HOME/lessons/lessons (folders 0700, file 0600) and the
    repository's files are untouched."""
    before = sorted(str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.parts)
    done = add_personal(root, DOCKER_RULE, "--trigger-cmd", "docker compose down")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith("personal:machine-")
    store = personal_dir()
    (saved,) = (store / "lessons").glob("*.json")
    assert json.loads(saved.read_text())["rule"] == DOCKER_RULE
    for folder in (store, store / "lessons", store / "local"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    after = sorted(str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.parts)
    assert after == before


def test_the_default_store_is_under_home_when_xdg_data_home_is_unset(root: Path) -> None:
    home = Path(os.environ["HOME"])
    env = {k: v for k, v in os.environ.items() if k != "XDG_DATA_HOME"}
    done = subprocess.run(
        [LESSONS, "add", "--personal", GH_RULE, "--topic", "gh", "--trigger-cmd", "gh pr create"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert list((home / ".local" / "share" / "lessons" / "lessons").glob("*.json"))


@pytest.mark.parametrize(
    ("rule", "args", "why"),
    [
        ("Use the token ghp_abcdefghijklmnopqrstuvwxyz0123456789 for gh.", (), "secret"),
        ("Never run\x1b[2J docker prune here.", (), "control"),
        ("Never edit any file without reading it.", ("--trigger-file", "**"), "everything"),
    ],
)
def test_add_personal_has_the_guards_of_add(
    root: Path, rule: str, args: tuple[str, ...], why: str
) -> None:
    """Secrets, control characters and a glob over everything are refused, and the store
    stays empty."""
    trigger = args or ("--trigger-cmd", "docker system prune")
    done = add_personal(root, rule, *trigger)
    assert done.returncode == 1, why
    assert "error:" in done.stderr
    assert not list((personal_dir() / "lessons").glob("*.json"))


def test_add_personal_refuses_a_near_duplicate_of_a_personal_lesson(root: Path) -> None:
    assert add_personal(root, DOCKER_RULE, "--trigger-cmd", "docker compose down").returncode == 0
    near = DOCKER_RULE.replace("the only", "my only")
    done = add_personal(root, near, "--trigger-cmd", "docker compose down")
    assert done.returncode == 1
    assert "like active lesson" in done.stderr


def test_add_personal_refuses_always(root: Path) -> None:
    """A personal lesson speaks only where a trigger of its own matches."""
    done = add_personal(root, DOCKER_RULE, "--always")
    assert done.returncode == 2
    assert "--always cannot be personal" in done.stderr


def test_a_personal_lesson_reaches_the_hook_labelled_and_once_per_session(root: Path) -> None:
    """In a second repository: shown before the command, labelled personal, and quiet for
    the rest of the session."""
    assert add_personal(root, DOCKER_RULE, "--trigger-cmd", "docker compose down").returncode == 0
    other = make_repo(root.parent / "second", {"src/b.py": "y = 2\n"})
    init_project(other)
    first = hook_text(other, bash_call(other, "docker compose down -v"))
    assert f"- {DOCKER_RULE} (personal)" in first
    assert hook_text(other, bash_call(other, "docker compose down -v")) == ""
    assert f"- {DOCKER_RULE} (personal)" in hook_text(
        other, bash_call(other, "docker compose down -v", session="s2")
    )
    # What the hooks wrote there (the index, its lock) is as private as the lessons.
    for path in personal_dir().rglob("*"):
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), path


def test_at_equal_rank_the_project_lesson_comes_first(root: Path) -> None:
    project_rule = "Keep src/a.py free of side effects at import time."
    done = lessons(root, "add", project_rule, "--topic", "code", "--trigger-file", "src/a.py")
    assert done.returncode == 0, done.stderr
    mine = "Run src/a.py only through the wrapper script on this machine."
    assert add_personal(root, mine, "--trigger-file", "src/a.py").returncode == 0
    text = hook_text(root, read_call(root, "src/a.py"))
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert lines == [f"- {project_rule}", f"- {mine} (personal)"]


def test_personal_lessons_share_the_projects_budget(root: Path) -> None:
    """max_trigger_matches holds for all scopes together; the notice counts the rest."""
    config = root / ".lessons" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "max_trigger_matches": 1}))
    assert (
        lessons(
            root, "add", "Keep src/a.py small.", "--topic", "code", "--trigger-file", "src/a.py"
        ).returncode
        == 0
    )
    assert (
        add_personal(
            root, "Lint src/a.py before committing it.", "--trigger-file", "src/a.py"
        ).returncode
        == 0
    )
    text = hook_text(root, read_call(root, "src/a.py"))
    assert "- Keep src/a.py small." in text
    assert "(personal)" not in text
    assert "1 more rule matches." in text


def test_a_personal_lesson_never_speaks_by_prompt_wording_alone(root: Path) -> None:
    """Words shared with a prompt bring a project lesson, never a personal one; a personal
    keyword trigger the prompt names does."""
    wording = "Rotate the staging database credentials through the vault before deploys."
    assert add_personal(root, wording, "--trigger-cmd", "vault write").returncode == 0
    prompt = "rotate the staging database credentials through the vault"
    assert "(personal" not in hook_text(root, prompt_call(root, prompt))
    keyed = "Ask before touching the terraform state of the billing stack."
    assert add_personal(root, keyed, "--trigger-keyword", "terraform").returncode == 0
    text = hook_text(root, prompt_call(root, "plan the terraform change", session="s9"))
    assert f"- {keyed} (personal, keyword: terraform)" in text


def test_list_show_deprecate_rm_and_validate_personal(root: Path) -> None:
    added = add_personal(root, GH_RULE, "--trigger-cmd", "gh pr create").stdout.strip()
    plain = added.removeprefix("personal:")
    listed = lessons(root, "list", "--personal")
    assert f"{plain}: {GH_RULE}" in listed.stdout
    assert GH_RULE not in lessons(root, "list").stdout
    assert GH_RULE in lessons(root, "show", added).stdout
    assert GH_RULE in lessons(root, "show", "--personal", plain).stdout
    checked = lessons(root, "validate", "--personal", "--format", "json")
    assert json.loads(checked.stdout)["summary"]["lessons"] == 1
    done = lessons(root, "deprecate", added, "--reason", "the enterprise host is gone")
    assert done.stdout.strip() == f"deprecated {added}"
    assert "deprecated" in json.loads(lessons(root, "show", added, "--json").stdout)["status"]
    assert hook_text(root, bash_call(root, "gh pr create --fill")) == ""
    assert lessons(root, "rm", "--personal", plain).stdout.strip() == f"removed {added}"
    assert not list((personal_dir() / "lessons").glob("*.json"))


def test_validate_personal_names_the_personal_file(root: Path) -> None:
    write_lesson_file(personal_dir() / "lessons", "mine", "Check the VPN first.", files=["nope/**"])
    done = lessons(root, "validate", "--personal")
    assert f"{personal_dir() / 'lessons' / 'mine.json'}:" in done.stdout
    assert "L101" in done.stdout


def test_promote_copies_into_the_repo_and_retires_the_personal_copy(root: Path) -> None:
    rule = "Run the migrations through make migrate, never alembic directly."
    added = add_personal(root, rule, "--trigger-cmd", "alembic upgrade").stdout.strip()
    done = lessons(root, "promote", added)
    assert done.returncode == 0, done.stderr
    promoted = done.stdout.strip()
    saved = json.loads((root / ".lessons" / "lessons" / f"{promoted}.json").read_text())
    assert saved["rule"] == rule
    assert saved["triggers"]["commands"] == ["alembic upgrade"]
    personal = json.loads(lessons(root, "show", added, "--json").stdout)
    assert personal["status"] == "deprecated"
    assert str(root) in personal["reason"]
    text = hook_text(root, bash_call(root, "alembic upgrade head"))
    assert f"- {rule}" in text
    assert "(personal" not in text


@pytest.mark.parametrize("how", ["environment", "everywhere", "this repository"])
def test_personal_lessons_can_be_turned_off(root: Path, how: str) -> None:
    assert add_personal(root, GH_RULE, "--trigger-cmd", "gh pr create").returncode == 0
    assert "(personal)" in hook_text(root, bash_call(root, "gh pr create", session="on"))
    env: dict[str, str] = {}
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "lessons" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    if how == "environment":
        env["LESSONS_PERSONAL"] = "0"
    elif how == "everywhere":
        config.write_text('{"personal": false}\n')
    else:
        config.write_text(json.dumps({"personal_off": [str(root)]}))
    assert hook_text(root, bash_call(root, "gh pr create", session="off"), env) == ""
    assert "off here" in lessons(root, "doctor", env=env).stdout
    if how == "this repository":  # another repository still hears them
        other = make_repo(root.parent / "other", {"x.py": "x\n"})
        init_project(other)
        assert "(personal)" in hook_text(other, bash_call(other, "gh pr create"))


def test_a_link_leaving_the_store_is_refused_by_name(root: Path, tmp_path: Path) -> None:
    """A personal lessons/ folder that is a link elsewhere is never read nor written; the
    project's lessons still speak."""
    elsewhere = tmp_path / "elsewhere"
    write_lesson_file(elsewhere, "planted", "Planted rule from elsewhere.", commands=["make x"])
    personal_dir().mkdir(parents=True)
    (personal_dir() / "lessons").symlink_to(elsewhere)
    done = add_personal(root, GH_RULE, "--trigger-cmd", "gh pr create")
    assert done.returncode == 1
    assert f"{personal_dir() / 'lessons'} is a symbolic link to {elsewhere}" in done.stderr
    assert (
        lessons(
            root, "add", "Run make x with -j4.", "--topic", "make", "--trigger-cmd", "make x"
        ).returncode
        == 0
    )
    text = hook_text(root, bash_call(root, "make x"))
    assert "- Run make x with -j4." in text
    assert "Planted" not in text
    assert "is a symbolic link" in lessons(root, "doctor").stdout


@pytest.mark.parametrize("damage", ["state is a file", "garbage cache", "broken lesson"])
def test_a_broken_personal_store_never_silences_the_project(root: Path, damage: str) -> None:
    assert add_personal(root, GH_RULE, "--trigger-cmd", "gh pr create").returncode == 0
    assert (
        lessons(
            root,
            "add",
            "Fill the PR template when running gh pr create.",
            "--topic",
            "gh",
            "--trigger-cmd",
            "gh pr create",
            "--force",
        ).returncode
        == 0
    )
    hook_text(root, bash_call(root, "gh pr create", session="warm"))  # the caches exist
    store = personal_dir()
    if damage == "state is a file":
        for entry in (store / "local").iterdir():
            entry.unlink()
        (store / "local").rmdir()
        (store / "local").write_text("not a folder\n")
    elif damage == "garbage cache":
        (store / "local" / "recall-index.bin").write_bytes(b"\x00garbage" * 100)
    else:
        (store / "lessons" / "broken.json").write_text("{not json")
    text = hook_text(root, bash_call(root, "gh pr create", session="after"))
    assert "- Fill the PR template when running gh pr create." in text
    if damage != "state is a file":  # the rest of the personal store still speaks
        assert f"- {GH_RULE} (personal)" in text


def test_concurrent_personal_captures_lose_nothing(root: Path) -> None:
    """Eight processes adding at once: every lesson is saved, each in its own file."""
    processes = [
        subprocess.Popen(
            [
                LESSONS,
                "add",
                "--personal",
                f"Restart the worker number {n} with systemctl first.",
                "--topic",
                f"worker{n}",
                "--trigger-cmd",
                f"worker-{n} start",
                "--force",
            ],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for n in range(8)
    ]
    for process in processes:
        _out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
    saved = list((personal_dir() / "lessons").glob("*.json"))
    assert len(saved) == 8
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in saved)


def test_telemetry_masks_a_personal_lessons_command(root: Path) -> None:
    """A secret in the command a personal lesson fires on never reaches the log, which
    names the lesson by its scope."""
    config = root / ".lessons" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "telemetry": True}))
    rule = "Connect to the reporting database only through the read replica."
    assert add_personal(root, rule, "--trigger-cmd", "mysql").returncode == 0
    secret = "Sup3rS3cretPassw0rd"
    text = hook_text(root, bash_call(root, f"mysql -u admin -p{secret} reports"))
    assert "(personal)" in text
    log = (root / ".lessons" / "local" / "telemetry.jsonl").read_text()
    assert secret not in log
    delivered = [json.loads(line).get("delivered", []) for line in log.splitlines()]
    assert any(i.startswith("personal:") for ids in delivered for i in ids)


def test_doctor_names_the_store_and_init_mentions_personal_lessons(tmp_path: Path) -> None:
    fresh = make_repo(tmp_path / "fresh", {"a.py": "x\n"})
    done = lessons(fresh, "init")
    assert "lessons add --personal" in done.stdout
    assert str(personal_dir()) in lessons(fresh, "doctor").stdout


def test_add_personal_outside_any_repository(tmp_path: Path) -> None:
    """Outside git the triggers are judged against the store itself, never a walk of the
    folder the command ran in, and nothing is written there."""
    folder = tmp_path / "not-a-repo"
    (folder / "deep" / "tree").mkdir(parents=True)
    (folder / "deep" / "tree" / "compose.yml").write_text("services: {}\n")
    done = add_personal(folder, DOCKER_RULE, "--trigger-file", "**/compose.yml")
    assert done.returncode == 0, done.stderr
    assert "matches no file yet" in done.stderr  # judged against the store, not the cwd
    assert sorted(p.name for p in folder.rglob("*")) == ["compose.yml", "deep", "tree"]
