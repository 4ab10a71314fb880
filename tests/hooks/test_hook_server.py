"""The hook server (lessons_cli.hook_client, lessons_cli.hook_server): a hook's call handed
to a warm process of the same install answers as the hook's own process would, and every
way the server can fail leaves the call to the hook's own process, in bounded time.

Real hook processes, a real server, real repos. The hooks and servers run from an install
of this tree of the module's own (a venv in a temp folder), so their server is no other
test's: the real harness clients of tests/e2e, run meanwhile by another worker, use the
test interpreter's. A hook process that is forbidden to import ``hook_runner``
(``SERVED_ONLY``) can only answer through the server: it fails loudly if it falls back,
which proves that a call was served.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.installs import Install, linked
from lessons_cli import hook_client, hook_server
from lessons_core import local_service
from lessons_core.store.layout import HOOK_SERVER_STARTED, Layout
from lessons_core.store.project import init_project
from tests.conftest import make_repo
from tests.hooks.conftest import payload, write_lesson

pytestmark = pytest.mark.skipif(
    not local_service.available(), reason="the hook server runs on Linux only"
)

H = "claude-code"
RULE = "Keep src/a.py import-safe: no work at module level."
OTHER_RULE = "Log through lessons_core.delivery.hooklog, never print."
HOOK = "from lessons_cli.main import main; main(['hook', {harness!r}])"
# The same, in a process where the hook's own answer is impossible.
SERVED_ONLY = "import sys; sys.modules['lessons_cli.hook_runner'] = None; " + HOOK
WAIT = 20.0


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != hook_client.SWITCH}
    env.update(extra)
    return env


INSTALL: list[Install] = []  # this module's install, made once per worker


@pytest.fixture(scope="module", autouse=True)
def install(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Install]:
    """A venv whose python imports this tree, its server stopped at the end."""
    INSTALL.append(linked(tmp_path_factory.mktemp("install")))
    yield INSTALL[0]
    _python(STOP_CODE)
    INSTALL.clear()


def _python(code: str, **extra: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [INSTALL[0].python, "-c", code],
        check=False,
        capture_output=True,
        env=_env(**extra),
        timeout=60,
    )


STATUS_CODE = (
    "import sys; from lessons_cli.hook_client import STATUS, request; "
    "sys.stdout.buffer.write(request(STATUS) or b'')"
)
STOP_CODE = "from lessons_cli.hook_client import STOP, request; request(STOP)"


def _hook(
    data: dict[str, Any], cwd: Path, code: str = HOOK, **extra: str
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [INSTALL[0].python, "-c", code.format(harness=H)],
        input=json.dumps(data).encode(),
        capture_output=True,
        cwd=cwd,
        env=_env(**extra),
        timeout=60,
        check=False,
    )


def _context(done: subprocess.CompletedProcess[bytes]) -> str:
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.strip(), done.stderr.decode()
    out = json.loads(done.stdout)["hookSpecificOutput"]
    return str(out.get("permissionDecisionReason") or out.get("additionalContext"))


def _status() -> dict[str, Any] | None:
    reply = _python(STATUS_CODE).stdout
    return json.loads(reply) if reply else None


def _until(check: Callable[[], Any], what: str) -> Any:
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"not within {WAIT} s: {what}")


@pytest.fixture
def server(project: Layout) -> Iterator[dict[str, Any]]:
    """The module install's server, started the way a user's first hook starts it."""
    write_lesson(project, "a-import-safe", RULE, files=("src/a.py",))
    first = _hook(payload(H, "pre_tool_use_edit", project.root, session_id="s-first"), project.root)
    assert RULE in _context(first)
    status = _until(_status, "a server started by the first hook")
    yield status
    _python(STOP_CODE)
    _until(lambda: not _alive(status["pid"]), "the server stopped")


def _edit(root: Path, session: str) -> dict[str, Any]:
    return payload(H, "pre_tool_use_edit", root, session_id=session)


def test_the_first_hook_answers_itself_and_starts_a_server_in_the_background(
    project: Layout, server: dict[str, Any]
) -> None:
    """The first call is answered in its own process; the server it started is this
    install's and this user's, and the start is marked in the repo's local folder."""
    assert server["python"] == INSTALL[0].python
    assert Path(server["package"]) == Path(hook_client.__file__).parent
    assert os.path.exists(project.local(HOOK_SERVER_STARTED))
    assert Path(f"/proc/{server['pid']}/status").read_text().count(f"\t{os.getuid()}\t") >= 1


