"""The programs a project builds, read from its own files (``importers.own_programs``),
and a rule naming one of them is a rule on that command."""

from __future__ import annotations

from pathlib import Path

from lessons_core.importers.own_programs import own_programs
from lessons_core.store.layout import Layout
from lessons_core.store.model import Triggers
from tests.conftest import import_instructions
from tests.test_import_judgement import lessons, write


def tracked(root: Path, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return list(files)


def test_each_ecosystem_names_the_programs_it_builds(tmp_path: Path) -> None:
    """A Go `cmd/NAME/main.go`, a Rust `[[bin]]` or a package with `src/main.rs`, a
    Python `[project.scripts]` entry and a `package.json` `bin` each name a program; a
    library crate, a package without `bin` and a manifest that is no TOML name none."""
    paths = tracked(
        tmp_path,
        {
            "cmd/bd/main.go": "package main\n",
            "cmd/README.md": "",
            "cli/Cargo.toml": '[package]\nname = "nu"\n[[bin]]\nname = "nu-lint"\n',
            "cli/src/main.rs": "fn main() {}\n",
            "lib/Cargo.toml": '[package]\nname = "nu-protocol"\n',
            "pyproject.toml": '[project]\nname = "x"\n[project.scripts]\nbrowser-use = "x:main"\n',
            "web/package.json": '{"name": "@scope/pw", "bin": "cli.js"}',
            "tools/package.json": '{"name": "t", "bin": {"tsx-run": "run.js"}}',
            "docs/package.json": '{"name": "docs"}',
            "broken/Cargo.toml": "[package\n",
        },
    )
    assert own_programs(tmp_path, paths) == frozenset(
        {"bd", "nu", "nu-lint", "browser-use", "pw", "tsx-run"}
    )


def test_a_rule_on_the_projects_own_command_fires_on_it(repo: Layout) -> None:
    """ "DO NOT use `bd edit`" in a project that builds `bd` is a rule on `bd edit`."""
    write(repo, "cmd/bd/main.go", "package main\n")
    write(repo, "AGENTS.md", "- DO NOT use `bd edit` - it opens an interactive editor.\n")
    import_instructions()
    assert lessons(repo) == {"DO NOT use `bd edit`.": Triggers(commands=("bd edit",))}


def test_a_manifest_that_leads_out_of_the_repo_names_nothing(tmp_path: Path) -> None:
    """A `package.json` linked to a file outside the repo is nothing of the project's: its
    `bin` names no program, and the file outside is never read."""
    outside = tmp_path / "outside.json"
    outside.write_text('{"name": "x", "bin": {"leaked": "run.js"}}')
    root = tmp_path / "repo"
    root.mkdir()
    (root / "package.json").symlink_to(outside)
    paths = tracked(root, {"pyproject.toml": '[project.scripts]\nmine = "x:main"\n'})
    assert own_programs(root, [*paths, "package.json"]) == frozenset({"mine"})
