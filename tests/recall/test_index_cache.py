"""The cached recall index is never stale: every change to the lesson files (or the config)
is seen by the very next recall, and a damaged cache is rebuilt, never trusted."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from lessons_core.index import cache as index_cache
from lessons_core.index import file_format as index_file
from lessons_core.index.cache import cached_index
from lessons_core.index.file_scan import NUMBERS, UNREADABLE
from lessons_core.recall.rank import recall
from lessons_core.recall.types import RecallRequest
from lessons_core.store.config import Config, load_config
from lessons_core.store.layout import INDEX_CACHE, Layout
from tests.recall.conftest import UNLIMITED, WriteLesson

REQUEST = RecallRequest(files=("src/api/client.ts",))


def rules(layout: Layout, config: Config = UNLIMITED) -> list[str]:
    return [hit.rule for hit in recall(layout, REQUEST, config=config).hits]


def cache(layout: Layout) -> Path:
    return layout.local_dir / INDEX_CACHE


def edit_in_place(path: Path, old: str, new: str) -> None:
    """Rewrite ``path`` through the same inode (as many editors do), same size."""
    data = path.read_bytes()
    assert len(old) == len(new)
    assert old.encode() in data
    with open(path, "r+b") as handle:
        handle.write(data.replace(old.encode(), new.encode()))


def stat_numbers(path: Path, stat: os.stat_result | None = None) -> tuple[int, ...]:
    """(size, mtime, inode, ctime) of ``path``, or of ``stat`` when given."""
    found = stat or os.stat(path)
    return found.st_size, found.st_mtime_ns, found.st_ino, found.st_ctime_ns


def coarse(stat: os.stat_result) -> os.stat_result:
    """``stat`` as a file system with one-second timestamps reports it."""
    seconds = [int(value) // 10**9 * 10**9 for value in (stat.st_atime_ns, stat.st_mtime_ns)]
    seconds.append(stat.st_ctime_ns // 10**9 * 10**9)
    fields = [stat[i] for i in range(7)] + [s // 10**9 for s in seconds]
    return os.stat_result((*fields, *(float(s // 10**9) for s in seconds), *seconds), {})


@pytest.fixture
def one_second_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Simulate a file system whose timestamps have whole-second resolution (ext3, HFS+),
    where an edit within the same second leaves every stat number unchanged."""
    real_stat, real_fstat = os.stat, os.fstat
    monkeypatch.setattr(os, "stat", lambda *a, **k: coarse(real_stat(*a, **k)))
    monkeypatch.setattr(os, "fstat", lambda fd: coarse(real_fstat(fd)))


def test_first_recall_builds_the_cache(layout: Layout, write_lesson: WriteLesson) -> None:
    """The first recall writes the index file under .lessons/local/; the next reads it."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    assert not cache(layout).exists()
    assert rules(layout) == ["Reuse the shared client."]
    built = cache(layout).stat()
    assert rules(layout) == ["Reuse the shared client."]
    assert cache(layout).stat().st_ino == built.st_ino  # fresh: not rewritten


def test_an_added_lesson_is_seen_by_the_next_recall(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """A lesson file added after the cache was built is recalled at once."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    assert rules(layout) == ["Reuse the shared client."]
    write_lesson("timeout", "Give requests a timeout.", files=("src/api/client.ts",))
    assert rules(layout) == ["Give requests a timeout.", "Reuse the shared client."]


