"""`lessons init --cline` writes Cline's plugin, `--remove-hooks` takes it out byte for
byte, and `lessons doctor` checks it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lessons_cli.doctor import diagnose
from lessons_cli.harnesses.cline import PLUGIN
from lessons_cli.harnesses.plugin_files import PLUGIN_FILES
from lessons_core.store.layout import Layout
from tests.conftest import init_in

OTHER_PLUGIN = b"module.exports = { name: 'mine', manifest: { capabilities: ['hooks'] } };\n"


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` but .git and .lessons, with a file's bytes."""
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if not name.startswith((".git/", ".lessons")) and name != ".git":
            found[name] = path.read_bytes() if path.is_file() else None
    return found


def test_init_writes_the_plugin_beside_others_and_removal_restores_the_folder(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plugin of the user's stays where it is; after --remove-hooks the tree is what it
    was, byte for byte; a rerun of init changes nothing."""
    mine = plain_repo / ".cline" / "plugins" / "mine.js"
    mine.parent.mkdir(parents=True)
    mine.write_bytes(OTHER_PLUGIN)
    before = tree(plain_repo)
    code, out, _ = init_in(plain_repo, "--cline", monkeypatch=monkeypatch)
    assert code == 0
    assert f"wired cline: {PLUGIN}" in out
    written = (plain_repo / PLUGIN).read_bytes()
    assert written.startswith(PLUGIN_FILES["cline"].mark)
    assert b"hook cline || true" in written
    assert mine.read_bytes() == OTHER_PLUGIN
    code, out, _ = init_in(plain_repo, "--cline", monkeypatch=monkeypatch)
    assert f"already wired cline: {PLUGIN}" in out
    code, out, err = init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert (code, err) == (0, "")
    assert f"removed cline hooks: {PLUGIN}" in out
    assert tree(plain_repo) == before


def test_removal_leaves_no_folder_it_emptied(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tree(plain_repo)
    init_in(plain_repo, "--cline", monkeypatch=monkeypatch)
    code, out, _ = init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert code == 0
    assert "removed the empty folder .cline/" in out
    assert tree(plain_repo) == before


def test_a_lessons_js_of_someone_else_is_kept_and_named(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = plain_repo / PLUGIN
    theirs.parent.mkdir(parents=True)
    theirs.write_bytes(OTHER_PLUGIN)
    code, _, err = init_in(plain_repo, "--cline", monkeypatch=monkeypatch)
    assert code == 1
    assert "a file lessons did not write" in err
    assert theirs.read_bytes() == OTHER_PLUGIN
    init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert theirs.read_bytes() == OTHER_PLUGIN


def _cline_check(root: Path) -> tuple[str, str]:
    (check,) = [
        c for c in diagnose(Layout(root), {"PATH": "/usr/bin:/bin"}) if c.subject == "cline"
    ]
    return check.status, check.detail


def test_doctor_checks_the_plugin(plain_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ok as written; warn when it is not this version's text; fail when the launcher it
    runs is gone."""
    init_in(plain_repo, "--cline", monkeypatch=monkeypatch)
    assert _cline_check(plain_repo) == ("ok", f"{PLUGIN}: 4 events through .lessons/run")
    plugin = plain_repo / PLUGIN
    plugin.write_bytes(plugin.read_bytes().replace(b"TIMEOUT_MS = 2500", b"TIMEOUT_MS = 900"))
    status, detail = _cline_check(plain_repo)
    assert (status, "another version" in detail) == ("warn", True)
    (plain_repo / ".lessons" / "run").unlink()
    status, detail = _cline_check(plain_repo)
    assert (status, "which is not there" in detail) == ("fail", True)
