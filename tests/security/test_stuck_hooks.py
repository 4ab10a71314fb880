"""No hook is held up or silenced by its own store: a lock another process holds, a FIFO
where a transcript belongs, a read-only or full disk, a link or a plain file where lessons
keeps its own state. Each case runs the real hook process against real files, flocks,
FIFOs and mounts (a user and mount namespace, where this machine allows one)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lessons_cli.app import cli
from lessons_cli.harnesses import codex_exits, gemini
from lessons_cli.hook_runner import LOCK_BUDGET_SECONDS
from lessons_core import fsutil
from lessons_core.delivery.deliver import session_key
from lessons_core.eval.transcripts import Transcript, TranscriptError, stream_transcript
from lessons_core.harvest.codex_rollouts import rollout_folder
from lessons_core.session import state as sessions
from lessons_core.store.layout import HOOK_LOG, INDEX_LOCK, SESSIONS, STORE_LOCK, Layout
from tests.conftest import git
from tests.hooks.conftest import answer, payload, write_lesson
from tests.security.conftest import HOOK_TIMEOUT

H = "claude-code"
PUSH_RULE = "Run make gen before pushing."
EDIT_RULE = "Keep src/a.py import-safe."
# A hook that waits on nothing returns in well under this, even on a loaded machine; one
# stuck on a lock, a FIFO or a mount would not return at all.
STUCK_AFTER = 60.0


def _lessons(layout: Layout) -> None:
    write_lesson(layout, "build-gen-before-push", PUSH_RULE, commands=("git push",))
    write_lesson(layout, "code-a-import-safe", EDIT_RULE, files=("src/a.py",))


def _push(root: Path, session: str = "s-push") -> dict[str, Any]:
    data = payload(H, "pre_tool_use_bash_redirect", root, session_id=session)
    data["tool_input"] = {"command": "git push origin main", "description": "push"}
    return data


def _edit(root: Path, session: str = "s-edit") -> dict[str, Any]:
    data = payload(H, "pre_tool_use_write", root, session_id=session)
    data["tool_input"] = {"file_path": str(root / "src" / "a.py"), "content": ""}
    return data


def _hook_process(
    data: dict[str, Any], cwd: Path, prefix: tuple[str, ...] = ()
) -> tuple[dict[str, Any] | None, float]:
    """The real hook process's parsed answer (None: silent) and how long it took."""
    start = time.monotonic()
    done = subprocess.run(
        [*prefix, sys.executable, "-m", "lessons_cli", "hook", H],
        input=json.dumps(data).encode(),
        capture_output=True,
        cwd=cwd,
        timeout=STUCK_AFTER,
        check=False,
    )
    took = time.monotonic() - start
    assert done.returncode == 0, done.stderr.decode()
    return (json.loads(done.stdout) if done.stdout.strip() else None), took


def _context(got: dict[str, Any] | None) -> str:
    """The context of a PreToolUse answer that lets the call run (no refusal)."""
    assert got is not None
    out = got["hookSpecificOutput"]
    assert out.get("permissionDecision") != "deny", out
    return str(out["additionalContext"])


def _log_lines(layout: Layout) -> list[str]:
    path = Path(layout.local(HOOK_LOG))
    return path.read_text().splitlines() if path.exists() else []


# --- locks -------------------------------------------------------------------------------


@contextmanager
def _held(*paths: str) -> Iterator[None]:
    """An exclusive flock on each of ``paths``, held by another process until the end."""
    code = (
        "import fcntl, os, sys\n"
        "fds = [os.open(p, os.O_RDWR | os.O_CREAT, 0o644) for p in sys.argv[1:]]\n"
        "for fd in fds: fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        "sys.stdin.read()\n"
    )
    for path in paths:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", code, *paths], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == b"held\n"
        yield
    finally:
        assert holder.stdin is not None
        assert holder.stdout is not None
        holder.stdin.close()
        holder.stdout.close()
        holder.wait(timeout=30)


def _session_lock(layout: Layout, data: dict[str, Any]) -> str:
    path = sessions._path(layout, session_key(str(data["session_id"])))
    return sessions._lock(path)


