"""`lessons mcp` as a real process on stdio: only protocol on stdout, malformed input
survived, gone when the client goes, and started the way init registers it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lessons_cli.mcp_tools import SPECS
from lessons_core.store.layout import Layout
from tests.conftest import harness_env, run, save_lesson, wired_here
from tests.mcp.stdio_client import Server

APP_RULE = "Keep src/app.py free of import-time side effects."
SERVE = [sys.executable, "-m", "lessons_cli", "mcp"]


@pytest.fixture
def server(repo: Layout) -> Iterator[Server]:
    save_lesson(repo, "code-app", APP_RULE, files=("src/app.py",), topics=("code",))
    started = Server(SERVE, repo.root)
    started.start()
    yield started
    started.stop()


def test_stdout_carries_nothing_but_protocol_messages(repo: Layout, server: Server) -> None:
    """With a broken lesson file, a config setting of the wrong type and a capture that
    warns, every line the server wrote to stdout is a JSON-RPC 2.0 message answering a
    request; the warnings go to stderr, the log clients keep of a server."""
    (repo.lessons_dir / "broken.json").write_text("{nope")
    repo.config_path.write_text('{"max_tokens": "many"}\n')
    listed = server.request(1, "tools/list")
    assert [tool["name"] for tool in listed["result"]["tools"]] == list(SPECS)
    query = server.call(2, "lessons_query", {"file": "src/app.py"})
    assert APP_RULE in query["result"]["content"][0]["text"]
    added = server.call(
        3,
        "lessons_add",
        {"rule": "Regenerate src/gen/ with make gen.", "topic": "gen", "files": ["src/gen/**"]},
    )
    assert "warning: " in added["result"]["content"][0]["text"]  # the glob matches no file yet
    code, rest = server.close()
    assert code == 0
    for line in [*server.seen, *rest.splitlines()]:
        message = json.loads(line)
        assert message["jsonrpc"] == "2.0"
        assert message["id"] in {0, 1, 2, 3}
    log = server.stop()  # the server's stderr, which clients keep as its log
    assert "warning: skipped" in log
    assert "broken.json" in log
    assert "max_tokens" in log


def test_malformed_requests_are_answered_or_dropped_and_the_server_goes_on(
    server: Server,
) -> None:
    """Bad JSON, an unknown method, a call without params, arguments of the wrong type, an
    unknown tool, bad arguments: each is an error or ignored; the next call works."""
    server.send("this is not json{")
    server.send("[1, 2, 3]")
    assert server.request(10, "no/such/method")["error"]["code"] == -32601
    assert server.request(11, "tools/call")["error"]["code"] == -32602
    wrong = server.request(12, "tools/call", {"name": "lessons_query", "arguments": "src"})
    assert wrong["error"]["code"] == -32602
    unknown = server.call(13, "lessons_nope", {})["result"]
    assert unknown["isError"] is True
    assert unknown["structuredContent"]["error"]["code"] == "unknown-tool"
    bad = server.call(14, "lessons_add", {"rule": ["a"], "topic": "t"})["result"]
    assert bad["structuredContent"]["error"] == {
        "code": "bad-argument",
        "problem": "'rule' must be a string",
        "fix": "call the tool again with the arguments fixed",
    }
    topics = server.call(15, "lessons_topics")["result"]
    assert topics["content"][0]["text"].splitlines()[2:-1] == ["code\t1"]
    assert server.close()[0] == 0


def test_the_server_exits_when_the_client_closes_stdin(server: Server) -> None:
    """No request pending: closing stdin ends the process, exit code 0."""
    assert server.close(timeout=20)[0] == 0


def test_a_failed_query_is_a_tool_error_with_the_fix(server: Server, repo: Layout) -> None:
    """A file outside the repo: the model gets the problem and the fix, not a crash."""
    reply = server.call(20, "lessons_query", {"file": "/etc/passwd"})["result"]
    assert reply["isError"] is True
    error = reply["structuredContent"]["error"]
    assert error["problem"] == "no .lessons/ directory in /etc or any parent"
    assert error["fix"] == "run 'lessons init' at the repo root"


@pytest.mark.parametrize("project_var", [True, False])
def test_the_registered_command_starts_the_server_from_a_subfolder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project_var: bool
) -> None:
    """The command `init --claude-code --mcp` writes into .mcp.json, run as a client runs
    it (``sh -c``) from a subfolder, with CLAUDE_PROJECT_DIR set as Claude Code sets it or
    without it (another client reading .mcp.json): the committed launcher finds the
    install, and the server answers for the repo's store."""
    root = wired_here(tmp_path, monkeypatch, "--claude-code", "--mcp")
    assert run("add", APP_RULE, "--topic", "code", "--trigger-file", "src/a.py").exit_code == 0
    entry = json.loads((root / ".mcp.json").read_text())["mcpServers"]["lessons"]
    env = harness_env(root)
    if not project_var:
        del env["CLAUDE_PROJECT_DIR"]
    (root / "src" / "deep").mkdir()
    started = Server([entry["command"], *entry["args"]], root / "src" / "deep", env)
    try:
        started.start()
        reply = started.call(1, "lessons_query", {"file": "src/a.py"})["result"]
        assert APP_RULE in reply["content"][0]["text"]
        assert started.close()[0] == 0
    finally:
        started.stop()


def test_lessons_mcp_help_runs_without_the_sdk() -> None:
    """`lessons mcp --help` (and every other command) loads no part of the SDK."""
    probe = (
        "import sys; from lessons_cli.main import main\n"
        "try:\n    main(['mcp', '--help'])\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write(','.join(m for m in ('mcp', 'pydantic', 'anyio') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert "Example:" in done.stdout
    assert done.stderr == ""
