"""A CLAUDE.md or AGENTS.md below the repo root applies to its folder: the paths it names
are read from there (``importers.mentions``), by L205 in ``lessons validate`` and by
``lessons import instructions`` alike.

The ``../`` paths below are words of instruction files written into each test's own
repository under tmp_path; no test opens them. The code under test resolves them
against that repository, and those that climb out of it must name nothing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from lessons_core.importers.mentions import instruction_folder
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.store.model import Triggers
from lessons_core.store.project import init_project
from lessons_core.validate import Finding, validate
from tests.conftest import git, import_instructions, make_repo, write_tracked
from tests.lesson_graphs import write_lesson

FILES = {
    "README.md": "# demo\n",
    "generated/api.py": "# the root's generated client\n",
    "src/app.py": "print('app')\n",
    "src/db/models.py": "class Model: ...\n",
    "docs/guide.md": "guide\n",
    "tests/test_app.py": "def test(): ...\n",
    "shared/schema.json": "{}\n",
    "pkg/generated/api.py": "# the package's generated client\n",
    "pkg/core/main.py": "print('core')\n",
    "pkg/core/util.py": "def util(): ...\n",
    "pkg/tests/conftest.py": "import pytest\n",
    "pkg/gen.sh": "#!/bin/sh\n",
    "outside.py": "# a root file of the same name as the one beside the repo\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Layout:
    """A real git repo at ``tmp_path/repo``, with a file beside it, outside it."""
    root = make_repo(tmp_path / "repo", FILES)
    os.chmod(root / "pkg" / "gen.sh", 0o755)
    git(root, "add", "pkg/gen.sh")
    (tmp_path / "outside.py").write_text("# not the repo's\n")
    layout, _ = init_project(root)
    return layout


def instructions(layout: Layout, name: str, text: str) -> None:
    write_tracked(layout.root, name, text)


def l205(layout: Layout) -> list[Finding]:
    return [f for f in validate(layout).findings if f.code == "L205"]


def only_finding(layout: Layout, lesson_id: str, line: str, path: str) -> None:
    """The one L205 finding is about ``lesson_id``, against ``line`` (FILE:N), about the
    file trigger ``path``."""
    [finding] = l205(layout)
    assert finding.lesson_id == lesson_id
    assert f"contradicts {line} about file '{path}'" in finding.message


def lesson_about(layout: Layout, path: str, written: str) -> str:
    """A lesson triggered by ``path`` that says to edit it by hand, naming it as the
    instruction line does (``written``): the opposite stance of the line's; its id."""
    lesson_id = "hand-" + path.replace("/", "-").replace(".", "-")
    write_lesson(layout, lesson_id, f"Edit {written} by hand.", files=[path])
    return lesson_id


@pytest.mark.parametrize(
    ("name", "folder"),
    [
        ("AGENTS.md", ""),
        ("pkg/AGENTS.md", "pkg"),
        ("pkg/core/CLAUDE.md", "pkg/core"),
        (".claude/CLAUDE.md", ""),
        ("pkg/.claude/CLAUDE.md", "pkg"),
        (".github/copilot-instructions.md", ""),
        (".agents/AGENTS.md", ""),
        ("docs/.agents/AGENTS.md", "docs"),
        ("pkg/agents/AGENTS.md", "pkg/agents"),
    ],
)
def test_an_instruction_file_applies_to_its_folder(name: str, folder: str) -> None:
    """Claude Code's .claude/CLAUDE.md, Copilot's .github/ file and a file kept in an
    agents' configuration folder (Effect's `.agents/AGENTS.md`) speak for the folder
    above theirs; a folder merely called "agents" is a folder of the code."""
    assert instruction_folder(name) == folder


# L205 in lessons validate.


def test_l205_reads_a_nested_files_path_from_its_folder(repo: Layout) -> None:
    """`generated/api.py` in pkg/AGENTS.md is pkg/generated/api.py: the lesson about it
    is reported, naming that path; the one about the root's generated/api.py is not."""
    instructions(repo, "pkg/AGENTS.md", "# Rules\n\n- Never edit `generated/api.py` by hand.\n")
    package = lesson_about(repo, "pkg/generated/api.py", "generated/api.py")
    lesson_about(repo, "generated/api.py", "generated/api.py")
    only_finding(repo, package, "pkg/AGENTS.md:3", "pkg/generated/api.py")


