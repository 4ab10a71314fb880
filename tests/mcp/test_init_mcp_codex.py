"""`lessons init --codex --mcp`: the server as a `[mcp_servers.lessons]` table in the
project's .codex/config.toml, edited as text so the rest of the file stays as written."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lessons_cli.harnesses import servers
from tests.conftest import init_in

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the test matrix runs 3.11
    import tomli as tomllib

CONFIG = ".codex/config.toml"
COMMAND = (
    'r=.; [ -f ".lessons/run" ] || r=$(git rev-parse --show-toplevel 2>/dev/null); '
    'cd "$r/" && exec sh .lessons/run mcp'
)
USER_CONFIG = """\
# the team's Codex settings
model = "gpt-5.5"   # kept as written

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-server"]

[profiles.fast]
model_reasoning_effort = "low"
"""


def _config(root: Path) -> Path:
    path = root / CONFIG
    path.parent.mkdir(exist_ok=True)
    return path


def _init(root: Path, monkeypatch: pytest.MonkeyPatch, *flags: str) -> tuple[int, str, str]:
    return init_in(root, *flags, monkeypatch=monkeypatch)


def test_the_table_is_appended_and_the_rest_of_the_file_kept_byte_for_byte(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _config(plain_repo)
    path.write_text(USER_CONFIG)
    code, out, err = _init(plain_repo, monkeypatch, "--codex", "--mcp")
    assert code == 0, err
    assert "registered the lessons MCP server for codex: .codex/config.toml" in out
    text = path.read_text()
    assert text.startswith(USER_CONFIG)
    data = tomllib.loads(text)
    assert data["mcp_servers"]["lessons"] == {"command": "sh", "args": ["-c", COMMAND]}
    assert data["mcp_servers"]["docs"]["args"] == ["-y", "docs-server"]
    assert data["profiles"]["fast"] == {"model_reasoning_effort": "low"}
    assert servers.installed(plain_repo, CONFIG)


def test_rerunning_changes_nothing_and_removal_restores_the_file(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _config(plain_repo)
    path.write_text(USER_CONFIG)
    _init(plain_repo, monkeypatch, "--codex", "--mcp")
    before = path.read_bytes()
    code, out, _ = _init(plain_repo, monkeypatch, "--codex", "--mcp")
    assert code == 0
    assert "already registered the lessons MCP server for codex" in out
    assert path.read_bytes() == before
    code, out, _ = _init(plain_repo, monkeypatch, "--remove-hooks")
    assert "removed the lessons MCP server: .codex/config.toml" in out
    assert path.read_text() == USER_CONFIG


def test_an_older_entry_of_ours_is_replaced_where_it_stands(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table of ours in the middle of the file, written by an older version: replaced
    there, the tables after it untouched."""
    path = _config(plain_repo)
    old = '[mcp_servers.lessons]\ncommand = "lessons"\nargs = ["mcp"]\n\n'
    head, tail = USER_CONFIG.split("[profiles.fast]")
    path.write_text(head + old + "[profiles.fast]" + tail)
    code, _, err = _init(plain_repo, monkeypatch, "--codex", "--mcp")
    assert code == 0, err
    text = path.read_text()
    assert text.startswith(head + "[mcp_servers.lessons]\n")
    assert text.endswith("\n[profiles.fast]" + tail)
    assert tomllib.loads(text)["mcp_servers"]["lessons"]["args"] == ["-c", COMMAND]


