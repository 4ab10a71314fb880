"""The hook server: ``python -I -S .../lessons_cli/__main__.py hook-server``.

One warm process per install and user (``lessons_cli.hook_client`` says why, and how a
hook finds it and trusts it). It answers one request at a time, each as a hook's own
process would: in the request's working directory, umask and environment, through
``hook_runner.run_hook`` on the request's input. Between requests it holds loaded code
and nothing else that a hook reads: no store, config or session state.

It serves only processes of its own user (``SO_PEERCRED``). It exits when another server
holds its name, when its interpreter or a file of a module it has loaded changes or goes
(``Loaded``: looked at on every call, and every ``CHECK_SECONDS`` without one), after
``MAX_REQUESTS`` requests or once it holds ``MAX_RESIDENT_BYTES`` (whatever a long life
or a rebuild of a large store leaves behind stays bounded), on a
``stop`` request (``lessons server stop``), or after ``IDLE_SECONDS`` without one.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import socket
import sys
import time

from lessons_cli import hook_client
from lessons_cli.harnesses import HARNESSES, MAX_PAYLOAD_BYTES
from lessons_cli.hook_runner import run_hook
from lessons_core import local_service
from lessons_core.jsonio import dumps

IDLE_SECONDS = 15 * 60
# How often a server without calls looks whether its install is still there.
CHECK_SECONDS = 60.0
# A call that rebuilt a large index leaves the process this large or more (a rebuild of
# 50,000 lessons: ~260 MB): the server then exits, and the next call starts a lean one.
MAX_RESIDENT_BYTES = 96 << 20
MAX_REQUESTS = 20_000
# A request is sent at once, whole: one that has not arrived by then is dropped.
REQUEST_SECONDS = 2.0
_HEADER_BYTES = 1 << 20


class Loaded:
    """The interpreter and the files of the modules this process has loaded from outside
    the standard library, with their stat data when first seen: ``changed`` says whether
    any of them was rewritten, moved or removed since (an upgrade, an edit of an editable
    install, the venv deleted)."""

    def __init__(self) -> None:
        self._stdlib = os.path.dirname(os.__file__) + os.sep
        self._seen: dict[str, tuple[int, int, int]] = {}
        self.changed()

    def _files(self) -> list[str]:
        files = [sys.executable]  # a venv removed, and another made where it was
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if isinstance(path, str) and not path.startswith(self._stdlib):
                files.append(path)
        return files

    def changed(self) -> bool:
        for path in self._files():
            try:
                found = os.stat(path)
            except OSError:
                return True
            now = (found.st_mtime_ns, found.st_size, found.st_ino)
            if self._seen.setdefault(path, now) != now:
                return True
        return False


class Request:
    """One request as sent (see hook_client): what it asks, and the hook's context."""

    def __init__(self, data: bytes) -> None:
        size = int.from_bytes(data[:4], "big")
        if not 0 < size <= _HEADER_BYTES or len(data) < 4 + size:
            raise ValueError("a request cut short")
        fields = data[4 : 4 + size].split(b"\0")
        if len(fields) < 4:
            raise ValueError("a request without its fields")
        self.kind = fields[0]
        self.harness = fields[1].decode()
        self.cwd = fields[2]
        self.umask = int(fields[3], 8)
        self.environment: dict[bytes, bytes] = {}
        for entry in fields[4:]:
            name, _, value = entry.partition(b"=")
            self.environment[name] = value
        self.payload = data[4 + size :]


def answer(request: Request, loaded: Loaded) -> bytes:
    """The reply to a hook request, run as the hook's own process would run it."""
    if request.harness not in HARNESSES or loaded.changed():
        return hook_client.DECLINED
    try:
        os.chdir(request.cwd)
    except OSError:
        return hook_client.DECLINED
    os.umask(request.umask)
    os.environb.clear()
    os.environb.update(request.environment)
    out = io.BytesIO()
    try:
        run_hook(request.harness, io.BytesIO(request.payload), out)
    finally:
        os.chdir("/")  # never keeps a file system busy between requests
    return hook_client.SERVED + out.getvalue()


def serve(address: bytes) -> None:
    """Answer requests on ``address`` until one of the exits in the module docstring."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(address)
    except OSError:
        return  # another server has the name
    listener.listen(64)
    try:
        _serve(listener)
    finally:
        # At once: a hook that connects while this process winds down would wait for
        # nothing, then answer itself without starting a new server.
        listener.close()


def _serve(listener: socket.socket) -> None:
    loaded = Loaded()
    gc.freeze()  # the loaded code lives as long as the process: never scanned again
    started, served = time.time(), 0
    asked = time.monotonic()
    while served < MAX_REQUESTS:
        left = IDLE_SECONDS - (time.monotonic() - asked)
        if left <= 0:
            return
        listener.settimeout(min(left, CHECK_SECONDS))
        try:
            connection, _ = listener.accept()
        except TimeoutError:
            if loaded.changed():
                return  # its install was upgraded or removed: nobody will ask it again
            continue
        asked = time.monotonic()
        with connection:
            reply, last = _reply(connection, loaded, started, served)
            with contextlib.suppress(OSError):  # the hook gave up: it answers itself
                connection.sendall(reply)
        served += 1
        if last or _resident() > MAX_RESIDENT_BYTES:
            return


def _reply(
    connection: socket.socket, loaded: Loaded, started: float, served: int
) -> tuple[bytes, bool]:
    """What to send back, and whether the server stops after it."""
    try:
        if local_service.peer(connection)[1] != os.getuid():
            return b"", False
        connection.settimeout(REQUEST_SECONDS)
        limit = 4 + _HEADER_BYTES + MAX_PAYLOAD_BYTES
        request = Request(local_service.read_all(connection, limit))
    except (OSError, ValueError):
        return b"", False
    if request.kind == hook_client.HOOK:
        reply = answer(request, loaded)
        return reply, reply == hook_client.DECLINED and loaded.changed()
    if request.kind == hook_client.STATUS:
        status = {
            "pid": os.getpid(),
            "python": sys.executable,
            "package": os.path.dirname(os.path.abspath(hook_client.__file__)),
            "started": started,
            "requests": served,
        }
        return hook_client.SERVED + dumps(status), False
    if request.kind == hook_client.STOP:
        return hook_client.SERVED, True
    return hook_client.DECLINED, False


def _resident() -> int:
    """This process's resident memory in bytes (0 where /proc does not say)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def main() -> None:
    try:
        serve(hook_client.address())
    except Exception:  # nothing to tell: hooks answer in their own processes again
        sys.exit(0)