def test_l205_reads_a_path_named_from_the_root_in_a_nested_file(repo: Layout) -> None:
    """src/db/models.py names nothing under pkg/: it is the root's file. Written
    `./src/db/models.py` it is read from pkg/ only, and names nothing."""
    instructions(repo, "pkg/AGENTS.md", "- Never edit `src/db/models.py` by hand.\n")
    instructions(repo, "pkg/core/AGENTS.md", "- Never edit `./src/db/models.py` by hand.\n")
    models = lesson_about(repo, "src/db/models.py", "src/db/models.py")
    write_lesson(repo, "dotted", "Edit ./src/db/models.py by hand.", files=["src/db/models.py"])
    only_finding(repo, models, "pkg/AGENTS.md:1", "src/db/models.py")


def test_l205_reads_the_root_file_from_the_root(repo: Layout) -> None:
    """The root AGENTS.md's `generated/api.py` is the root's, as before."""
    instructions(repo, "AGENTS.md", "- Never edit `generated/api.py` by hand.\n")
    root = lesson_about(repo, "generated/api.py", "generated/api.py")
    lesson_about(repo, "pkg/generated/api.py", "generated/api.py")
    only_finding(repo, root, "AGENTS.md:1", "generated/api.py")


def test_l205_follows_a_path_up_out_of_the_folder_but_not_out_of_the_repo(
    repo: Layout,
) -> None:
    """`../generated/api.py` in pkg/core/ is pkg/generated/api.py, `../../shared/...` the
    root's shared/; `../../../outside.py` is beside the repo and names no file of it, not
    even the root's outside.py."""
    instructions(
        repo,
        "pkg/core/CLAUDE.md",
        "- Never edit `../generated/api.py` by hand.\n"
        "- Never edit `../../shared/schema.json` by hand.\n"
        "- Never edit `../../../outside.py` by hand.\n",
    )
    package = lesson_about(repo, "pkg/generated/api.py", "../generated/api.py")
    schema = lesson_about(repo, "shared/schema.json", "../../shared/schema.json")
    lesson_about(repo, "outside.py", "../../../outside.py")
    found = {f.lesson_id: f.message for f in l205(repo)}
    assert set(found) == {package, schema}
    assert "contradicts pkg/core/CLAUDE.md:1 about file 'pkg/generated/api.py'" in found[package]
    assert "contradicts pkg/core/CLAUDE.md:2 about file 'shared/schema.json'" in found[schema]


# lessons import instructions.


def imported(layout: Layout, monkeypatch: pytest.MonkeyPatch, *names: str) -> dict[str, Any]:
    monkeypatch.chdir(layout.root)
    return import_instructions(*names)


def triggers_by_rule(layout: Layout) -> dict[str, Triggers]:
    return {x.rule: x.triggers for x in load_graph(layout).lessons.values()}