def test_a_file_holding_only_our_table_is_deleted_on_removal(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _init(plain_repo, monkeypatch, "--codex", "--mcp")
    path = plain_repo / CONFIG
    text = path.read_text()
    assert text.splitlines()[:2] == ["[mcp_servers.lessons]", 'command = "sh"']
    assert tomllib.loads(text) == {
        "mcp_servers": {"lessons": {"command": "sh", "args": ["-c", COMMAND]}}
    }
    _init(plain_repo, monkeypatch, "--remove-hooks")
    assert not path.exists()


def test_a_file_without_a_final_newline_gets_the_table_on_its_own_lines(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _config(plain_repo)
    path.write_text('model = "gpt-5.5"')
    _init(plain_repo, monkeypatch, "--codex", "--mcp")
    text = path.read_text()
    assert text.startswith('model = "gpt-5.5"\n\n[mcp_servers.lessons]\n')
    _init(plain_repo, monkeypatch, "--remove-hooks")
    assert path.read_text() == 'model = "gpt-5.5"\n'


def test_comments_before_the_next_table_stay_with_it(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A comment between our table and the next belongs to the next: a re-run that
    replaces ours, and the removal, keep it."""
    path = _config(plain_repo)
    text = (
        'model = "o3"\n\n[mcp_servers.lessons]\ncommand = "lessons"\nargs = ["mcp"]\n\n'
        '# Profiles for work\n[profiles.x]\nmodel = "o4"\n# [profiles.off] disabled\n'
    )
    path.write_text(text)
    _init(plain_repo, monkeypatch, "--codex", "--mcp")
    assert "\n\n# Profiles for work\n[profiles.x]\n" in path.read_text()
    _init(plain_repo, monkeypatch, "--remove-hooks")
    assert path.read_text() == (
        'model = "o3"\n\n# Profiles for work\n[profiles.x]\nmodel = "o4"\n'
        "# [profiles.off] disabled\n"
    )


def test_windows_line_endings_are_kept(plain_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _config(plain_repo)
    original = b'# my codex\r\nmodel = "o3"\r\n'
    path.write_bytes(original)
    _init(plain_repo, monkeypatch, "--codex", "--mcp")
    written = path.read_bytes()
    assert written.startswith(original)
    assert b"\n" not in written.replace(b"\r\n", b"")
    _init(plain_repo, monkeypatch, "--remove-hooks")
    assert path.read_bytes() == original


def test_a_byte_order_mark_is_read_and_kept(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _config(plain_repo)
    original = '\ufeffmodel = "o3"\n'.encode()
    path.write_bytes(original)
    code, _, err = _init(plain_repo, monkeypatch, "--codex", "--mcp")
    assert code == 0, err
    assert path.read_bytes().startswith(original)
    _init(plain_repo, monkeypatch, "--remove-hooks")
    assert path.read_bytes() == original


def test_a_file_that_is_not_utf8_is_refused_and_removal_cleans_the_rest(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The config cannot be read: init says so; --remove-hooks names it, still removes
    the other harnesses' entries and sections, and fails."""
    _init(plain_repo, monkeypatch, "--codex", "--gemini", "--mcp", "--agents-md")
    path = plain_repo / CONFIG
    broken = b'model = "caf\xe9"\n'
    path.write_bytes(broken)
    code, _, err = _init(plain_repo, monkeypatch, "--codex", "--mcp")
    assert code == 1
    assert "not valid TOML" in err
    code, out, err = _init(plain_repo, monkeypatch, "--remove-hooks")
    assert code == 1
    assert f"{path}: not valid TOML" in err
    assert "removed the lessons MCP server: .gemini/settings.json" in out
    assert "removed the lessons section: AGENTS.md" in out
    assert path.read_bytes() == broken


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            '[mcp_servers.lessons]\ncommand = "npx"\nargs = ["other-lessons"]\n',
            "already has a server called 'lessons'",
        ),
        (
            'mcp_servers.lessons = { command = "npx", args = ["other"] }\n',
            "already has a server called 'lessons'",
        ),
        (
            '[mcp_servers]\nlessons = { command = "lessons", args = ["mcp"] }\n',
            "change it by hand",
        ),
        ('mcp_servers = { docs = { command = "npx" } }\n', "cannot add its [mcp_servers.lessons]"),
        ("model = \n", "not valid TOML"),
    ],
    ids=["someone-elses", "someone-elses-dotted", "ours-inline", "servers-inline", "unparsable"],
)
def test_a_file_lessons_cannot_edit_is_left_as_written(
    plain_repo: Path, monkeypatch: pytest.MonkeyPatch, text: str, said: str
) -> None:
    """Someone else's server called lessons, ours in a form lessons does not edit, a
    [mcp_servers] written inline, a file that does not parse: init says why and writes
    nothing; --remove-hooks leaves the file as it is too."""
    path = _config(plain_repo)
    path.write_text(text)
    code, _, err = _init(plain_repo, monkeypatch, "--codex", "--mcp")
    assert code == 1
    assert said in err
    assert path.read_text() == text
    _init(plain_repo, monkeypatch, "--remove-hooks")
    assert path.read_text() == text
