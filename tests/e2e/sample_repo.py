"""The repo every real-client test starts from: two files, two lessons, one commit.

``scripts/release.sh`` creates ``released.txt`` (so a test sees whether a gated command
ran) and a command lesson covers it; a file lesson covers ``src/app.py``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from tests.conftest import INSTALL_BIN
from tests.e2e.fake_server import ApiT, FakeServer, ToolCall

RELEASE_RULE = "Bump VERSION before running scripts/release.sh; it tags whatever is there."
APP_RULE = "Keep src/app.py free of import-time side effects."
# A rule for every task, saved with `lessons add --always` by the tests that need one.
ALWAYS_RULE = "Use pnpm, never npm, for every package command in this repository."


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, timeout=60)


def lessons(root: Path, *args: str) -> str:
    """Run `python -m lessons_cli ...` in ``root``; return its stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "lessons_cli", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout


def make_repo(root: Path) -> None:
    """The two files, committed."""
    (root / "src").mkdir(parents=True)
    (root / "scripts").mkdir()
    (root / "src" / "app.py").write_text("VALUE = 1\n")
    (root / "scripts" / "release.sh").write_text("touch released.txt\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init")


def serve_wired_repo(root: Path, api: ApiT, harness_flag: str) -> FakeServer[ApiT]:
    """The repo at ``root`` after `lessons init HARNESS_FLAG` and the two lessons, and the
    fake model ``api`` served for it (closed again if wiring fails)."""
    make_repo(root)
    server = FakeServer(api)
    try:
        lessons(root, "init", harness_flag)
        command = r"scripts/release\.sh"
        lessons(root, "add", RELEASE_RULE, "--topic", "release", "--trigger-cmd", command)
        lessons(root, "add", APP_RULE, "--topic", "code", "--trigger-file", "src/app.py")
    except BaseException:
        server.close()
        raise
    return server