def test_a_deleted_lesson_is_gone_from_the_next_recall(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """Deleting a lesson file removes it from the very next recall."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    write_lesson("timeout", "Give requests a timeout.", files=("src/api/client.ts",))
    assert len(rules(layout)) == 2
    layout.lesson_path("timeout").unlink()
    assert rules(layout) == ["Reuse the shared client."]


def test_a_same_size_edit_in_place_with_the_old_mtime_is_seen(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """An in-place edit of the same size, with the mtime set back to the old value, is
    seen: ctime cannot be set back."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    path = layout.lesson_path("api")
    assert rules(layout) == ["Reuse the shared client."]
    before = path.stat()
    edit_in_place(path, "shared", "common")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert stat_numbers(path)[:3] == stat_numbers(path, before)[:3]
    assert rules(layout) == ["Reuse the common client."]


def index_then_edit_in_the_same_second(layout: Layout, write_lesson: WriteLesson) -> Path:
    """Index a lesson, then edit it in place (same size) within the same second of a
    one-second clock, so its stat data is unchanged; the lesson file's path."""
    for _attempt in range(5):
        start = time.time()
        write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
        path = layout.lesson_path("api")
        assert rules(layout) == ["Reuse the shared client."]
        before = stat_numbers(path)
        edit_in_place(path, "shared", "common")
        if int(time.time()) == int(start):
            break
        path.unlink()  # a second boundary fell in between: try again
    assert stat_numbers(path) == before
    return path


@pytest.mark.usefixtures("one_second_clock")
def test_a_same_size_edit_in_the_same_second_is_seen(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """With one-second timestamps, a lesson indexed and then edited in place (same size)
    within the same second has identical stat data; its bytes, kept because it was
    changed too close to the build, reveal the edit."""
    index_then_edit_in_the_same_second(layout, write_lesson)
    assert rules(layout) == ["Reuse the common client."]


@pytest.mark.usefixtures("one_second_clock")
def test_without_the_byte_comparison_the_same_second_edit_is_missed(
    layout: Layout, write_lesson: WriteLesson, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The byte comparison is what catches that edit: with it switched off, the stale
    cache is trusted and the old rule is recalled (so the test above proves something)."""
    index_then_edit_in_the_same_second(layout, write_lesson)
    compare = index_cache.racy_unchanged
    monkeypatch.setattr(index_cache, "racy_unchanged", lambda folder, racy: True)
    assert rules(layout) == ["Reuse the shared client."]
    monkeypatch.setattr(index_cache, "racy_unchanged", compare)  # still one-second stat data
    assert rules(layout) == ["Reuse the common client."]


def test_an_unchanged_folder_is_not_listed_again(
    layout: Layout, write_lesson: WriteLesson, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the folder's last change is older than the build, a check stats the files it
    knows without listing the folder; adding a file changes the folder and is seen."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    time.sleep(0.05)  # past the file system clock's tick: the folder is not racy
    assert rules(layout) == ["Reuse the shared client."]
    listed: list[object] = []
    real_listdir = os.listdir

    def listdir(*args: Any) -> list[str]:
        listed.append(args)
        return real_listdir(*args)

    monkeypatch.setattr(os, "listdir", listdir)
    assert rules(layout) == ["Reuse the shared client."]
    assert listed == []
    write_lesson("timeout", "Give requests a timeout.", files=("src/api/client.ts",))
    assert rules(layout) == ["Give requests a timeout.", "Reuse the shared client."]
    assert listed


@pytest.mark.usefixtures("one_second_clock")
def test_a_lesson_added_in_the_second_of_the_build_is_seen(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """With one-second timestamps a file added in the second the cache was built leaves
    the folder's stat data unchanged; such a folder is listed on every check."""
    for attempt in range(5):
        start = time.time()
        write_lesson(f"api-{attempt}", "Reuse the shared client.", files=("src/api/**",))
        folder = os.stat(layout.lessons_dir)
        assert len(rules(layout)) == 1
        rule = "Give requests a timeout."
        write_lesson(f"timeout-{attempt}", rule, files=("src/api/client.ts",))
        if int(time.time()) == int(start):
            break
        for name in (f"api-{attempt}", f"timeout-{attempt}"):  # a second went by: again
            layout.lesson_path(name).unlink()
    assert stat_numbers(layout.lessons_dir)[1:3] == stat_numbers(layout.lessons_dir, folder)[1:3]
    assert len(rules(layout)) == 2


@pytest.mark.usefixtures("one_second_clock")
def test_racy_files_are_compared_only_until_the_next_build(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """Only files changed in the build's own clock tick are kept byte for byte; a build in
    a later second keeps none."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    rules(layout)
    reader = index_file.Reader(str(cache(layout)))
    assert [name for name, _raw in index_cache.Meta.read(reader).racy] == ["api.json"]
    time.sleep(1.05 - time.time() % 1)
    write_lesson("timeout", "Give requests a timeout.", files=("src/api/client.ts",))
    time.sleep(1.05 - time.time() % 1)
    layout.lesson_path("timeout").touch()  # changed, and in an earlier second than the build
    time.sleep(1.05 - time.time() % 1)
    rules(layout)
    assert index_cache.Meta.read(index_file.Reader(str(cache(layout)))).racy == ()


def test_a_config_change_is_seen_by_the_next_recall(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """Changing max_trigger_matches in config.json changes the very next recall."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    write_lesson("timeout", "Give requests a timeout.", files=("src/api/client.ts",))
    assert [
        h.rule for h in recall(layout, REQUEST, config=load_config(layout.config_file)).hits
    ] == [
        "Give requests a timeout.",
        "Reuse the shared client.",
    ]
    layout.config_path.write_text('{"max_trigger_matches": 1}\n')
    found = recall(layout, REQUEST, config=load_config(layout.config_file))
    assert [h.rule for h in found.hits] == ["Give requests a timeout."]
    assert found.more == 1


def test_a_corrupt_lesson_file_appearing_is_reported_and_skipped(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """A lesson file that does not parse is listed as broken and the rest still recall;
    once fixed, it is recalled."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    assert cached_index(layout)[1] == []
    broken = layout.lessons_dir / "half.json"
    broken.write_text('{"id": "half", "rule": ')
    _index, errors = cached_index(layout)
    assert [(err.path, "not valid JSON" in err.problem) for err in errors] == [(broken, True)]
    assert rules(layout) == ["Reuse the shared client."]
    assert cached_index(layout)[1][0].path == broken  # still reported from the cache
    broken.unlink()
    write_lesson("half", "Check the half-open circuit.", files=("src/api/client.ts",))
    assert cached_index(layout)[1] == []
    assert rules(layout) == ["Check the half-open circuit.", "Reuse the shared client."]


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: b"garbage" * 10, id="garbage"),
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda data: data[:-40] + bytes(40), id="zeroed-tail"),
        pytest.param(lambda data: data[:30] + b"\xff" + data[31:], id="header-byte"),
    ],
)
def test_a_damaged_cache_is_rebuilt_not_trusted(
    layout: Layout, write_lesson: WriteLesson, damage: object
) -> None:
    """A cache file that is empty, garbage, truncated or has damaged bytes is rebuilt."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    write_lesson("timeout", "Give requests a timeout.", files=("src/api/client.ts",))
    expected = rules(layout)
    assert callable(damage)
    cache(layout).write_bytes(damage(cache(layout).read_bytes()))
    assert rules(layout) == expected
    index_file.Reader(str(cache(layout)))  # rewritten whole


def test_a_damaged_part_found_at_first_use_triggers_a_rebuild(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """A flipped byte inside one part fails that part's CRC when it is loaded; recall
    rebuilds and answers correctly."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    rules(layout)
    reader = index_file.Reader(str(cache(layout)))
    _size, _firsts, pieces = reader.directory("by_prefix", "map")
    offset = reader._base + index_file._entry(pieces, 0)[0] + 2
    data = bytearray(cache(layout).read_bytes())
    data[offset] ^= 0xFF
    cache(layout).write_bytes(bytes(data))
    with pytest.raises(index_file.CorruptIndex):
        dict(index_file.read_index(index_file.Reader(str(cache(layout)))).by_prefix)
    assert rules(layout) == ["Reuse the shared client."]
    assert dict(index_file.read_index(index_file.Reader(str(cache(layout)))).by_prefix)


def test_a_cache_from_another_version_is_rebuilt(
    layout: Layout, write_lesson: WriteLesson, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index file of another format version is ignored and replaced."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    monkeypatch.setattr(index_file, "FORMAT_VERSION", index_file.FORMAT_VERSION + 1)
    rules(layout)
    monkeypatch.undo()
    with pytest.raises(index_file.CorruptIndex, match="another version"):
        index_file.Reader(str(cache(layout)))
    assert rules(layout) == ["Reuse the shared client."]
    index_file.Reader(str(cache(layout)))


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """From now on, the name of each lesson file a rebuild parses."""
    read: list[str] = []
    real_read = index_cache._read

    def spy(folder: str, name: str, signature: tuple[int, ...]) -> Any:
        read.append(name)
        return real_read(folder, name, signature)

    monkeypatch.setattr(index_cache, "_read", spy)
    return read


def test_a_rebuild_reads_only_the_changed_files(
    layout: Layout, write_lesson: WriteLesson, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After one lesson changes, the rebuild parses that file alone; the others' compiled
    triggers come from the cache."""
    for n in range(5):
        write_lesson(f"rule-{n}", f"Rule number {n} for the client.", files=("src/api/**",))
    time.sleep(0.05)  # every file older than the build's clock, so none is kept as racy
    rules(layout)
    read = count_reads(monkeypatch)
    edit_in_place(layout.lesson_path("rule-3"), "number", "NUMBER")
    assert "Rule NUMBER 3 for the client." in rules(layout)
    assert read == ["rule-3.json"]


def test_a_store_whose_local_folder_cannot_be_written_still_recalls(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """When .lessons/local/ cannot hold files, recall indexes in memory every time."""
    write_lesson("api", "Reuse the shared client.", files=("src/api/**",))
    for child in layout.local_dir.iterdir():
        child.unlink()
    layout.local_dir.rmdir()
    layout.local_dir.write_text("not a folder\n")
    assert rules(layout) == ["Reuse the shared client."]
    write_lesson("timeout", "Give requests a timeout.", files=("src/api/client.ts",))
    assert rules(layout) == ["Give requests a timeout.", "Reuse the shared client."]


CONCURRENT = """
import sys
from pathlib import Path
from lessons_core.store.layout import Layout
from lessons_core.recall.rank import RecallRequest, recall
from tests.recall.conftest import UNLIMITED
found = recall(Layout(Path(sys.argv[1])), RecallRequest(files=("src/api/client.ts",)),
               config=UNLIMITED)
print(" ".join(hit.lesson_id for hit in found.hits))
"""


def test_concurrent_recalls_after_a_change_all_see_it(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """Eight processes recalling at once after a change all answer with it, and leave one
    valid cache and no temp files."""
    # Rules on the exact path: never a broad trigger, however many lessons carry it.
    for n in range(30):
        rule = f"Rule {n} for the client."
        write_lesson(f"rule-{n:02d}", rule, files=("src/api/client.ts",), created="2025-12-01")
    rules(layout)
    write_lesson("timeout", "Give requests a timeout.", files=("src/api/client.ts",))
    root = Path(__file__).resolve().parents[2]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CONCURRENT, str(layout.root)],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    outputs = [proc.communicate(timeout=60) for proc in procs]
    assert [err for _out, err in outputs] == [""] * 8
    assert {out.split()[0] for out, _err in outputs} == {"timeout"}
    assert {len(out.split()) for out, _err in outputs} == {31}
    index_file.Reader(str(cache(layout)))
    assert sorted(p.name for p in layout.local_dir.iterdir() if p.name.endswith(".tmp")) == []


@pytest.fixture
def sampled(monkeypatch: pytest.MonkeyPatch) -> Config:
    """A store checked as a large one is: two files a window, from two files on."""
    monkeypatch.setattr(index_cache, "WINDOW_FILES", 2)
    return UNLIMITED._replace(sampled_check_from=2)


def write_six(layout: Layout, write_lesson: WriteLesson) -> list[Path]:
    for n in range(6):
        write_lesson(f"api-{n}", f"Rule number {n} of the api.", files=("src/api/client.ts",))
    return [layout.lesson_path(f"api-{n}") for n in range(6)]


def test_a_large_store_sees_an_added_lesson_at_once(
    layout: Layout, write_lesson: WriteLesson, sampled: Config
) -> None:
    """A file added to a large store changes its folder: the very next recall sees it."""
    write_six(layout, write_lesson)
    assert len(rules(layout, sampled)) == 6
    write_lesson("api-new", "Reuse the shared client.", files=("src/api/client.ts",))
    assert "Reuse the shared client." in rules(layout, sampled)


def test_a_large_store_sees_a_rename_rewrite_at_once(
    layout: Layout, write_lesson: WriteLesson, sampled: Config
) -> None:
    """A lesson rewritten by renaming a new file into place (as lessons, git and most
    editors write) is seen by the very next recall, whichever window it is in."""
    paths = write_six(layout, write_lesson)
    assert len(rules(layout, sampled)) == 6
    last = paths[-1]
    fresh = last.with_name(".tmp-rewrite")
    fresh.write_text(last.read_text().replace("Rule number 5", "Rule number 9"))
    os.replace(fresh, last)
    assert "Rule number 9 of the api." in rules(layout, sampled)


def test_a_large_store_sees_an_edit_in_place_within_one_round_of_windows(
    layout: Layout, write_lesson: WriteLesson, sampled: Config
) -> None:
    """An edit in place leaves the folder as it was: it is seen once the window holding
    the file is checked, at most as many calls later as the store has windows."""
    paths = write_six(layout, write_lesson)
    assert len(rules(layout, sampled)) == 6
    for path in paths:
        edit_in_place(path, "Rule number", "Rule NUMBER")
    seen = []
    for _ in range(3):  # six files, two a window
        seen = rules(layout, sampled)
        if all("NUMBER" in rule for rule in seen):
            break
    assert all("NUMBER" in rule for rule in seen), seen
    window = (layout.local_dir / "check-window").read_text()
    assert window in {"0", "1", "2"}


def test_a_small_store_checks_every_file_on_every_recall(
    layout: Layout, write_lesson: WriteLesson
) -> None:
    """Below ``sampled_check_from`` files an edit in place is seen by the next recall."""
    paths = write_six(layout, write_lesson)
    assert len(rules(layout)) == 6
    edit_in_place(paths[3], "Rule number 3", "Rule NUMBER 3")
    assert "Rule NUMBER 3 of the api." in rules(layout)
    assert not (layout.local_dir / "check-window").exists()


def test_a_window_marker_that_is_a_link_is_not_followed(
    layout: Layout, write_lesson: WriteLesson, sampled: Config, tmp_path: Path
) -> None:
    """The window number is never written through a link: recall still works, with a
    window drawn at random, and the link's target is untouched."""
    write_six(layout, write_lesson)
    assert len(rules(layout, sampled)) == 6  # the build
    assert len(rules(layout, sampled)) == 6  # a check, which keeps its window
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched")
    marker = layout.local_dir / "check-window"
    marker.unlink()
    marker.symlink_to(outside)
    assert len(rules(layout, sampled)) == 6
    assert outside.read_text() == "untouched"


def test_windows_cut_the_same_names_and_stats_as_a_split(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each window holds the names and the stat data a split of all of them gives, the
    last, short window too."""
    monkeypatch.setattr(index_cache, "WINDOW_FILES", 3)
    names = [f"lesson-{n}.json" for n in range(8)]
    stats = bytes(range(8)) * NUMBERS * 8
    width = NUMBERS * 8
    cut = index_cache.windows("\0".join(names), stats)
    assert [(found.split("\0"), packed) for found, packed in cut] == [
        (names[0:3], stats[0 : 3 * width]),
        (names[3:6], stats[3 * width : 6 * width]),
        (names[6:8], stats[6 * width :]),
    ]


def test_a_large_store_checks_a_window_without_reading_every_name(
    layout: Layout, write_lesson: WriteLesson, sampled: Config
) -> None:
    """The cache keeps each window apart: a check reads its window's names and stat
    data from there, the same a split of all of them gives."""
    write_six(layout, write_lesson)
    assert len(rules(layout, sampled)) == 6
    meta = index_cache.Meta.read(index_file.Reader(str(cache(layout))))
    windows = [meta.window(w) for w in range(3)]
    assert "names" not in meta._parts
    assert "stats" not in meta._parts
    every, stats, width = meta.names.split("\0"), meta.stats, NUMBERS * 8
    assert windows == [
        (every[at : at + 2], stats[at * width : (at + 2) * width]) for at in (0, 2, 4)
    ]


def flip_piece(layout: Layout, piece: tuple[int, int, int]) -> None:
    """Flip a byte in the middle of ``piece`` of the cache file, as a torn write or a disk
    error would: the piece then fails its CRC when it is loaded."""
    reader = index_file.Reader(str(cache(layout)))
    offset, length, _crc = piece
    data = bytearray(cache(layout).read_bytes())
    data[reader._base + offset + length // 2] ^= 0xFF
    cache(layout).write_bytes(bytes(data))


def windows_piece(layout: Layout, which: str) -> tuple[int, int, int]:
    """The piece holding the windows' directory, or the one holding window 1."""
    reader = index_file.Reader(str(cache(layout)))
    if which == "directory":
        return reader.part("windows", "seq")[1]
    return index_file._entry(reader.directory("windows", "seq")[2], 1)


def count_rebuilds(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """From now on, one item per rebuild (the full check and the lock) a recall starts."""
    started: list[bool] = []
    real_rebuild = index_cache._rebuild

    def spy(layout: Layout, *, trust: bool, **rest: Any) -> Any:
        started.append(trust)
        return real_rebuild(layout, trust=trust, **rest)

    monkeypatch.setattr(index_cache, "_rebuild", spy)
    return started


@pytest.mark.parametrize("which", ["directory", "window"])
def test_a_damaged_window_piece_is_rewritten_by_the_call_that_finds_it(
    layout: Layout,
    write_lesson: WriteLesson,
    sampled: Config,
    monkeypatch: pytest.MonkeyPatch,
    which: str,
) -> None:
    """A large store's check reads its window's piece alone; when that piece is damaged
    the call falls back to the full check, which finds every file current. The cache is
    rewritten then, so the calls after it take the fast path again."""
    write_six(layout, write_lesson)
    time.sleep(0.05)  # every file and the folder older than the build's clock: no racy
    assert len(rules(layout, sampled)) == 6
    meta = index_cache.Meta.read(index_file.Reader(str(cache(layout))))
    assert meta.racy == ()
    assert meta.folder_stat != UNREADABLE
    flip_piece(layout, windows_piece(layout, which))
    (layout.local_dir / "check-window").write_text("0")  # the next call checks window 1
    with pytest.raises(index_file.CorruptIndex):
        index_cache.Meta.read(index_file.Reader(str(cache(layout)))).window(1)
    rebuilds = count_rebuilds(monkeypatch)
    read = count_reads(monkeypatch)
    assert len(rules(layout, sampled)) == 6  # finds the damage
    assert rebuilds == [True]
    assert read == []  # every file's record is reused
    meta = index_cache.Meta.read(index_file.Reader(str(cache(layout))))
    assert [len(meta.window(w)[0]) for w in range(3)] == [2, 2, 2]  # rewritten, valid
    for _ in range(3):  # a full round of windows
        assert len(rules(layout, sampled)) == 6
    assert rebuilds == [True]


@pytest.mark.usefixtures("one_second_clock")  # every file racy: the racy part is a piece
@pytest.mark.parametrize("part", ["names", "stats", "racy"])
@pytest.mark.parametrize("large", [False, True], ids=["small", "large"])
def test_a_damaged_part_of_the_full_check_is_rewritten_by_the_call_that_finds_it(
    layout: Layout,
    write_lesson: WriteLesson,
    sampled: Config,
    monkeypatch: pytest.MonkeyPatch,
    part: str,
    large: bool,
) -> None:
    """The names, stat data and racy files' bytes the full check reads: a damaged one
    fails the check and the rebuild's own check alike, so the cache is rewritten and the
    next call finds it current."""
    config = sampled if large else UNLIMITED
    write_six(layout, write_lesson)
    assert len(rules(layout, config)) == 6
    reader = index_file.Reader(str(cache(layout)))
    assert index_cache.Meta.read(reader).racy  # the large store's check is the full one
    piece = reader.part(part, "value")[1]
    assert piece is not None  # a piece of its own, not kept in the header
    flip_piece(layout, piece)
    rebuilds = count_rebuilds(monkeypatch)
    assert len(rules(layout, config)) == 6  # finds the damage
    assert rebuilds
    index_file.Reader(str(cache(layout))).value(part)  # rewritten: its CRC holds
    del rebuilds[:]
    assert len(rules(layout, config)) == 6
    assert rebuilds == []


def test_a_file_that_is_no_lesson_costs_one_rewrite_not_a_full_check_per_call(
    layout: Layout, write_lesson: WriteLesson, sampled: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that is no lesson (an editor's swap file) changes the folder's stat, which
    a large store's check reads: the full check then finds every lesson current. The
    cache is rewritten once with the new folder stat, reading no lesson file, and the
    calls after it take the fast path again."""
    write_six(layout, write_lesson)
    time.sleep(0.05)  # every file and the folder older than the build's clock: no racy
    assert len(rules(layout, sampled)) == 6
    (layout.lessons_dir / "notes.txt").write_text("not a lesson\n")
    rebuilds = count_rebuilds(monkeypatch)
    read = count_reads(monkeypatch)
    assert len(rules(layout, sampled)) == 6
    assert rebuilds == [True]
    assert read == []
    for _ in range(4):
        assert len(rules(layout, sampled)) == 6
    assert rebuilds == [True]
