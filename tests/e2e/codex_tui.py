"""Codex's interactive screen in a pseudo-terminal: enough to take a user's trust steps.

The screen is read as text with escape sequences dropped. The TUI asks the terminal for
the cursor position and its colours before it draws; those queries are answered the way
a terminal would, or it waits for them. ``--no-daemon`` keeps it from starting a
background app server that would outlive the test.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios
import time
from collections.abc import Callable

from lessons_cli.harnesses.codex_trust import hook_hashes
from tests.e2e.codex_project import CODEX, Project

DOWN, ENTER = b"\x1b[B", b"\r"
_ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=$]*[A-Za-z~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_ANSWERS = {
    b"\x1b[6n": b"\x1b[1;1R",
    b"\x1b]10;?": b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\",
    b"\x1b]11;?": b"\x1b]11;rgb:0000/0000/0000\x1b\\",
}


class Screen:
    """A running `codex` TUI in ``project.root``."""

    def __init__(self, project: Project) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: becomes codex
            os.chdir(project.root)
            os.execve(str(CODEX), [str(CODEX), "--no-daemon"], project.env())
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.raw = b""

    @property
    def text(self) -> str:
        return " ".join(_ESCAPES.sub(b" ", self.raw).decode("utf-8", "replace").split())

    def wait_for(self, done: Callable[[], bool], what: str, seconds: float = 60) -> None:
        """Read the screen until ``done()``; fail naming ``what`` after ``seconds``."""
        deadline = time.monotonic() + seconds
        while not done():
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} on Codex's screen: {self.text[-2000:]}")
            self._read(0.2)

    def expect(self, *texts: str) -> None:
        """Wait until one of ``texts`` is on the screen and the screen is still for a second
        (keys pressed while the TUI still talks to the terminal get lost), then forget it.

        The TUI redraws only the cells that change, so a line on screen may reach the
        stream with letters missing: give a few fragments of what to wait for.
        """
        self.wait_for(lambda: any(text in self.text for text in texts), repr(texts))
        while self._read(1.0):
            pass
        self.raw = b""

    def _read(self, seconds: float) -> bool:
        """Take what the TUI wrote within ``seconds``, answering its terminal queries."""
        ready, _, _ = select.select([self.fd], [], [], seconds)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # the TUI ended
            return False
        self.raw += data
        for query, answer in _ANSWERS.items():
            if query in data:
                os.write(self.fd, answer)
        return True

    def press(self, *keys: bytes) -> None:
        for key in keys:
            os.write(self.fd, key)
            time.sleep(0.3)

    def close(self) -> None:
        os.killpg(self.pid, signal.SIGKILL)  # the child is a session leader: its group
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def trust_steps(project: Project) -> None:
    """Start `codex` in the repo, trust the folder, then "Trust all and continue" in the
    hooks review, as a user does; return once the config holds every hook's trust."""
    config = project.config
    wanted = config.read_text().count("trusted_hash") + len(
        hook_hashes(project.root / ".codex" / "hooks.json")
    )
    screen = Screen(project)
    try:
        screen.expect("Trust this folder?")
        screen.press(ENTER)  # 1. Trust and continue
        screen.expect("Trust all and continue", "hooks are new or changed", "need review")
        screen.press(DOWN, ENTER)  # 2. Trust all and continue
        screen.wait_for(
            lambda: config.read_text().count("trusted_hash") >= wanted,
            "trusted hooks in config.toml",
        )
    finally:
        screen.close()
