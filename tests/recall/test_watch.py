"""The watcher of large stores: it spares hooks the per-file check and never lets a change
through unseen (lessons_core.index.watcher_client, lessons_core.index.watcher_process).
Real watcher processes, real inotify, real files; each test removes its lessons folder at
the end, which ends its watcher."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lessons_core.index import file_scan, watcher_client, watcher_process
from lessons_core.recall.rank import recall
from lessons_core.recall.types import RecallRequest
from lessons_core.store.config import Config
from lessons_core.store.layout import Layout
from lessons_core.store.project import init_project
from tests.conftest import save_lesson
from tests.recall.conftest import UNLIMITED, WriteLesson

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")

REQUEST = RecallRequest(files=("src/api/client.ts",))
WATCHED = UNLIMITED._replace(watch_from=1)
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def watched(layout: Layout) -> Iterator[Layout]:
    """A store whose watcher (if any) is ended with it."""
    yield layout
    shutil.rmtree(layout.lessons_dir, ignore_errors=True)


def rules(layout: Layout, config: Config = WATCHED) -> list[str]:
    return [hit.rule for hit in recall(layout, REQUEST, config=config).hits]


def wait_for_watcher(layout: Layout) -> str:
    """The watcher's state once it answers (it takes a Python start to come up)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        seen = watcher_client.state(str(layout.lessons_dir))
        if seen is not None:
            return seen
        time.sleep(0.05)
    raise AssertionError("no watcher answered")


def watching(layout: Layout) -> str:
    """Recall until a watcher vouches for the cache (the first recall builds the cache,
    the first full check of it starts the watcher); the watcher's state."""
    rules(layout)
    rules(layout)
    seen = wait_for_watcher(layout)
    rules(layout)  # a full check after the watcher answered: recorded
    assert (watcher_client.verified(layout) or "").startswith(seen)
    return seen


def edit_in_place(path: Path, old: str, new: str) -> None:
    """Rewrite ``path`` through the same inode, same size (mtime restored below)."""
    before = os.stat(path)
    data = path.read_bytes()
    assert len(old) == len(new)
    with open(path, "r+b") as handle:
        handle.write(data.replace(old.encode(), new.encode()))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def no_scans(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any per-file check fail the test."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the files were stat-ed")

    monkeypatch.setattr(file_scan.Scan, "__init__", refuse)


