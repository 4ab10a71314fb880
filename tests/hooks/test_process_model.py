"""A hook runs in the process its harness started and leaves nothing running: it acts in
its caller's context (sandbox, umask, time zone) because it is that process, and no
process of lessons outlives it, whatever the size of the store."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from lessons_core.session import state
from lessons_core.store.layout import HOOK_LOG, INDEX_LOCK, Layout
from tests.conftest import harness_env
from tests.hooks.conftest import write_lesson

LAUNCHER = ("sh", ".lessons/run", "hook", "claude-code")


def hook(
    layout: Layout,
    data: dict[str, Any] | bytes,
    *,
    env: dict[str, str] | None = None,
    prefix: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[bytes]:
    """One hook call through the committed launcher, as Claude Code makes it."""
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return subprocess.run(
        [*prefix, *LAUNCHER],
        input=raw,
        capture_output=True,
        cwd=layout.root,
        env=env or harness_env(layout.root),
        timeout=120,
        check=False,
    )


def event(layout: Layout, name: str, **fields: Any) -> dict[str, Any]:
    return {
        "hook_event_name": name,
        "session_id": "s-process",
        "transcript_path": str(layout.root / "transcript.jsonl"),
        "cwd": str(layout.root),
        **fields,
    }


def edit(layout: Layout, path: str) -> dict[str, Any]:
    target = str(layout.root / path)
    tool = {"file_path": target, "old_string": "x = 1", "new_string": "x = 2"}
    return event(layout, "PreToolUse", tool_name="Edit", tool_input=tool, tool_use_id="t1")


def processes_with(mark: str) -> list[str]:
    """Command lines of every process whose environment holds ``mark``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if mark.encode() in environ.split(b"\0"):
            found.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return found


def many_lessons(layout: Layout, count: int) -> None:
    """``count`` lesson files, one per module, written directly (fast)."""
    folder = layout.lessons_dir
    for n in range(count):
        lesson = {
            "created": "2026-12-01",
            "evidence": [],
            "id": f"module-{n}",
            "rationale": "",
            "rule": f"Keep module {n} free of import-time work.",
            "status": "active",
            "topics": ["code"],
            "triggers": {"commands": [], "files": [f"src/mod{n}.py"], "keywords": []},
        }
        (folder / f"module-{n}.json").write_text(json.dumps(lesson, indent=2) + "\n")


@pytest.mark.slow
def test_no_process_of_lessons_outlives_any_hook(project: Layout) -> None:
    """Every kind of call, on a store past the size at which a background watcher used to
    start (5,000 files), and the first call after a lesson changed: once each hook has
    exited, no process carrying its environment is left."""
    many_lessons(project, 5200)
    mark = f"LESSONS_PROCESS_MARK={uuid.uuid4().hex}"
    env = harness_env(project.root)
    name, value = mark.split("=", 1)
    env[name] = value
    calls: list[dict[str, Any]] = [
        event(project, "SessionStart", source="startup"),
        event(project, "UserPromptSubmit", prompt="tidy module 7 of src"),
        event(project, "PreToolUse", tool_name="Read", tool_input={"file_path": "src/mod7.py"}),
        edit(project, "src/mod7.py"),
        event(project, "PreToolUse", tool_name="Bash", tool_input={"command": "make test"}),
        event(project, "Stop", stop_hook_active=False, last_assistant_message="done"),
    ]
    for number, data in enumerate(calls):
        if number == 3:  # a lesson changed: this call rebuilds the index
            write_lesson(project, "module-extra", "Name src/mod7.py's exports.", files=("src/**",))
        done = hook(project, data, env=env)
        assert done.returncode == 0, done.stderr
        time.sleep(0.2)  # a process started in the background would be up by now
        assert processes_with(mark) == [], data["hook_event_name"]
    assert not (project.local_dir / HOOK_LOG).exists()


# Landlock (Linux 5.13+), through its system calls: the access rights of ABI 1 that change
# the file system, and the structures the kernel reads.
LANDLOCK_WRITES = sum(1 << bit for bit in (1, 4, 5, 6, 7, 8, 9, 10, 11, 12))
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446

CONFINE = f"""
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
attr = struct.pack("Q", {LANDLOCK_WRITES})
ruleset = libc.syscall({SYS_CREATE_RULESET}, attr, len(attr), 0)
assert ruleset >= 0, ctypes.get_errno()
for allowed in sys.argv[1].split(":"):
    fd = os.open(allowed, os.O_PATH)
    rule = struct.pack("=Qi", {LANDLOCK_WRITES}, fd)
    assert libc.syscall({SYS_ADD_RULE}, ruleset, 1, rule, 0) == 0, ctypes.get_errno()
assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
assert libc.syscall({SYS_RESTRICT_SELF}, ruleset, 0) == 0, ctypes.get_errno()
os.execvp(sys.argv[2], sys.argv[2:])
"""


def landlock_abi() -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.syscall(SYS_CREATE_RULESET, None, 0, 1))  # LANDLOCK_CREATE_RULESET_VERSION


