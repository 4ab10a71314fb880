"""How ``lessons hook HARNESS`` runs: through the hook server when one is warm, in this
process otherwise.

A hook is a new process on every tool call, and most of its time goes to starting it:
importing lessons' modules and running their code cold costs a few times what the
answer itself does. The hook server (``lessons_cli.hook_server``) is one process per
install and user that keeps them loaded: a hook reads its input, hands it over with its
working directory, umask and environment, and writes back what the server's run of the
very same ``run_hook`` printed. Nothing is kept between calls but loaded code: every call
reads the store, its config and the session files from disk as a hook in its own
process does, so what a hook says does not depend on which of the two answered.

When there is no server (the first call, after an upgrade, on systems other than
Linux), the hook answers in its own process, and then starts one in the background for
the next call (``lessons_core.local_service``: at most once every ``SPAWN_EVERY_SECONDS``
per repo). Fail open, and bounded: a server of another user is never asked; one that
declines or breaks off leaves the call to this process; one that has not answered
within ``REPLY_SECONDS`` is stopped (the next call starts a new one) and this process
answers. ``LESSONS_HOOK_SERVER=0`` in the harness's environment turns the server off.

The server's socket name is in Linux's abstract namespace and names the user, the mount
and user namespaces (a hook in a sandbox or container with other mounts gets a server
that sees its files) and the install (the device, inode and time of
``lessons_cli/__init__.py``, which every install or upgrade writes anew, and the
interpreter's folder), so each install
has its own server and an upgrade is never answered by old code. Within an install, the
server stops when a file of a module it has loaded changes (``hook_server.Loaded``): an
editable install is never answered by old code either.
"""

from __future__ import annotations

import os
import sys

from lessons_cli.harnesses import MAX_PAYLOAD_BYTES
from lessons_core import local_service

TYPE_CHECKING = False  # typing costs a hook ~8 ms: lessons_core.records
if TYPE_CHECKING:
    from lessons_core.local_service import Connection

SWITCH = "LESSONS_HOOK_SERVER"
OFF = frozenset({"0", "off", "false", "no"})
CONNECT_SECONDS = 0.5
# Well over a warm call (milliseconds) or one that waits for locks (hook_runner's
# LOCK_BUDGET_SECONDS) and rebuilds the index, and under the 10 s every harness is given
# for a hook by ``lessons init``.
REPLY_SECONDS = 6.0
SPAWN_EVERY_SECONDS = 10

# The request: a 4-byte length, then NUL-separated fields (KIND, harness, working
# directory, umask in octal, then NAME=VALUE for each environment variable: none of them
# can hold a NUL), then the hook's input up to the end of the stream. The reply: SERVED
# and what the hook prints, or DECLINED (this process answers).
HOOK, STATUS, STOP = b"hook1", b"status1", b"stop1"
SERVED, DECLINED = b"+", b"-"


def enabled() -> bool:
    # The switch first: a hook with the server off loads no socket module.
    return os.environ.get(SWITCH, "").lower() not in OFF and local_service.available()


def address() -> bytes:
    """The abstract socket name of this install's server for this user, in this mount and
    user namespace (``OSError`` where /proc does not say which): the install is the
    interpreter's folder (a venv's ``bin``) and lessons' files."""
    found = os.stat(os.path.join(os.path.dirname(os.path.abspath(__file__)), "__init__.py"))
    # The interpreter's own folder: sys.prefix names the base interpreter, not the venv,
    # in a start without site (-S), as the launcher's is.
    prefix = os.stat(os.path.dirname(sys.executable))
    mounts, users = os.stat("/proc/self/ns/mnt").st_ino, os.stat("/proc/self/ns/user").st_ino
    return (
        f"\0lessons-hooks-{os.getuid()}-{mounts:x}-{users:x}-{prefix.st_dev:x}-"
        f"{prefix.st_ino:x}-{found.st_dev:x}-{found.st_ino:x}-{found.st_mtime_ns:x}"
    ).encode()


