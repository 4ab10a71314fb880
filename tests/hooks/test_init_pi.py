"""`lessons init --pi`: Pi's TypeScript extension, .pi/extensions/lessons.ts, written as
shipped, merged beside a project's own extensions, removed byte for byte, and checked by
`lessons doctor`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from lessons_cli.app import cli
from lessons_cli.doctor import diagnose
from lessons_cli.harnesses import pi, wiring, wirings
from lessons_cli.harnesses.plugin_files import PLUGIN_FILES
from lessons_core.store.layout import Layout
from tests.conftest import init_in

SPEC = wirings()["pi"]
EXTENSION = Path(".pi") / "extensions" / "lessons.ts"
OWN = "export default function (pi) {}\n"


def _tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but .git and .lessons, with its bytes."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.relative_to(root).parts[0] not in (".git", ".lessons")
    }


def _folders(root: Path) -> set[str]:
    return {
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir() and ".git" not in p.parts
    }


def test_init_writes_the_shipped_extension(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is the shipped one, byte for byte; a re-run writes nothing."""
    code, out, err = init_in(plain_repo, "--pi", monkeypatch=monkeypatch)
    assert code == 0
    assert "wired pi: .pi/extensions/lessons.ts" in out
    assert f"only in a session started in {plain_repo}" in err  # not in a subfolder
    assert (plain_repo / EXTENSION).read_bytes() == PLUGIN_FILES["pi"].text("")
    assert wiring.installed(plain_repo, SPEC)
    _, again, _ = init_in(plain_repo, "--pi", monkeypatch=monkeypatch)
    assert "already wired pi" in again


def test_the_extension_runs_the_launcher_beside_it() -> None:
    """The extension runs `.lessons/run hook pi` from its own folder, with a bounded
    timeout, and only for the tools the adapter reads."""
    text = PLUGIN_FILES["pi"].text("").decode()
    assert '"..", "..", ".lessons", "run"' in text
    assert 'spawnSync("sh", [LAUNCHER, "hook", "pi"]' in text
    assert "timeout: TIMEOUT_MS" in text
    assert 'const CHANGES = ["edit", "write", "bash"];' in text
    assert 'const TOOLS = [...CHANGES, "read"];' in text
    assert (*pi.CHANGE_TOOLS, "read") == pi.TOOLS
    assert pi.CHANGE_TOOLS == ("edit", "write", "bash")
    for event in pi.EVENTS:
        assert f'ask("{event}"' in text


def test_remove_hooks_restores_the_tree_byte_for_byte(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project with its own extension and pi settings: init adds lessons.ts beside them,
    --remove-hooks takes exactly that out again."""
    own = plain_repo / ".pi" / "extensions" / "own.ts"
    own.parent.mkdir(parents=True)
    own.write_text(OWN)
    (plain_repo / ".pi" / "settings.json").write_text('{"theme": "dark"}\n')
    before, folders = _tree(plain_repo), _folders(plain_repo)
    init_in(plain_repo, "--pi", monkeypatch=monkeypatch)
    assert set(_tree(plain_repo)) - set(before) == {str(EXTENSION)}
    code, out, _ = init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert code == 0
    assert "removed pi hooks: .pi/extensions/lessons.ts" in out
    assert _tree(plain_repo) == before
    assert _folders(plain_repo) - {".lessons", ".lessons/lessons", ".lessons/local"} == folders


def test_remove_hooks_takes_the_folders_it_made(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init_in(plain_repo, "--pi", monkeypatch=monkeypatch)
    _, out, _ = init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert "removed the empty folder .pi/extensions/" in out
    assert not (plain_repo / ".pi").exists()


def test_a_file_of_that_name_lessons_did_not_write_is_left_alone(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """init refuses to overwrite it, naming it; --remove-hooks leaves it as it is."""
    mine = plain_repo / EXTENSION
    mine.parent.mkdir(parents=True)
    mine.write_text(OWN)
    code, _, err = init_in(plain_repo, "--pi", monkeypatch=monkeypatch)
    assert code == 1
    assert f"{mine}: a file lessons did not write" in err
    init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert mine.read_text() == OWN


def test_an_older_extension_of_ours_is_replaced_and_doctor_says_so(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An extension of ours from another version: doctor warns and names the fix; init
    writes this version's over it; doctor is content."""
    init_in(plain_repo, "--pi", monkeypatch=monkeypatch)
    path = plain_repo / EXTENSION
    path.write_bytes(PLUGIN_FILES["pi"].text("") + b"// an older line\n")
    env = dict(os.environ)
    check, _ = [c for c in diagnose(Layout(plain_repo), env) if c.subject == "pi"]
    assert (check.status, check.fix) == (
        "warn",
        "lessons init --pi  (rewrites it; commit the change)",
    )
    init_in(plain_repo, "--pi", monkeypatch=monkeypatch)
    assert path.read_bytes() == PLUGIN_FILES["pi"].text("")
    check, _ = [c for c in diagnose(Layout(plain_repo), env) if c.subject == "pi"]
    assert check.status == "ok"
    assert check.detail == ".pi/extensions/lessons.ts: 7 events through .lessons/run"


def test_doctor_fails_when_the_launcher_is_missing(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init_in(plain_repo, "--pi", monkeypatch=monkeypatch)
    (plain_repo / ".lessons" / "run").unlink()
    result = CliRunner().invoke(cli, ["doctor", "--json"])
    checks = [c for c in json.loads(result.stdout)["checks"] if c["subject"] == "pi"]
    assert (checks[0]["status"], checks[0]["fix"]) == ("fail", "lessons init --pi")
    assert result.exit_code == 1


@pytest.mark.parametrize(
    ("extensions", "loaded"),
    [
        (["-extensions/lessons.ts"], False),  # what `pi config` writes to turn it off
        (["!extensions/*.ts"], False),
        (["!lessons.ts", "+extensions/lessons.ts"], True),
        (["!*.ts", "+./extensions/lessons.ts", "-extensions/lessons.ts"], False),
        (["!extensions/other.ts", "extensions/*.ts"], True),
    ],
)
def test_doctor_says_when_pi_settings_turn_the_extension_off(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch, extensions: list[str], loaded: bool
) -> None:
    """.pi/settings.json's `extensions` overrides, read as Pi reads them."""
    init_in(plain_repo, "--pi", monkeypatch=monkeypatch)
    settings = {"extensions": extensions}
    (plain_repo / ".pi" / "settings.json").write_text(json.dumps(settings))
    _, switch = [c for c in diagnose(Layout(plain_repo), dict(os.environ)) if c.subject == "pi"]
    assert switch.status == ("ok" if loaded else "fail")