def test_a_lock_held_by_another_process_costs_a_hook_its_budget_only(project: Layout) -> None:
    """Another process holds the index's and the session's locks (as another local user
    could, on a lock file it can read): the hook gives up within its budget, serves the
    rules it found (a command rule as context: a refusal it cannot record would refuse
    the retry for ever), and logs it once."""
    _lessons(project)
    data = _push(project.root)
    with _held(project.local(INDEX_LOCK), _session_lock(project, data)):
        got, took = _hook_process(data, project.root)
    assert PUSH_RULE in _context(got)
    assert took < LOCK_BUDGET_SECONDS + HOOK_TIMEOUT / 2, took
    busy = [line for line in _log_lines(project) if "LockBusy" in line]
    assert len(busy) == 2, busy  # the index's lock and the session's, one line each
    assert all("stayed locked by another process" in line for line in busy)


def test_lock_files_are_private_to_their_owner(project: Layout) -> None:
    """A lock file is created 0600, and one made readable to others is made 0600 again:
    whoever can open a lock file can flock it."""
    _lessons(project)
    lock = Path(project.local(INDEX_LOCK))
    answer(H, _edit(project.root))
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600
    lock.chmod(0o644)
    with fsutil.locked(lock):
        pass
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600


def test_a_command_waiting_on_a_lock_gives_up_naming_it(
    project: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``lessons add`` while another process holds the store's lock: after the bounded
    wait, a user error naming the lock file, not a hang."""
    monkeypatch.setattr(fsutil, "LOCK_WAIT_SECONDS", 0.5)
    monkeypatch.chdir(project.root)
    lock = str(project.local(STORE_LOCK))
    with _held(lock):
        start = time.monotonic()
        result = CliRunner().invoke(
            cli, ["add", PUSH_RULE, "--topic", "build", "--trigger-file", "src/a.py"]
        )
        took = time.monotonic() - start
    assert result.exit_code == 1, result.output
    assert f"{lock} stayed locked by another process" in result.output
    assert took < 5, took


# --- FIFOs where a hook reads a file ----------------------------------------------------


def _returns(work: Callable[[], object], fifo: Path) -> object:
    """``work()``'s result; fails (and unblocks it by opening ``fifo``'s other end) when
    it waits on the FIFO instead of returning."""
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(work()), daemon=True)
    thread.start()
    thread.join(10)
    if thread.is_alive():
        with open(fifo, "wb"):  # let the blocked open() return, so the test ends
            pass
        thread.join(10)
        pytest.fail(f"waited on the FIFO {fifo}")
    return result[0]


def test_a_fifo_as_codex_transcript_path_never_holds_the_hook(project: Layout) -> None:
    fifo = project.root.parent / "rollout.jsonl"
    os.mkfifo(fifo)
    data = payload("codex", "post_tool_use_bash", project.root, transcript_path=str(fifo))
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "lessons_cli", "hook", "codex"],
        input=json.dumps(data).encode(),
        capture_output=True,
        cwd=project.root,
        timeout=STUCK_AFTER,
        check=False,
    )
    assert done.returncode == 0
    assert time.monotonic() - start < HOOK_TIMEOUT
    assert _returns(lambda: codex_exits.exit_code(str(fifo), "call_f_0_0000"), fifo) is None


def test_no_transcript_reader_waits_on_a_fifo(project: Layout) -> None:
    """Gemini's history check, Codex's rollout sniffing and the harvest's transcript
    reader: a FIFO is no file to read."""
    fifo = project.root.parent / "session.jsonl"
    os.mkfifo(fifo)
    assert _returns(lambda: gemini._rewritten(str(fifo), 0, 10), fifo) is False
    assert _returns(lambda: rollout_folder(fifo), fifo) is None

    def harvest() -> str:
        try:
            list(stream_transcript(fifo, Transcript()))
        except TranscriptError as err:
            return str(err)
        return "read"

    assert "is not a regular file" in str(_returns(harvest, fifo))
    assert fsutil.open_payload_file(str(fifo)) is None
    assert fsutil.read_payload_tail(str(fifo), 100) == (b"", True)


def test_a_payload_file_is_read_within_its_bound(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"a\n" * 1000)
    assert fsutil.read_payload_tail(str(path), 10) == (b"a\n" * 5, False)
    assert fsutil.read_payload_tail(str(path), 5000) == (b"a\n" * 1000, True)
    assert fsutil.read_payload_tail(str(tmp_path), 10) == (b"", True)  # a folder
    assert fsutil.read_payload_tail("bad\0path", 10) == (b"", True)


# --- a store that cannot be written -----------------------------------------------------


def _namespace_problem() -> str | None:
    """Why this machine cannot give a test its own mounts; None when it can."""
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    try:
        probe = subprocess.run(
            [
                "unshare",
                "--user",
                "--map-root-user",
                "--mount",
                "mount",
                "-t",
                "tmpfs",
                "x",
                "/mnt",
            ],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"unshare could not run: {err}"
    if probe.returncode != 0:
        return (
            "this machine refuses a user and mount namespace (unshare --user --map-root-user "
            f"--mount: {probe.stderr.decode().strip()}), so no read-only or full mount can "
            "be made without changing the host's mounts; chmod does not stop root"
        )
    return None


NAMESPACE_PROBLEM = _namespace_problem()
needs_mounts = pytest.mark.skipif(NAMESPACE_PROBLEM is not None, reason=str(NAMESPACE_PROBLEM))


def _mounted(setup: str) -> tuple[str, ...]:
    """A command prefix that runs the rest in a mount namespace after ``setup`` (sh)."""
    return (
        "unshare",
        "--user",
        "--map-root-user",
        "--mount",
        "sh",
        "-ec",
        f'{setup}\nexec "$@"',
        "sh",
    )


def _read_only(folder: Path) -> tuple[str, ...]:
    return _mounted(f"mount --bind '{folder}' '{folder}'\nmount -o remount,bind,ro '{folder}'")


def _full(folder: Path) -> tuple[str, ...]:
    """``folder`` replaced by a small tmpfs holding what it held, then filled up."""
    return _mounted(
        f"cp -a '{folder}' '{folder}.copy'\n"
        f"mount -t tmpfs -o size=256k tmpfs '{folder}'\n"
        f"cp -a '{folder}.copy/.' '{folder}/'\n"
        f"rm -rf '{folder}.copy'\n"
        f"dd if=/dev/zero of='{folder}/.fill' bs=4k 2>/dev/null || true"
    )


def _both_delivered(project: Layout, prefix: tuple[str, ...]) -> None:
    """Both rules delivered as context by hook processes run after ``prefix``, twice (a
    cache and a session folder exist before: a hook ran once)."""
    _lessons(project)
    answer(H, _edit(project.root, "warm"))
    for _ in range(2):
        got, _took = _hook_process(_push(project.root), project.root, prefix)
        assert PUSH_RULE in _context(got)
        got, _took = _hook_process(_edit(project.root), project.root, prefix)
        assert EDIT_RULE in _context(got)


@needs_mounts
def test_a_read_only_store_still_delivers_and_never_refuses(project: Layout) -> None:
    """``.lessons`` mounted read-only (a checkout on a read-only volume): the index is
    built in memory, the session cannot be written, and every hook still delivers; the
    command rule comes as context each time, never as a refusal its retry would meet
    again."""
    _both_delivered(project, _read_only(project.root / ".lessons"))


@needs_mounts
def test_a_session_folder_that_cannot_be_written_is_logged_once(project: Layout) -> None:
    """Only ``local/sessions`` read-only: delivered as above, and one line in the hook's
    log for the session it could not write."""
    _lessons(project)
    answer(H, _edit(project.root, "warm"))
    got, _took = _hook_process(
        _push(project.root), project.root, _read_only(Path(project.local(SESSIONS)))
    )
    assert PUSH_RULE in _context(got)
    lines = _log_lines(project)
    assert len(lines) == 1, lines
    assert "Read-only file system" in lines[0]


@needs_mounts
def test_a_full_disk_still_delivers(project: Layout) -> None:
    """``.lessons/local`` on a full tmpfs (ENOSPC on every write): delivered all the same."""
    _both_delivered(project, _full(project.local_dir))


@needs_mounts
def test_lessons_add_on_a_full_disk_names_the_file_and_the_errno(project: Layout) -> None:
    done = subprocess.run(
        [
            *_full(project.lessons_dir),
            sys.executable,
            "-m",
            "lessons_cli",
            "add",
            "Run make gen before pushing.",
            "--topic",
            "build",
            "--trigger-file",
            "src/a.py",
        ],
        capture_output=True,
        cwd=project.root,
        timeout=STUCK_AFTER,
        check=False,
    )
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert "hit a bug" not in err
    assert "Traceback" not in err
    assert f"error: {project.lessons_dir}/build-" in err
    assert "No space left on device (ENOSPC); free some space on that disk" in err


# --- lessons' own files replaced by a clone ---------------------------------------------


def _cloned(project: Layout, tmp_path: Path) -> Layout:
    """A clone of ``project`` with everything under ``.lessons/local`` committed."""
    git(project.root, "add", "-f", ".lessons")
    git(project.root, "commit", "-q", "-m", "local state too")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(project.root), str(clone))
    return Layout(str(clone))


def test_a_committed_link_as_the_index_lock_never_silences_a_clone(
    project: Layout, tmp_path: Path
) -> None:
    _lessons(project)
    local = project.local_dir
    local.mkdir(parents=True, exist_ok=True)
    (local / INDEX_LOCK).symlink_to("../lessons/build-gen-before-push.json")
    (local / SESSIONS).write_text("not a folder\n")  # a session folder that is a file
    clone = _cloned(project, tmp_path)
    assert Path(clone.local(INDEX_LOCK)).is_symlink()
    assert Path(clone.local(SESSIONS)).is_file()
    for _ in range(2):
        assert PUSH_RULE in _context(answer(H, _push(clone.root)))
        assert EDIT_RULE in _context(answer(H, _edit(clone.root)))
    # One line a call: the lock's link, once per call however many times it was met.
    assert any("recall-index.lock is a symbolic link" in line for line in _log_lines(clone))
    target = clone.lessons_dir / "build-gen-before-push.json"
    assert json.loads(target.read_text())["rule"] == PUSH_RULE  # never written through


def test_where_a_hook_can_only_refuse_an_unrecordable_refusal_waits_for_after(
    project: Layout,
) -> None:
    """Gemini CLI's BeforeTool can refuse but not add context: with a session it cannot
    write, it stays silent rather than refuse a call whose retry it could not let
    through, and AfterTool brings the rule as context."""
    write_lesson(project, "release-bump", "Bump VERSION first.", commands=(r"scripts/release\.sh",))
    project.local_dir.mkdir(parents=True, exist_ok=True)
    Path(project.local(SESSIONS)).write_text("not a folder\n")
    before = payload("gemini", "before_tool_shell", project.root)
    after = payload("gemini", "after_tool_shell", project.root)
    for _ in range(2):
        assert answer("gemini", before) is None
        got = answer("gemini", after)
        assert got is not None
        assert "Bump VERSION first." in got["hookSpecificOutput"]["additionalContext"]
    # With a session it can write, the same call is refused once, as ever.
    Path(project.local(SESSIONS)).unlink()
    got = answer("gemini", before)
    assert got is not None
    assert got["decision"] == "deny"


def test_a_stop_request_it_cannot_mark_as_made_is_not_made(
    project: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A correction is kept as evidence, then the session's lock is held elsewhere: the
    stop is let through (a request it could not mark as made would block every stop),
    and it is made once the session can be written again."""
    monkeypatch.setattr("lessons_cli.hook_runner.LOCK_BUDGET_SECONDS", 0.2)
    edit = payload(H, "pre_tool_use_edit", project.root, session_id="s-stop")
    said = payload(H, "user_prompt_submit", project.root, session_id="s-stop")
    said["prompt"] = "No, don't touch that file; the generator writes it."
    stop = payload(H, "stop", project.root, session_id="s-stop", stop_hook_active=False)
    answer(H, edit)
    answer(H, said)
    with _held(_session_lock(project, stop)):
        assert answer(H, stop) is None
        assert answer(H, stop) is None
    got = answer(H, stop)
    assert got is not None
    assert got["decision"] == "block"
    assert answer(H, stop) is None