def test_import_reads_a_nested_files_paths_from_its_folder(
    repo: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The triggers of pkg/AGENTS.md's rules are the files of pkg/, the root's where
    nothing of pkg/ is named, with pkg/'s code when the rule names nothing inside it; the
    script a rule asks to run is not its trigger."""
    instructions(
        repo,
        "pkg/AGENTS.md",
        "# Package\n\n"
        "- Never edit `generated/api.py` by hand.\n"
        "- Keep `src/db/models.py` in step with the schema.\n"
        "- Run `./gen.sh` after changing `../shared/schema.json`.\n"
        "- Put shared fixtures in `conftest.py`.\n"
        "- Never copy `../../outside.py` in.\n",
    )
    report = imported(repo, monkeypatch, "pkg/AGENTS.md")
    found = triggers_by_rule(repo)
    assert found["Never edit `generated/api.py` by hand."].files == ("pkg/generated/api.py",)
    models = found["Keep `src/db/models.py` in step with the schema."]
    assert models.files == ("pkg/**/*.py", "src/db/models.py")
    script = found["Run `./gen.sh` after changing `../shared/schema.json`."]
    assert script == Triggers(files=("pkg/**/*.py", "shared/schema.json"))  # not the script
    assert found["Put shared fixtures in `conftest.py`."].files == ("pkg/**/conftest.py",)
    assert found["Never copy `../../outside.py` in."] == Triggers(files=("pkg/**/*.py",))
    assert not [n for n in report["not_carried"] if n["code"] == "no-trigger"]


def test_a_folders_rules_speak_of_the_folder_holding_nearly_all_its_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pnpm's `pnpm/AGENTS.md` is about its crates: nine in ten of the folder's Rust files
    lie in `pnpm/crates/`, the rest in task programs beside them. A folder whose code is
    spread over its folders keeps them all."""
    crates = {f"pnpm/crates/c{n}/src/lib.rs": "" for n in range(19)}
    files = {**crates, "pnpm/tasks/bench/main.rs": "", "pnpm/README.md": "# x\n"}
    files |= {"web/a/x.ts": "", "web/b/y.ts": "", "web/c/z.ts": "", "web/README.md": "# x\n"}
    files |= {f"lib/m{n}.ts": "" for n in range(60)}  # so that neither is most of the repo
    layout, _ = init_project(make_repo(tmp_path / "repo", files))
    instructions(layout, "pnpm/AGENTS.md", "- Never use `unwrap()` in library code.\n")
    instructions(layout, "web/AGENTS.md", "- Never use `any` in exported types.\n")
    imported(layout, monkeypatch)
    found = triggers_by_rule(layout)
    assert found["Never use `unwrap()` in library code."].files == ("pnpm/crates/**/*.rs",)
    assert found["Never use `any` in exported types."].files == ("web/**/*.ts",)


def test_a_folders_test_data_is_not_what_its_rules_speak_of(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pnpr/ holds 418 fixture files beside its crates' Rust sources and a client's few
    TypeScript files: `pnpr/AGENTS.md` is about the crates."""
    files = {f"pnpr/.fixtures/pkg{n}/package.json": "{}\n" for n in range(60)}
    files |= {f"pnpr/crates/c{n}/src/lib.rs": "" for n in range(20)}
    files |= {"pnpr/client/a.ts": "", "pnpr/README.md": "# x\n"}
    files |= {f"lib/m{n}.ts": "" for n in range(120)}  # so that pnpr/ is not most of the repo
    layout, _ = init_project(make_repo(tmp_path / "repo", files))
    instructions(layout, "pnpr/AGENTS.md", "- Never use `unwrap()` in library code.\n")
    imported(layout, monkeypatch)
    found = triggers_by_rule(layout)
    assert found["Never use `unwrap()` in library code."].files == ("pnpr/crates/**/*.rs",)


def test_a_folders_rule_on_components_speaks_of_its_jsx(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In `web/AGENTS.md`, over TypeScript and TSX sources, a rule on React components is
    about the TSX files, as in a rule file; any other rule about them all."""
    files = {f"web/src/c{n}.tsx": "" for n in range(10)}
    files |= {f"web/src/u{n}.ts": "" for n in range(10)}
    files |= {f"lib/m{n}.py": "" for n in range(60)}  # so that web/ is not most of the repo
    layout, _ = init_project(make_repo(tmp_path / "repo", files))
    rules = "- Name components in PascalCase.\n- Never use `any` in exported types.\n"
    instructions(layout, "web/AGENTS.md", rules)
    imported(layout, monkeypatch)
    found = triggers_by_rule(layout)
    assert found["Name components in PascalCase."].files == ("web/src/**/*.tsx",)
    assert found["Never use `any` in exported types."].files == (
        "web/src/**/*.ts",
        "web/src/**/*.tsx",
    )


def test_import_reads_the_root_file_from_the_root(
    repo: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same rules at the root: the root's files, the root's `**/conftest.py`."""
    instructions(
        repo,
        "AGENTS.md",
        "- Never edit `generated/api.py` by hand.\n"
        "- Put shared fixtures in `conftest.py`.\n"
        "- Run `./gen.sh` after changing `shared/schema.json`.\n",
    )
    imported(repo, monkeypatch)
    found = triggers_by_rule(repo)
    assert found["Never edit `generated/api.py` by hand."].files == ("generated/api.py",)
    assert found["Put shared fixtures in `conftest.py`."].files == ("**/conftest.py",)
    script = found["Run `./gen.sh` after changing `shared/schema.json`."]
    assert script == Triggers(files=("shared/schema.json",))  # not the gen.sh it asks for