@dataclass
class ClientProject(Generic[ApiT]):
    """A wired repo, the temp home its client runs with, and its fake model's server."""

    root: Path
    home: Path
    server: FakeServer[ApiT]
    # False: lessons is not on the client's PATH, only in ~/.local/bin (as pipx leaves it
    # for a harness started without that folder on its PATH).
    on_path: bool = True

    @property
    def fake(self) -> ApiT:
        return self.server.api

    def lessons(self, *args: str) -> str:
        """Run `python -m lessons_cli ...` in the repo; return its stdout."""
        return lessons(self.root, *args)

    def client_env(
        self, drop: tuple[str, ...], on_path: bool = True, **values: str
    ) -> dict[str, str]:
        """This environment without the variables starting with ``drop`` (or ``XDG_``):
        the temp home with its XDG folders, ``lessons`` found as ``hook_path`` puts it, and
        ``values``."""
        env = {k: v for k, v in os.environ.items() if not k.startswith((*drop, "XDG_"))}
        env.update(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            XDG_STATE_HOME=str(self.home / ".local" / "state"),
            XDG_DATA_HOME=str(self.home / ".local" / "share"),
            PATH=self.hook_path(os.environ.get("PATH", "/usr/bin:/bin"), on_path),
        )
        env.update(values)
        return env

    def hook_path(self, system: str, on_path: bool) -> str:
        """``system`` with lessons on it, as after `pipx install`; or, not ``on_path``,
        without it: lessons only where pipx links it (~/.local/bin), as a harness started
        without that folder on its PATH sees it."""
        kept = [d for d in system.split(os.pathsep) if d and Path(d) != INSTALL_BIN]
        if on_path:
            return os.pathsep.join([str(INSTALL_BIN), *kept])
        link = self.home / ".local" / "bin" / "lessons"
        if not link.exists():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(INSTALL_BIN / "lessons")
        return os.pathsep.join(kept)

    def doctor_checks(self, env: dict[str, str], harness: str) -> tuple[int, list[dict[str, Any]]]:
        """`lessons doctor --json` in the repo, run with ``env`` (the client's user): its
        exit code and its checks about ``harness``."""
        done = subprocess.run(
            [sys.executable, "-m", "lessons_cli", "doctor", "--json"],
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        checks = json.loads(done.stdout)["checks"]
        return done.returncode, [c for c in checks if c["subject"] == harness]

    def run_client(
        self, argv: list[str], env: dict[str, str], exit_code: int = 0
    ) -> subprocess.CompletedProcess[str]:
        """Run the client in the repo, without a terminal; it must exit with ``exit_code``."""
        done = subprocess.run(
            argv,
            cwd=self.root,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == exit_code, done.stderr + done.stdout
        return done


Wired = TypeVar("Wired", bound=ClientProject[Any])


def released(tmp_path: Path) -> Callable[[], bool]:
    """A probe: whether the sample repo's gated command has run."""
    return (tmp_path / "repo" / "released.txt").exists


def open_project(kind: type[Wired], tmp_path: Path, api: Any, harness_flag: str) -> Wired:
    """``tmp_path/repo`` wired and served (``serve_wired_repo``) as a ``kind``, with an
    empty ``tmp_path/home`` for its client; close its server."""
    root = tmp_path / "repo"
    server = serve_wired_repo(root, api, harness_flag)
    home = tmp_path / "home"
    home.mkdir()
    return kind(root, home, server)


# A failure fixed in a session by a changed form of the command: there is no `check-all`
# target, `make check` works. The rule is the one the request drafts, kept as it is.
CHECK_RULE = "Run 'make check', not 'make check-all'."
FIX_STEPS = ("make check-all", "make check")


def write_makefile(root: Path) -> None:
    """A Makefile with a `check` target and no `check-all` (``FIX_STEPS``)."""
    (root / "Makefile").write_text("check:\n\t@echo ok\n")


NUDGE_MARK = "before the next attempt:\n"
RULE_SLOT = "<what to do instead, one imperative sentence>"


def nudge_line(nudge: str, rule: str, topic: str, escaped: bool = False) -> str:
    """The capture line of a failure nudge with its placeholders filled in, as a model
    would run it; ``escaped``: the client showed them HTML-escaped (``&lt;topic&gt;``)."""
    return _filled(nudge.split(NUDGE_MARK, 1)[1].splitlines()[0].strip(), rule, topic, escaped)


def request_line(request: str, rule: str, topic: str, escaped: bool = False) -> str:
    """The ``lessons add`` line of the stop-time capture request, filled in as
    ``nudge_line`` fills a nudge's."""
    line = next(ln.strip() for ln in request.splitlines() if "/.lessons/run add " in ln)
    return _filled(line, rule, topic, escaped)


def capturing(
    call: Callable[[str], ToolCall], rule: str, topic: str, asked: list[str], escaped: bool = False
) -> Callable[[str], ToolCall]:
    """A fake model's answer to a stop hook's request to capture: keep the request in
    ``asked``, run its line (``request_line``) with the client's shell tool ``call``."""

    def answer(request: str) -> ToolCall:
        asked.append(request)
        return call(request_line(request, rule, topic, escaped))

    return answer


def fix_scenario(root: Path, fake: Any, call: Callable[[str], ToolCall]) -> list[str]:
    """A session that fixes a failure: the Makefile, the fake model's ``FIX_STEPS`` under
    the scenario ``fix`` through the shell tool ``call``, and its answer to the stop-time
    request (it captures ``CHECK_RULE``). Returns the requests it will receive."""
    write_makefile(root)
    fake.scenarios["fix"] = [call(command) for command in FIX_STEPS]
    asked: list[str] = []
    fake.answer_stop = capturing(call, CHECK_RULE, "build", asked)
    return asked


def assert_fix_captured(root: Path, asked: list[str]) -> None:
    """The model was asked once, about `make check-all` and the `make check` that worked
    right after it, and the line it ran saved the drafted rule with the failed command's
    anchored pattern."""
    assert len(asked) == 1
    assert "the command 'make check-all' failed (exit 2" in asked[0]
    assert "right after it, 'make check' worked" in asked[0]
    assert saved_lesson(root, CHECK_RULE)["triggers"]["commands"] == ["^make check-all"]


def _filled(line: str, rule: str, topic: str, escaped: bool) -> str:
    """``line`` with its rule (it goes between double quotes: no quote, ``$`` or
    backslash in it) and topic placeholders filled in."""
    slots = [RULE_SLOT, "<topic>"]
    if escaped:
        slots = [slot.replace("<", "&lt;").replace(">", "&gt;") for slot in slots]
    return line.replace(slots[0], rule).replace(slots[1], topic)


def note_line(note: str, rule: str, topic: str, glob: str) -> str:
    """The capture line of the session note with its placeholders filled in, as a model
    would run it (harnesses without a failure nudge carry the line there)."""
    # The line ends at its last placeholder (a client may wrap the note in markup).
    found = re.search(r'(?:sh \S+|lessons) add "RULE" --topic T --trigger-file GLOB', note)
    assert found is not None, note
    line = found.group(0)
    filled = line.replace('"RULE"', shlex.quote(rule)).replace("--topic T", f"--topic {topic}")
    return filled.replace("--trigger-file GLOB", f"--trigger-file {shlex.quote(glob)}")


def saved_lesson(root: Path, rule: str) -> dict[str, Any]:
    """The one lesson file under ``root`` holding ``rule``."""
    folder = root / ".lessons" / "lessons"
    saved: list[dict[str, Any]] = [json.loads(path.read_text()) for path in folder.glob("*.json")]
    (lesson,) = [data for data in saved if data["rule"] == rule]
    return lesson


def log_recalls(root: Path) -> None:
    """Turn telemetry on in the repo's config, so every hook call that recalls is logged
    (a silent one too): a test of silence then shows the hooks did run."""
    config = root / ".lessons" / "config.json"
    data = json.loads(config.read_text()) if config.exists() else {}
    config.write_text(json.dumps({**data, "telemetry": True}, indent=2) + "\n")


def logged_recalls(root: Path) -> dict[str, list[str]]:
    """What the hooks recalled, by key (a path or a command): the ids each delivered
    (docs/telemetry.md)."""
    log = root / ".lessons" / "local" / "telemetry.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    found: dict[str, list[str]] = {}
    for record in records:
        if record["kind"] == "recall":
            found.setdefault(record["key"], []).extend(record["delivered"])
    return found


def recording_command(target: Path) -> str:
    """A hook command that appends its stdin, one payload a line, to ``target``."""
    script = shlex.quote('cat >> "$1"; echo >> "$1"')
    return f"sh -c {script} sh {shlex.quote(str(target))}"


def payload_shape(value: Any) -> Any:
    """A payload's keys and the types of their values (what a fixture must keep)."""
    if isinstance(value, dict):
        return {key: payload_shape(item) for key, item in value.items()}
    return type(value).__name__


def assert_recorded(recorded: dict[str, Any], folder: Path, out: Path) -> None:
    """The payloads a real client sent this run (``recorded``: one per fixture name) are
    the ones stored in ``folder``; else they are written to ``out`` to copy there."""
    out.mkdir()
    for name, data in recorded.items():
        (out / f"{name}.json").write_text(json.dumps(data, indent=2) + "\n")
    stored = {path.stem: json.loads(path.read_text()) for path in folder.glob("*.json")}
    assert stored == recorded, f"re-record: copy {out}/*.json to {folder}/"