def test_a_served_hook_says_what_its_own_process_says(
    project: Layout, server: dict[str, Any]
) -> None:
    """The same call in a new session, once served (a process that cannot answer itself)
    and once in the hook's own process: the same bytes, the gate's retry silent in both."""
    served = _hook(_edit(project.root, "s-served"), project.root, SERVED_ONLY)
    own = _hook(_edit(project.root, "s-own"), project.root, **{hook_client.SWITCH: "0"})
    assert served.returncode == 0, served.stderr.decode()
    assert served.stdout == own.stdout
    assert RULE in _context(served)
    retry = _hook(_edit(project.root, "s-served"), project.root, SERVED_ONLY)
    assert retry.returncode == 0, retry.stderr.decode()
    assert retry.stdout == b""


def test_the_server_reads_a_lesson_edited_in_place_since_the_last_call(
    project: Layout, server: dict[str, Any]
) -> None:
    """Nothing is kept between calls: a lesson rewritten in place (same inode) after a
    served call is what the next served call shows."""
    assert RULE in _context(_hook(_edit(project.root, "s-1"), project.root, SERVED_ONLY))
    path = project.lesson_path("a-import-safe")
    inode = path.stat().st_ino
    path.write_text(path.read_text().replace("no work at module level", "no I/O at import"))
    assert path.stat().st_ino == inode
    shown = _context(_hook(_edit(project.root, "s-2"), project.root, SERVED_ONLY))
    assert "no I/O at import" in shown, shown


def test_each_served_call_runs_in_its_own_repo_directory_and_environment(
    project: Layout, server: dict[str, Any], tmp_path: Path
) -> None:
    """Calls from two repos, one after the other, each get their own repo's lessons: the
    working directory and the project variable come with each request."""
    other, _ = init_project(make_repo(tmp_path / "other", {"src/a.py": "y = 2\n"}))
    write_lesson(other, "hooklog-only", OTHER_RULE, files=("src/a.py",))
    mine = _context(
        _hook(
            _edit(project.root, "s-x"),
            project.root,
            SERVED_ONLY,
            CLAUDE_PROJECT_DIR=str(project.root),
        )
    )
    theirs = _context(
        _hook(_edit(other.root, "s-x"), other.root, SERVED_ONLY, CLAUDE_PROJECT_DIR=str(other.root))
    )
    assert RULE in mine
    assert OTHER_RULE not in mine
    assert OTHER_RULE in theirs
    assert RULE not in theirs


def test_a_server_that_does_not_answer_is_stopped_and_the_hook_answers_itself(
    project: Layout, server: dict[str, Any]
) -> None:
    """A stalled server (stopped by a signal): the hook waits REPLY_SECONDS at most, kills
    it, answers in its own process; the next hook starts a new server."""
    pid = server["pid"]
    os.kill(pid, 19)  # SIGSTOP
    start = time.monotonic()
    done = _hook(_edit(project.root, "s-stalled"), project.root)
    took = time.monotonic() - start
    assert RULE in _context(done)
    assert hook_client.REPLY_SECONDS <= took < hook_client.REPLY_SECONDS + 10, took
    _until(lambda: not _alive(pid), f"server {pid} killed")
    os.utime(project.local(HOOK_SERVER_STARTED), (0, 0))  # as if the last start were old
    _hook(_edit(project.root, "s-after"), project.root)
    again = _until(_status, "a new server")
    assert again["pid"] != pid