def test_a_hook_starts_a_watcher_and_then_needs_no_stat(
    watched: Layout, write_lesson: WriteLesson, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full check of a store past watch_from starts a watcher; once a full check has
    passed after the watcher answered, recalls use the cache without stat-ing a file."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    watching(watched)
    no_scans(monkeypatch)
    assert rules(watched) == ["Reuse the shared client."]


@pytest.mark.parametrize("change", ["edit in place", "add", "delete", "rename"])
def test_every_change_is_seen_by_the_next_recall(
    watched: Layout, write_lesson: WriteLesson, change: str
) -> None:
    """After the watcher vouched for the cache, a same-size in-place edit with its mtime
    set back, an added, a deleted or a renamed file is in the very next recall."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    write_lesson("spare", "Keep spare rules short.", files=("src/api/**",))
    watching(watched)
    spare = watched.lesson_path("spare")
    if change == "edit in place":
        edit_in_place(watched.lesson_path("api"), "shared", "common")
        expected = ["Keep spare rules short.", "Reuse the common client."]
    elif change == "add":
        write_lesson("timeout", "Give requests a timeout.", files=("src/api/client.ts",))
        expected = [
            "Give requests a timeout.",
            "Keep spare rules short.",
            "Reuse the shared client.",
        ]
    elif change == "delete":
        spare.unlink()
        expected = ["Reuse the shared client."]
    else:
        spare.rename(spare.with_name("spare.json.bak"))
        expected = ["Reuse the shared client."]
    assert sorted(rules(watched)) == expected


@pytest.mark.parametrize("linked", ["before the watcher", "after the record"])
def test_an_edit_through_a_hard_link_from_outside_is_seen(
    watched: Layout, write_lesson: WriteLesson, tmp_path: Path, linked: str
) -> None:
    """The kernel reports an edit through another name of a file to that file's watchers,
    not to its folder's: each lesson file is watched, so the edit is counted either way."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    outside = tmp_path / "elsewhere.json"
    if linked == "before the watcher":
        os.link(watched.lesson_path("api"), outside)
    watching(watched)
    if linked == "after the record":
        os.link(watched.lesson_path("api"), outside)
    edit_in_place(outside, "shared", "common")
    assert rules(watched) == ["Reuse the common client."]


def test_a_record_for_another_cache_file_is_not_trusted(
    watched: Layout, write_lesson: WriteLesson, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record names the cache file that passed the check; once the cache is another
    file (rebuilt since), the next recall checks every file again."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    seen = watching(watched)
    watcher_client.record(watched, f"{seen} some-other-cache-file")
    checks: list[object] = []
    real_init = file_scan.Scan.__init__

    def counted(self: file_scan.Scan, *args: object, **kwargs: object) -> None:
        checks.append(args)
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(file_scan.Scan, "__init__", counted)
    assert rules(watched) == ["Reuse the shared client."]
    assert checks


def test_only_local_file_systems_are_watched(tmp_path: Path) -> None:
    """A folder on NFS, SMB, FUSE or overlay could change without an event here: its type
    is read by device number (mount paths may hold escaped characters), and only local
    types are watched."""
    device = os.stat(tmp_path).st_dev
    here = f"{os.major(device)}:{os.minor(device)}"
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        f"22 1 {here} / / rw - ext4 /dev/sda1 rw\n"
        f"23 22 {here} /sub /mnt/a\\134b rw shared:1 - ext4 /dev/sda1 rw\n"
        "30 22 0:40 / /mnt/share rw - nfs4 server:/share rw\n"
        "31 22 0:41 / /mnt/box rw shared:1 - fuse.sshfs box: rw\n"
    )
    assert watcher_process.file_system(device, str(mountinfo)) == "ext4"
    assert watcher_process.file_system(os.makedev(0, 40), str(mountinfo)) == "nfs4"
    assert watcher_process.file_system(os.makedev(0, 41), str(mountinfo)) == "fuse.sshfs"
    assert watcher_process.file_system(os.makedev(0, 99), str(mountinfo)) == ""
    for kind in ("nfs4", "fuse.sshfs", "overlay", "9p", "virtiofs", "cifs"):
        assert kind not in watcher_process.LOCAL_FILE_SYSTEMS


def test_a_store_too_large_for_the_watch_limit_is_not_watched(tmp_path: Path) -> None:
    """A watcher takes at most half of the user's inotify watches (8,192 on older
    kernels): other programs keep theirs."""
    limits = tmp_path / "max_user_watches"
    limits.write_text("8192\n")
    assert watcher_process.watch_budget(2000, str(limits))
    assert not watcher_process.watch_budget(6000, str(limits))


def test_lost_events_stop_the_watcher(watched: Layout, write_lesson: WriteLesson) -> None:
    """When the kernel's event queue overflows (a watcher starved of CPU), a new file may
    have gone unwatched: the watcher stops, and hooks check every file."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    process = start_watcher(watched)
    try:
        wait_for_watcher(watched)
        os.kill(process.pid, signal.SIGSTOP)
        churn = watched.lessons_dir / "churn.tmp"
        for _ in range(9000):  # two events each, past the queue's 16,384
            churn.write_bytes(b"")
            churn.unlink()
        os.kill(process.pid, signal.SIGCONT)
        assert watcher_client.state(str(watched.lessons_dir)) is None
        assert process.wait(timeout=20) == 0
    finally:
        process.kill()
        process.wait()


def test_a_moved_repo_keeps_every_file_watched(tmp_path: Path) -> None:
    """After the repo is moved, a lesson added to it is still watched: an edit through a
    hard link from outside is seen."""
    first = init_project(tmp_path / "first")[0]
    moved = Layout(tmp_path / "moved")
    try:
        save_lesson(first, "api", "Reuse the shared client.", files=("src/api/**",))
        watching(first)
        first.root.rename(moved.root)
        save_lesson(moved, "newer", "Newer rule v1.", files=("src/api/**",))
        watching(moved)
        outside = tmp_path / "outside.json"
        os.link(moved.lesson_path("newer"), outside)
        edit_in_place(outside, "v1", "v2")
        assert sorted(rules(moved)) == ["Newer rule v2.", "Reuse the shared client."]
    finally:
        for layout in (first, moved):
            shutil.rmtree(layout.lessons_dir, ignore_errors=True)


def test_a_watcher_of_another_folder_is_not_trusted(watched: Layout) -> None:
    """A process answering on the folder's name for another device or inode is ignored."""
    folder = os.stat(watched.lessons_dir)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(watcher_client.address(folder.st_dev, folder.st_ino))
    server.listen(1)

    def answer() -> None:
        connection, _ = server.accept()
        with connection:
            connection.sendall(f"abc 0 {folder.st_dev} {folder.st_ino + 1}\n".encode())

    thread = threading.Thread(target=answer)
    thread.start()
    try:
        assert watcher_client.state(str(watched.lessons_dir)) is None
    finally:
        thread.join(timeout=5)
        server.close()


def start_watcher(layout: Layout) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "lessons_core.index.watcher_process", str(layout.lessons_dir)],
        cwd=REPO,
    )


