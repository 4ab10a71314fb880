"""The store on disk: atomic, never clobbering what it cannot parse."""

from __future__ import annotations

import pytest

from lessons_core.errors import InvalidLessonFile, LessonNotFound
from lessons_core.store.files import get_lesson, lesson_files, load_graph
from lessons_core.store.layout import Layout, find_layout, repo_relative
from lessons_core.store.model import Status
from lessons_core.store.project import set_status
from tests.conftest import run


def test_broken_file_is_reported_and_the_rest_load(repo: Layout) -> None:
    """A file that does not parse is listed as broken; good lessons still load."""
    assert (
        run(
            "add",
            "Run make lint before committing.",
            "--topic",
            "ci",
            "--trigger-cmd",
            "git commit",
        ).exit_code
        == 0
    )
    broken = repo.lesson_path("ci-broken")
    broken.write_text('{"id": "ci-broken", "rule": ')
    graph = load_graph(repo)
    assert list(graph.lessons) == ["ci-lint-committing"]
    assert graph.broken[0].path == broken


def test_status_change_never_rewrites_an_unparsable_file(repo: Layout) -> None:
    """Deprecating a lesson whose file is corrupt fails and leaves the bytes as they were."""
    path = repo.lesson_path("ci-corrupt")
    path.write_text("{ not json")
    with pytest.raises(InvalidLessonFile, match=r"ci-corrupt\.json"):
        set_status(repo, "ci-corrupt", Status.DEPRECATED)
    assert path.read_text() == "{ not json"


def test_id_must_match_file_name(repo: Layout) -> None:
    """A lesson whose id differs from its file name is reported, naming the file."""
    run("add", "Run make lint before committing.", "--topic", "ci", "--trigger-cmd", "git commit")
    source = repo.lesson_path("ci-lint-committing")
    source.rename(repo.lesson_path("ci-renamed"))
    with pytest.raises(InvalidLessonFile, match="does not match the file name"):
        get_lesson(repo, "ci-renamed")


def test_lesson_id_cannot_escape_the_lessons_folder(repo: Layout) -> None:
    """An id with path characters names no file at all."""
    with pytest.raises(LessonNotFound):
        get_lesson(repo, "../config")


def test_temp_files_of_inflight_writes_are_not_lessons(repo: Layout) -> None:
    """Dot-prefixed temp files are ignored by the loader."""
    (repo.lessons_dir / ".x.json.123.tmp").write_text("{")
    (repo.lessons_dir / ".half.json").write_text("{")
    assert lesson_files(repo) == []


def test_files_are_world_readable_like_any_committed_file(repo: Layout) -> None:
    """Lesson files get the umask's mode, not mkstemp's private 0600."""
    run("add", "Run make lint before committing.", "--topic", "ci", "--trigger-cmd", "git commit")
    mode = repo.lesson_path("ci-lint-committing").stat().st_mode & 0o777
    assert mode & 0o044 == 0o044


def test_layout_is_found_from_a_subdirectory(repo: Layout) -> None:
    """The store is found by walking up from a nested folder."""
    assert find_layout(repo.root / "src" / "util").root == repo.root


def test_nearest_store_wins_in_a_monorepo(repo: Layout) -> None:
    """A package with its own .lessons/ is served by that one."""
    inner = repo.root / "src" / "db"
    (inner / ".lessons").mkdir()
    assert find_layout(inner).root == inner


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("./src/app.py", "src/app.py"),
        ("src\\util\\paths.py", "src/util/paths.py"),
        ("src/../README.md", "README.md"),
        ("../outside.py", None),
        (".", None),
    ],
)
def test_paths_are_normalised_to_repo_relative(
    repo: Layout, given: str, expected: str | None
) -> None:
    """./x, backslashes, absolute paths and .. are normalised; outside the repo is None."""
    assert repo_relative(given, repo.root, repo.root) == expected
    if expected:
        assert repo_relative(str(repo.root / expected), repo.root) == expected
