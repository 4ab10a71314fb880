"""A prompt that names a file brings that file's rules (lessons_core.recall.prompt_files,
wired into ``deliver.on_prompt``): which words name a file, git's list kept under
.lessons/local, and the rules shown once, labelled, within the budget."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from lessons_core.delivery import deliver as delivery
from lessons_core.recall import prompt_files
from lessons_core.recall.prompt_files import named_files, prompt_words
from lessons_core.store.config import Config
from lessons_core.store.layout import REPO_FILES, Layout
from lessons_core.store.project import init_project
from tests.conftest import make_repo
from tests.hooks.conftest import write_lesson

FILES = {
    "src/storage/paths.py": "x = 1\n",
    "src/app.py": "y = 2\n",
    "src/x.py": "",
    "docs/x.py": "",
    "README.md": "# r\n",
    "Makefile": "all:\n",
    ".env.example": "A=1\n",
}


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return init_project(make_repo(tmp_path / "repo", FILES))[0]


@pytest.mark.parametrize(
    ("prompt", "named"),
    [
        ("fix src/storage/paths.py", ("src/storage/paths.py",)),
        ("look at `src/storage/paths.py:12`", ("src/storage/paths.py",)),
        ("the bug is in ./src/app.py, line 3.", ("src/app.py",)),
        (
            'see "src/app.py:10:4" and (src/storage/paths.py)',
            ("src/app.py", "src/storage/paths.py"),
        ),
        ("src/app.py#L12 is odd", ("src/app.py",)),
        ("lines src/app.py:12-20 and **src/x.py**", ("src/app.py", "src/x.py")),
        ("paths.py is wrong", ("src/storage/paths.py",)),
        ("x.py is wrong", ()),  # two tracked files are called x.py
        ("update README.md!", ("README.md",)),
        ("copy .env.example", (".env.example",)),
        ("create src/storage/cache.py for this", ("src/storage/cache.py",)),
        ("fix the Makefile", ()),  # no extension, no slash: a word
        ("read ../other/x.py and /etc/hosts", ()),
        ("see https://example.com/src/app.py", ()),
        ("all of src/ and e.g. this, and/or that", ()),
        ("nothing here at all", ()),
        ("cache.py is new", ()),  # a name alone must exist
        ("[link](src/app.py) and <src/x.py>", ("src/app.py", "src/x.py")),
    ],
)
def test_the_files_a_prompt_names(layout: Layout, prompt: str, named: tuple[str, ...]) -> None:
    assert named_files(layout, prompt) == named


def test_an_absolute_path_inside_the_repo_is_made_relative(layout: Layout) -> None:
    prompt = f"open {layout.top}/src/app.py and {layout.top}-other/src/app.py"
    assert named_files(layout, prompt) == ("src/app.py",)


def test_an_absolute_path_through_a_link_to_the_repo_counts(layout: Layout, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(layout.top)
    assert named_files(Layout(str(link)), f"open {layout.top}/src/app.py") == ("src/app.py",)


def test_at_most_max_named_files_are_taken(layout: Layout) -> None:
    prompt = " ".join(f"src/f{n}.py" for n in range(40))
    assert len(named_files(layout, prompt)) == prompt_files.MAX_NAMED


def test_prompt_words_strip_quotes_brackets_and_line_numbers() -> None:
    assert prompt_words("`a/b.py:1`, 'c.py'. (d/e.ts:3:9)? ./f.md") == [
        "a/b.py",
        "c.py",
        "d/e.ts",
        "f.md",
    ]


def test_the_tracked_list_is_cached_and_refreshed_when_the_index_changes(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once listed, the files come from .lessons/local until git's index changes."""
    assert named_files(layout, "fix paths.py") == ("src/storage/paths.py",)
    assert os.path.isfile(layout.local(REPO_FILES))
    calls: list[str] = []
    real = prompt_files._git_files

    def counted(top: str) -> str | None:
        calls.append(top)
        return real(top)

    monkeypatch.setattr(prompt_files, "_git_files", counted)
    assert named_files(layout, "fix paths.py") == ("src/storage/paths.py",)
    assert calls == []  # the cached list answered
    root = Path(layout.top)
    (root / "lib").mkdir()
    (root / "lib" / "paths.py").write_text("")
    subprocess.run(["git", "add", "lib/paths.py"], cwd=root, check=True)
    assert named_files(layout, "fix paths.py") == ()  # two now: neither is named
    assert calls == [layout.top]


def test_a_damaged_or_linked_cache_is_replaced_not_followed(layout: Layout, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("lessons repo files 1 2 3\n/etc/paths.py\n")
    os.makedirs(layout.local_dir, exist_ok=True)
    os.symlink(outside, layout.local(REPO_FILES))
    assert named_files(layout, "fix paths.py") == ("src/storage/paths.py",)
    assert not os.path.islink(layout.local(REPO_FILES))
    assert outside.read_text().endswith("/etc/paths.py\n")


def test_outside_git_only_full_paths_and_top_level_files_count(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    (root / "src").mkdir(parents=True)
    (root / "src" / "paths.py").write_text("")
    (root / "setup.cfg").write_text("")
    layout, _ = init_project(root)
    assert named_files(layout, "paths.py, setup.cfg and src/paths.py") == (
        "setup.cfg",
        "src/paths.py",
    )


def test_a_worktree_finds_its_own_index(layout: Layout, tmp_path: Path) -> None:
    root = Path(layout.top)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "store"], cwd=root, check=True)
    other = tmp_path / "wt"
    subprocess.run(["git", "worktree", "add", "-q", str(other)], cwd=root, check=True)
    assert (other / ".git").is_file()
    assert named_files(Layout(other), "fix paths.py") == ("src/storage/paths.py",)


def test_a_prompt_naming_a_file_brings_its_rules_once_labelled(layout: Layout) -> None:
    write_lesson(layout, "code-paths-posix", "Keep storage paths POSIX.", files=("src/storage/**",))
    write_lesson(layout, "code-new-cache", "Register new caches.", files=("src/storage/cache.py",))
    write_lesson(layout, "code-app", "Keep the app lean.", files=("src/app.py",))
    notice = delivery.on_prompt(layout, "s", "Why does paths.py drop the drive?", Config())
    assert notice is not None
    assert notice.shown == ("code-paths-posix",)
    assert "(named in the prompt: src/storage/paths.py)" in notice.text
    assert delivery.on_prompt(layout, "s", "again, src/storage/paths.py:3", Config()) is None
    created = delivery.on_prompt(layout, "s", "add src/storage/cache.py", Config())
    assert created is not None
    assert created.shown == ("code-new-cache",)


def test_named_files_stay_within_the_recall_budget(layout: Layout) -> None:
    for n in range(6):
        write_lesson(layout, f"code-app-{n}", f"App rule number {n}.", files=("src/app.py",))
    notice = delivery.on_prompt(layout, "s", "edit src/app.py", Config(max_trigger_matches=2))
    assert notice is not None
    assert len(notice.shown) == 2
    assert "4 more rules match." in notice.text


def test_a_store_below_the_top_of_git_names_files_relative_to_itself(tmp_path: Path) -> None:
    """In a monorepo whose .lessons/ is in a sub-folder, paths are relative to that folder."""
    root = make_repo(tmp_path / "mono", {"web/src/paths.py": "", "api/paths.go": ""})
    layout, _ = init_project(root / "web")
    assert named_files(layout, "fix paths.py") == ("src/paths.py",)
