"""A bare JSON-RPC client over a real ``lessons mcp`` process's stdin and stdout, so tests
see every byte the server writes (no SDK in between to hide a stray line)."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

from bench.mcp_tools import INITIALIZE

INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class Server:
    """The process; ``lines`` are its stdout lines in order, as they arrive."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.seen: list[bytes] = []
        self.log: str | None = None
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, message: dict[str, Any] | str) -> None:
        assert self.process.stdin is not None
        raw = message if isinstance(message, str) else json.dumps(message)
        self.process.stdin.write(raw.encode() + b"\n")
        self.process.stdin.flush()

    def answer(self, request_id: int, timeout: float = 60) -> dict[str, Any]:
        """The response to request ``request_id`` (every line before it is kept in ``seen``)."""
        while True:
            line = self.lines.get(timeout=timeout)
            self.seen.append(line)
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == request_id:
                return message

    def request(self, request_id: int, method: str, params: Any = None) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.answer(request_id)

    def call(self, request_id: int, name: str, arguments: Any = None) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return self.request(request_id, "tools/call", params)

    def start(self) -> dict[str, Any]:
        """The initialize handshake; its result."""
        self.send(INITIALIZE)
        result = self.answer(0)
        self.send(INITIALIZED)
        return result

    def close(self, timeout: float = 30) -> tuple[int, bytes]:
        """Close stdin and wait: the exit code, and everything left on stdout."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=timeout)
        rest = b""
        while not self.lines.empty():
            rest += self.lines.get()
        return code, rest

    def stop(self) -> str:
        """End the process if it still runs, close its pipes; what it wrote to stderr
        (the same again on a second call)."""
        if self.log is not None:
            return self.log
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        assert self.process.stderr is not None
        said = self.process.stderr.read().decode()
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()
        self.log = said
        return said