def _alive(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


def test_a_changed_module_file_makes_the_server_decline_and_exit(tmp_path: Path) -> None:
    """``Loaded`` notices a module file rewritten since it was loaded, and a server that
    notices declines the call (the hook answers itself) and stops."""
    module = tmp_path / "lessons_probe_module.py"
    module.write_text("X = 1\n")
    sys.path.insert(0, str(tmp_path))
    try:
        __import__("lessons_probe_module")
        loaded = hook_server.Loaded()
        assert not loaded.changed()
        module.write_text("X = 22\n")
        assert loaded.changed()
        request = hook_server.Request(_request(hook_client.HOOK, H, str(tmp_path)))
        assert hook_server.answer(request, loaded) == hook_client.DECLINED
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("lessons_probe_module", None)


def _request(kind: bytes, harness: str, cwd: str, body: bytes = b"{}") -> bytes:
    header = b"\0".join([kind, harness.encode(), cwd.encode(), b"22", b"HOME=/nonexistent"])
    return len(header).to_bytes(4, "big") + header + body


@pytest.mark.parametrize(
    "data",
    [b"", b"\0\0", b"\0\0\0\x05ab", (2 << 20).to_bytes(4, "big") + b"x", b"\0\0\0\x03a\0b"],
)
def test_a_request_cut_short_or_malformed_is_refused(data: bytes) -> None:
    with pytest.raises(ValueError):
        hook_server.Request(data)


def test_an_unknown_harness_or_a_missing_directory_is_declined(tmp_path: Path) -> None:
    loaded = hook_server.Loaded()
    unknown = hook_server.Request(_request(hook_client.HOOK, "vim", str(tmp_path)))
    gone = hook_server.Request(_request(hook_client.HOOK, H, str(tmp_path / "gone")))
    assert hook_server.answer(unknown, loaded) == hook_client.DECLINED
    assert hook_server.answer(gone, loaded) == hook_client.DECLINED


def test_a_server_serves_no_other_user(monkeypatch: pytest.MonkeyPatch) -> None:
    """A request from a process of another user (as ``SO_PEERCRED`` tells) gets nothing."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with mine, theirs:
        theirs.sendall(_request(hook_client.STATUS, "", "/"))
        theirs.shutdown(socket.SHUT_WR)
        real = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: real + 1)
        reply, last = hook_server._reply(mine, hook_server.Loaded(), 0.0, 0)
    assert (reply, last) == (b"", False)


@pytest.fixture
def fake_server(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Callable[[Callable[[socket.socket], None]], bytes]]:
    """A listener on a name of the test's own, running ``behave`` on each connection."""
    threads: list[threading.Thread] = []
    listeners: list[socket.socket] = []

    def start(behave: Callable[[socket.socket], None]) -> bytes:
        name = f"\0lessons-test-{os.getpid()}-{time.monotonic_ns()}".encode()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(name)
        listener.listen(4)
        listeners.append(listener)

        def loop() -> None:
            connection, _ = listener.accept()
            with connection:
                behave(connection)

        thread = threading.Thread(target=loop, daemon=True)
        thread.start()
        threads.append(thread)
        return name

    yield start
    for listener in listeners:
        listener.close()


def _ask(name: bytes) -> bytes | None:
    listening = local_service.connect(name, 1.0)
    assert listening is not None
    return hook_client.ask(listening, hook_client.HOOK, H, b"{}")


def _drain(connection: socket.socket) -> None:
    local_service.read_all(connection, 1 << 20)


def test_a_reply_is_used_only_when_it_says_served(
    fake_server: Callable[[Callable[[socket.socket], None]], bytes],
) -> None:
    def served(c: socket.socket) -> None:
        _drain(c)
        c.sendall(hook_client.SERVED + b'{"x": 1}')

    def declined(c: socket.socket) -> None:
        _drain(c)
        c.sendall(hook_client.DECLINED)

    def broke_off(c: socket.socket) -> None:
        _drain(c)

    assert _ask(fake_server(served)) == b'{"x": 1}'
    assert _ask(fake_server(declined)) is None
    assert _ask(fake_server(broke_off)) is None


def test_a_late_reply_stops_the_server_and_is_not_waited_for(
    fake_server: Callable[[Callable[[socket.socket], None]], bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stopped: list[int] = []
    monkeypatch.setattr(hook_client, "REPLY_SECONDS", 0.2)
    monkeypatch.setattr(hook_client, "_stop", stopped.append)
    release = threading.Event()

    def late(c: socket.socket) -> None:
        _drain(c)
        release.wait(5)

    name = fake_server(late)
    start = time.monotonic()
    assert _ask(name) is None
    release.set()
    assert time.monotonic() - start < 2
    assert stopped == [os.getpid()]  # the listener is this test process


def test_a_server_is_started_at_most_once_every_few_seconds(
    project: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hooks that find no server start one, but not one each: the marker holds them off
    for SPAWN_EVERY_SECONDS."""
    started: list[list[str]] = []

    def spawn(marker: str, command: list[str], env: object) -> None:
        started.append(command)
        Path(marker).touch()

    monkeypatch.setattr(local_service, "spawn", spawn)
    monkeypatch.chdir(project.root)
    Path(project.local_dir).mkdir(exist_ok=True)
    hook_client.start_server()
    hook_client.start_server()
    assert started == [hook_client.server_command()]
    os.utime(project.local(HOOK_SERVER_STARTED), (0, 0))
    hook_client.start_server()
    assert len(started) == 2


def test_the_switch_turns_the_server_off(monkeypatch: pytest.MonkeyPatch) -> None:
    for value in ("0", "off", "false", "no", "OFF"):
        monkeypatch.setenv(hook_client.SWITCH, value)
        assert not hook_client.enabled()
    monkeypatch.setenv(hook_client.SWITCH, "1")
    assert hook_client.enabled()


LOADED_AT_EXIT = (
    "import atexit, sys; atexit.register(lambda: sys.stderr.write("
    "' '.join(m for m, v in sys.modules.items() if m.startswith('lessons') and v))); "
)


def test_a_served_call_loads_only_the_client(project: Layout, server: dict[str, Any]) -> None:
    """What a served hook pays for: the entry, the client and the socket helpers; none of
    the modules that answer (tests/hooks/test_hook_path.py holds those)."""
    done = _hook(_edit(project.root, "s-lean"), project.root, LOADED_AT_EXIT + SERVED_ONLY)
    assert RULE in _context(done)
    loaded = set(done.stderr.decode().split())
    assert loaded == {
        "lessons_cli",
        "lessons_cli.main",
        "lessons_cli.harnesses",
        "lessons_cli.hook_client",
        "lessons_core",
        "lessons_core.local_service",
    }, loaded


def test_lessons_server_status_and_stop(server: dict[str, Any]) -> None:
    """``lessons server status`` names the running server; ``stop`` stops it, and status
    then says none runs (and ``--json`` says so to a program)."""

    def lessons(*args: str) -> str:
        done = subprocess.run(
            [INSTALL[0].lessons, "server", *args],
            check=False,
            capture_output=True,
            text=True,
            env=_env(),
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    shown = json.loads(lessons("status", "--json"))
    assert shown["running"] is True
    assert shown["pid"] == server["pid"]
    assert f"hook server {server['pid']} runs since" in lessons("status")
    assert lessons("stop") == "hook server stopped\n"
    _until(lambda: not _alive(server["pid"]), "the server stopped")
    assert json.loads(lessons("status", "--json")) == {"enabled": True, "running": False}
    assert lessons("stop") == "no hook server runs for this install\n"
    off = subprocess.run(
        [INSTALL[0].lessons, "server", "status"],
        check=False,
        capture_output=True,
        text=True,
        env=_env(**{hook_client.SWITCH: "0"}),
    )
    assert "turned off: LESSONS_HOOK_SERVER" in off.stdout


def test_an_idle_server_exits_once_its_install_is_gone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without calls, a server looks every CHECK_SECONDS whether its code or interpreter
    changed (a venv deleted with the test that made it): then it exits at once."""
    monkeypatch.setattr(hook_server, "CHECK_SECONDS", 0.05)
    changes = iter([False, False, False, True])
    monkeypatch.setattr(hook_server.Loaded, "changed", lambda self: next(changes))
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with listener:
        listener.bind(f"\0lessons-test-{os.getpid()}-{time.monotonic_ns()}".encode())
        listener.listen(1)
        start = time.monotonic()
        hook_server._serve(listener)
    assert time.monotonic() - start < 5
    assert next(changes, "done") == "done"


def test_a_server_grown_large_exits_after_the_call_that_grew_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A call that leaves the server over MAX_RESIDENT_BYTES (a rebuild of a large store)
    is answered, and then the server exits, so a lean one serves the next call."""
    monkeypatch.setattr(hook_server, "_resident", lambda: hook_server.MAX_RESIDENT_BYTES + 1)
    name = f"\0lessons-test-{os.getpid()}-{time.monotonic_ns()}".encode()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    replies: list[bytes | None] = []

    def ask_status() -> None:
        listening = local_service.connect(name, 5.0)
        assert listening is not None
        replies.append(hook_client.ask(listening, hook_client.STATUS, "", b""))

    with listener:
        listener.bind(name)
        listener.listen(1)
        asking = threading.Thread(target=ask_status)
        asking.start()
        hook_server._serve(listener)  # returns: the server would exit here
        asking.join(5)
    (reply,) = replies
    assert reply is not None
    assert json.loads(reply)["pid"] == os.getpid()


def test_a_hook_with_the_server_off_loads_no_socket_module(project: Layout) -> None:
    """``LESSONS_HOOK_SERVER=0``: the hook answers in its own process without loading
    ``_socket`` (a shared library, up to a millisecond), nor starting a server. The index
    is built first: a rebuild loads pathspec, whose typing_extensions loads ``_socket``."""
    write_lesson(project, "a-import-safe", RULE, files=("src/a.py",))
    _hook(_edit(project.root, "s-build"), project.root, **{hook_client.SWITCH: "0"})
    code = (
        "import atexit, sys; atexit.register(lambda: sys.stderr.write("
        "'SOCKET' if '_socket' in sys.modules else 'NONE')); " + HOOK
    )
    done = _hook(_edit(project.root, "s-off"), project.root, code, **{hook_client.SWITCH: "0"})
    assert RULE in _context(done)
    assert done.stderr.decode().endswith("NONE"), done.stderr.decode()
    assert not os.path.exists(project.local(HOOK_SERVER_STARTED))