def hook(harness: str) -> int:
    """Answer one hook call of ``harness`` (stdin to stdout); always returns 0."""
    if not enabled():
        from lessons_cli.hook_runner import run_hook

        return run_hook(harness)
    payload = _read_input()
    try:
        name: bytes | None = address()
    except OSError:  # no /proc: no server either
        name = None
    if name is not None:
        try:
            listening = local_service.connect(name, CONNECT_SECONDS)
            answer = None if listening is None else ask(listening, HOOK, harness, payload)
        except Exception:  # fail open: this process answers
            answer = None
        if answer is not None:
            _write(answer)
            return 0
    import io

    from lessons_cli.hook_runner import run_hook

    code = run_hook(harness, io.BytesIO(payload))
    if name is not None:
        # None there, or one that declined, broke off or was stopped: it is gone or going
        # (a new one started while it is not fails to take the name, and exits).
        start_server()
    return code


def ask(listening: Connection, kind: bytes, harness: str, payload: bytes) -> bytes | None:
    """The server's reply to one request; None when it declined, broke off or was late
    (then it is stopped)."""
    sock, pid = listening
    try:
        if len(payload) > MAX_PAYLOAD_BYTES:
            return None  # refused by this process, which logs it
        umask = os.umask(0)
        os.umask(umask)
        fields = [kind, harness.encode(), os.getcwdb(), b"%o" % umask]
        fields += [name + b"=" + value for name, value in os.environb.items()]
        header = b"\0".join(fields)
        sock.settimeout(REPLY_SECONDS)
        sock.sendall(len(header).to_bytes(4, "big") + header + payload)
        sock.shutdown(1)  # SHUT_WR: the end of the input
        reply = local_service.read_all(sock, MAX_PAYLOAD_BYTES)
    except TimeoutError:
        _stop(pid)
        return None
    except (OSError, ValueError):
        return None
    finally:
        sock.close()
    return reply[1:] if reply[:1] == SERVED else None


def _stop(pid: int) -> None:
    """Stop a server that did not answer in time (it runs as this user: see connect)."""
    if pid <= 0:  # a process outside this PID namespace: 0 would name this group
        return
    try:
        os.kill(pid, 9)  # SIGKILL; the signal module would cost an import
    except OSError:
        return


def _read_input() -> bytes:
    """The hook's input, up to a block past ``MAX_PAYLOAD_BYTES`` (whoever answers then
    refuses it); nothing when it cannot be read (a closed descriptor)."""
    try:
        return local_service.read_up_to(lambda size: os.read(0, size), MAX_PAYLOAD_BYTES)
    except OSError:
        return b""


def _write(answer: bytes) -> None:
    try:
        while answer:
            answer = answer[os.write(1, answer) :]
    except OSError:
        return


def server_command() -> list[str]:
    """How a server starts: this install's interpreter and entry file, isolated and
    without site's setup, as ``.lessons/run`` starts a hook."""
    main = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__main__.py")
    return [sys.executable, "-I", "-S", main, "hook-server"]


def start_server() -> None:
    """Start this install's server in the background, at most once every
    ``SPAWN_EVERY_SECONDS`` for the repo the hook ran in; never raises."""
    try:
        from lessons_core.index.file_scan import fork_is_safe
        from lessons_core.store.layout import (
            HOOK_SERVER_STARTED,
            LOCAL,
            Layout,
            contained,
            find_root,
        )

        root = find_root(os.getcwd())
        if root is None or not fork_is_safe():
            return
        layout = contained(Layout(root))  # LeavesRepo: its local/ is not written to
        marker = layout.local(HOOK_SERVER_STARTED)
        started = local_service.age(marker)
        if started is not None and started < SPAWN_EVERY_SECONDS:
            return
        if not os.path.isdir(layout.under(LOCAL)):
            return  # the hook made none: nowhere to mark the start
        local_service.spawn(marker, server_command(), os.environ)
    except Exception:  # fail open: the next call answers in its own process too
        return


def request(kind: bytes) -> bytes | None:
    """This install's server's reply to ``STATUS`` or ``STOP``; None: no server runs (or
    none can on this system)."""
    if not local_service.available():
        return None
    try:
        name = address()
    except OSError:
        return None
    listening = local_service.connect(name, CONNECT_SECONDS)
    return None if listening is None else ask(listening, kind, "", b"")
