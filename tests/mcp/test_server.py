"""`lessons mcp` as a real process on stdio: only protocol on stdout, malformed input
survived, gone when the client goes, and started the way init registers it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest

from bench.mcp_tools import INITIALIZE
from lessons_cli.mcp_server import Unanswered
from lessons_cli.mcp_tools import SPECS
from lessons_core.store.layout import Layout
from tests.conftest import harness_env, run, save_lesson, wired_here
from tests.mcp.stdio_client import INITIALIZED, Server

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


# The 2026-07-28 protocol has no handshake: each request carries its envelope in _meta.
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "piped", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _call(request_id: int | str, name: str, arguments: dict[str, Any], modern: bool) -> Any:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if modern:
        params["_meta"] = MODERN_META
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


@pytest.mark.parametrize("modern", [False, True], ids=["initialize", "2026-07-28"])
def test_every_request_read_before_end_of_input_is_answered(repo: Layout, modern: bool) -> None:
    """A file of requests piped in (stdin ends right after the last): each gets its one
    answer before the server exits, run after run, the capture among them, in either
    protocol era. The SDK alone cancelled the calls still running at end of input and
    answered about half."""
    save_lesson(repo, "code-app", APP_RULE, files=("src/app.py",), topics=("code",))
    requests: list[dict[str, Any]] = [] if modern else [INITIALIZE, INITIALIZED]
    for number in range(1, 13):
        query = {"file": "src/app.py", "prompt": f"{number}"}
        requests.append(_call(number, "lessons_query", query, modern))
    requests.insert(7, _call("topics", "lessons_topics", {}, modern))
    expected = sorted(["add", "topics", *map(str, range(1, 13)), *([] if modern else ["0"])])
    piped = repo.root / "requests.jsonl"
    for run_number in range(4):
        adding = {
            "rule": f"Run make gen number {run_number} after editing src/app.py.",
            "topic": "gen",
            "files": ["src/app.py"],
            "force": True,
        }
        add = _call("add", "lessons_add", adding, modern)
        piped.write_text("".join(json.dumps(r) + "\n" for r in [*requests, add]))
        with piped.open("rb") as stdin:
            done = subprocess.run(
                SERVE, cwd=repo.root, stdin=stdin, capture_output=True, timeout=120, check=True
            )
        replies = [json.loads(line) for line in done.stdout.splitlines()]
        answered = [reply["id"] for reply in replies]
        assert sorted(map(str, answered)) == expected
        assert "error" not in replies[answered.index("add")]
        assert replies[answered.index("add")]["result"].get("isError") is not True
    assert len(list(repo.lessons_dir.glob("gen-*.json"))) == 4


def test_a_cancelled_request_is_not_waited_for() -> None:
    """At end of input the server waits for the answers still owed; a request the client
    cancelled gets none (the protocol says so), so it is not owed."""
    owed = Unanswered()
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "x"}}
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
    owed.opened(mcp_types.JSONRPCRequest.model_validate(call))
    owed.opened(mcp_types.JSONRPCRequest.model_validate({**call, "id": 8}))
    assert set(owed.ids) == {7, 8}
    owed.opened(mcp_types.JSONRPCNotification.model_validate(cancel))
    assert set(owed.ids) == {8}
    owed.answered(
        mcp_types.JSONRPCResponse.model_validate({"jsonrpc": "2.0", "id": 8, "result": {}})
    )

    async def settle() -> None:
        with anyio.fail_after(5):
            await owed.settled()

    anyio.run(settle)
