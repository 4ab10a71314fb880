"""`lessons init --opencode` / `--kilo`: the plugin file, its removal and `lessons doctor`'s
checks of it (the real clients load it in tests/e2e/test_opencode.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lessons_cli.doctor import diagnose
from lessons_cli.harnesses.plugin_files import PLUGIN_FILES
from lessons_core.store.layout import Layout
from tests.conftest import init_in

PLUGINS = {"opencode": ".opencode/plugin/lessons.js", "kilo": ".kilo/plugin/lessons.js"}


@pytest.mark.parametrize(("name", "path"), sorted(PLUGINS.items()))
def test_init_writes_the_plugin_that_runs_the_launcher(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch, name: str, path: str
) -> None:
    """The plugin names its harness and the committed launcher, relative to itself; a
    second run changes nothing and says so; `git add` names it."""
    code, out, _ = init_in(plain_repo, f"--{name}", monkeypatch=monkeypatch)
    assert code == 0
    assert f"wired {name}: {path}" in out
    assert f"'{path}'" in out  # in the `git add` line
    text = (plain_repo / path).read_text()
    assert text.startswith("// lessons: ")
    assert f'const HARNESS = "{name}";' in text
    assert 'new URL("../../.lessons/run", import.meta.url)' in text
    assert "timeout: 10000" in text
    before = (plain_repo / path).read_bytes()
    code, out, _ = init_in(plain_repo, f"--{name}", monkeypatch=monkeypatch)
    assert f"already wired {name}: {path}" in out
    assert (plain_repo / path).read_bytes() == before


def test_remove_hooks_leaves_the_plugin_folder_as_it_was(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A repo with its own OpenCode config and plugin, wired for both clients, then
    unwired: every file that was there is byte for byte the same, the files init wrote
    are gone, and so are the folders only they filled."""
    config = plain_repo / ".opencode" / "opencode.json"
    other = plain_repo / ".opencode" / "plugin" / "audit.js"
    other.parent.mkdir(parents=True)
    config.write_bytes(b'{"model": "x/y"}\n')
    other.write_bytes(b"export const Audit = async () => ({});\n")
    before = {p: p.read_bytes() for p in (config, other)}
    init_in(plain_repo, "--opencode", "--kilo", monkeypatch=monkeypatch)
    code, out, err = init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert (code, err) == (0, "")
    assert "removed opencode hooks: .opencode/plugin/lessons.js" in out
    assert {p: p.read_bytes() for p in (config, other)} == before
    assert sorted(p.name for p in (plain_repo / ".opencode").rglob("*")) == [
        "audit.js",
        "opencode.json",
        "plugin",
    ]
    assert not (plain_repo / ".kilo").exists()
    assert "removed the empty folder .kilo/" in out


def test_a_lessons_js_lessons_did_not_write_is_never_touched(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """init refuses to overwrite it, naming the file; --remove-hooks leaves it."""
    theirs = plain_repo / ".opencode" / "plugin" / "lessons.js"
    theirs.parent.mkdir(parents=True)
    theirs.write_bytes(b"export const Mine = async () => ({});\n")
    code, _, err = init_in(plain_repo, "--opencode", monkeypatch=monkeypatch)
    assert code == 1
    assert "lessons.js: a file lessons did not write" in err
    init_in(plain_repo, "--remove-hooks", monkeypatch=monkeypatch)
    assert theirs.read_bytes() == b"export const Mine = async () => ({});\n"


def _checks(root: Path, name: str, env: dict[str, str]) -> list[tuple[str, str]]:
    return [(c.status, c.detail) for c in diagnose(Layout(root), env) if c.subject == name]


@pytest.mark.parametrize("name", sorted(PLUGINS))
def test_doctor_checks_the_plugin(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """This version's plugin is ok; an older one warns with the command that rewrites it;
    a variable that makes the client skip project plugins warns, naming it."""
    init_in(plain_repo, f"--{name}", monkeypatch=monkeypatch)
    assert _checks(plain_repo, name, {}) == [
        ("ok", f"{PLUGINS[name]}: 6 events through .lessons/run")
    ]
    pure = f"{name.upper()}_PURE"
    (warned,) = [c for c in _checks(plain_repo, name, {pure: "1"}) if c[0] == "warn"]
    assert pure in warned[1]
    path = plain_repo / PLUGINS[name]
    path.write_bytes(PLUGIN_FILES[name].text("").replace(b"timeout: 10000", b"timeout: 5000"))
    assert _checks(plain_repo, name, {}) == [
        ("warn", f"{PLUGINS[name]} was written by another version of lessons")
    ]