def test_a_hook_in_a_sandbox_runs_its_programs_in_that_sandbox(
    project: Layout, tmp_path: Path
) -> None:
    """A process confined by Landlock to writing inside the repo puts its own `git` first
    on PATH and runs an ordinary prompt hook: that `git` runs (it marks the repo) and,
    being the hook's child, stays confined: its write outside the repo fails."""
    assert landlock_abi() >= 1, "this test needs Landlock (Linux 5.13 or later)"
    outside = tmp_path / "outside"
    outside.mkdir()
    tools = tmp_path / "tools"
    tools.mkdir()
    fake_git = tools / "git"
    fake_git.write_text(
        "#!/bin/sh\n"
        f'echo ran >> "{project.root}/fake-git-ran"\n'
        f'echo escaped > "{outside}/escaped"\n'
        'exec /usr/bin/git "$@"\n'
    )
    fake_git.chmod(0o755)
    env = harness_env(project.root)
    env["PATH"] = f"{tools}{os.pathsep}{env['PATH']}"
    allowed = ":".join([str(project.root), "/dev", "/proc/self"])
    write_lesson(project, "code-a", "Keep a.py free of helpers.", files=("src/a.py",))
    # A file named by its basename alone is looked up in git's list of tracked files.
    prompt = event(project, "UserPromptSubmit", prompt="rename the helper in a.py")
    done = hook(project, prompt, env=env, prefix=(sys.executable, "-c", CONFINE, allowed))
    assert done.returncode == 0, done.stderr
    assert (project.root / "fake-git-ran").exists(), "the hook ran no git: nothing was tested"
    assert not (outside / "escaped").exists()


def test_a_session_file_takes_the_hooks_umask(project: Layout) -> None:
    """Under umask 077 the session file a hook writes is private to its owner."""
    write_lesson(project, "code-a", "Keep src/a.py small.", files=("src/a.py",))
    read = event(project, "PreToolUse", tool_name="Read", tool_input={"file_path": "src/a.py"})
    done = hook(project, read, prefix=("sh", "-c", 'umask 077 && exec "$@"', "umask"))
    assert b"Keep src/a.py small." in done.stdout
    sessions = [p for p in (project.local_dir / "sessions").iterdir() if p.is_file()]
    assert sessions
    for session in sessions:
        assert session.stat().st_mode & 0o777 == 0o600, session


@pytest.mark.parametrize(("zone", "hours_east"), [("Etc/GMT-14", 14), ("Etc/GMT+12", -12)])
def test_the_hook_log_is_stamped_in_the_hooks_time_zone(
    project: Layout, zone: str, hours_east: int
) -> None:
    """A hook's log line carries the local time of the hook's own TZ."""
    env = harness_env(project.root)
    env["TZ"] = zone
    before = time.time()
    done = hook(project, b"{ not json", env=env)
    after = time.time()
    assert done.returncode == 0
    line = (project.local_dir / HOOK_LOG).read_text().splitlines()[-1]
    stamp = time.strptime(line.split(" ", 1)[0], "%Y-%m-%dT%H:%M:%S")
    expected = {
        time.strftime("%Y-%m-%dT%H", time.gmtime(moment + hours_east * 3600))
        for moment in (before, after)
    }
    assert time.strftime("%Y-%m-%dT%H", stamp) in expected, (line, expected)


def init_timeout(layout: Layout) -> float:
    """The seconds ``lessons init --claude-code`` gives each hook."""
    settings = json.loads((layout.root / ".claude" / "settings.json").read_text())
    timeouts = {
        handler["timeout"]
        for matchers in settings["hooks"].values()
        for matcher in matchers
        for handler in matcher["hooks"]
    }
    assert len(timeouts) == 1
    return float(timeouts.pop())


@pytest.mark.slow
def test_every_hook_answers_within_the_init_timeout_with_the_locks_held(
    project: Layout,
) -> None:
    """With the store, index and session locks held by another process, eight parallel
    hooks each answer (exit 0) well within the timeout init writes, and no hook waits
    on another: each gives up on the locks within its own bound."""
    subprocess.run(
        [sys.executable, "-m", "lessons_cli", "init", "--claude-code"],
        cwd=project.root,
        capture_output=True,
        check=True,
        env=harness_env(project.root),
    )
    bound = init_timeout(project)
    write_lesson(project, "code-a", "Keep src/a.py small.", files=("src/a.py",))
    write_lesson(project, "code-b", "Name every helper in src/.", files=("src/**",))
    sessions = project.local_dir / "sessions"
    sessions.mkdir(exist_ok=True)
    locks = [project.lock_path, Path(project.local(INDEX_LOCK))]
    # Each session's own lock, named as the session state names it.
    locks += [Path(state._lock(state._path(project, f"s-lock-{n}"))) for n in range(8)]

    def timed(number: int) -> tuple[float, int]:
        data = edit(project, "src/a.py") | {"session_id": f"s-lock-{number}"}
        start = time.monotonic()
        done = hook(project, data)
        return time.monotonic() - start, done.returncode

    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCKS, *map(str, locks)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(timed, range(8)))
    finally:
        holder.kill()
        holder.communicate()
    assert [code for _seconds, code in results] == [0] * 8
    slowest = max(seconds for seconds, _code in results)
    assert slowest < bound, (slowest, bound)


HOLD_LOCKS = """
import fcntl, os, sys, time
fds = []
for path in sys.argv[1:]:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    fds.append(fd)
print("held", flush=True)
time.sleep(600)
"""