def test_the_watcher_exits_when_its_folder_goes(watched: Layout) -> None:
    """Removing the lessons folder ends its watcher; hooks then check every file."""
    process = start_watcher(watched)
    try:
        wait_for_watcher(watched)
        shutil.rmtree(watched.lessons_dir)
        assert process.wait(timeout=20) == 0
    finally:
        process.kill()
        process.wait()


def test_a_second_watcher_of_the_same_folder_exits_at_once(watched: Layout) -> None:
    """One watcher a folder: another finds the name taken and leaves."""
    first = start_watcher(watched)
    try:
        wait_for_watcher(watched)
        assert start_watcher(watched).wait(timeout=20) == 0
    finally:
        first.kill()
        first.wait()


def test_a_hook_that_starts_a_watcher_holds_up_nobody(watched: Layout) -> None:
    """The watcher holds none of the hook's descriptors (its streams, or a pipe a wrapper
    passed down): whoever reads the hook's output to its end is not kept waiting."""
    watched.config_path.write_text(json.dumps({"watch_from": 1}))
    (watched.lessons_dir / "api.json").write_text(
        json.dumps(
            {
                "id": "api",
                "rule": "Reuse the shared client.",
                "topics": ["api"],
                "triggers": {"files": ["src/api/**"]},
                "created": "2026-11-30",
                "status": "active",
            }
        )
    )
    payload = {
        "session_id": "s",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(watched.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(watched.root / "src/api/client.ts")},
    }
    extra_read, extra_write = os.pipe()  # a descriptor a wrapper script could pass down
    try:
        for _call in range(2):  # the first builds the cache, the second starts a watcher
            done = subprocess.run(
                [sys.executable, "-I", "-m", "lessons_cli", "hook", "claude-code"],
                input=json.dumps(payload),
                capture_output=True,
                text=True,
                cwd=watched.root,
                timeout=30,
                check=False,
                pass_fds=(extra_write,),
            )
            assert done.returncode == 0
        wait_for_watcher(watched)
        os.close(extra_write)
        extra_write = -1
        # End of file within seconds: no process holds the pipe open any more.
        readable, _, _ = select.select([extra_read], [], [], 5)
        assert readable, "a process still holds the hook's pipe"
        assert os.read(extra_read, 10) == b""
    finally:
        os.close(extra_read)
        if extra_write >= 0:
            os.close(extra_write)


def test_the_watcher_starts_where_isolated_mode_cannot_see_lessons(tmp_path: Path) -> None:
    """An interpreter without lessons on its own path (as a pip --user install looks from
    isolated mode) still imports the watcher from the folder lessons was loaded from: it
    runs, finds no folder to watch, and exits 0 (not 1 with ModuleNotFoundError)."""
    bare = Path(sys.base_prefix) / "bin" / "python3"
    assert bare.exists()
    probe = subprocess.run(
        [str(bare), "-I", "-c", "import lessons_core"], capture_output=True, check=False
    )
    assert probe.returncode == 1  # this interpreter cannot see lessons by itself
    done = subprocess.run(
        watcher_client.watcher_command(str(bare), str(tmp_path / "missing")),
        cwd="/",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
