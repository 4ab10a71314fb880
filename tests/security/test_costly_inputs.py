"""What one input can cost a hook is bounded: a lesson file of megabytes, a rule or
rationale over its limit, a prompt of megabytes, a hook input of more. Each runs the
real hook process and holds it to the hook's time budget and to a memory bound, or
runs recall in-process under ``within``; an index build killed half-way leaves its
progress for the next one."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from lessons_cli.harnesses import MAX_PAYLOAD_BYTES
from lessons_cli.mcp_tools import call_tool
from lessons_core.fsutil import MAX_STORE_FILE_BYTES
from lessons_core.index import cache
from lessons_core.matching.thresholds import MAX_STORED_RATIONALE_CHARS, MAX_STORED_RULE_CHARS
from lessons_core.recall.types import MAX_PROMPT_CHARS
from lessons_core.store.layout import HOOK_LOG, Layout
from lessons_core.validate.runner import validate
from tests.hooks.conftest import payload, write_lesson
from tests.lesson_graphs import lesson_data
from tests.security.conftest import HOOK_TIMEOUT, within

H = "claude-code"
EDIT_RULE = "Keep src/a.py import-safe."
PROMPT_RULE = "Regenerate the frobnicator tables after editing the schema."
# A hook process that reads what it should stays well under this (about 30 MiB for a
# silent one; the index build imports numpy); one that tokenised the 50 MB input took
# 374 MB (a rationale) and 5.4 GB (a prompt).
MEMORY_BOUND_KIB = 200 * 1024


# Runs the hook as its own child and reports the hook's peak memory: a lean parent, since
# Linux carries a parent's peak RSS into its children (the test process is far larger).
_MEASURED = (
    "import os, sys\n"
    "pid = os.posix_spawn(sys.executable, [sys.executable, *sys.argv[1:]], os.environ)\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "sys.stderr.write(f'{usage.ru_maxrss}\\n')\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def _hook(data: dict[str, Any] | bytes, cwd: Path) -> tuple[dict[str, Any] | None, float, int]:
    """The real hook process's answer, its wall time and its peak memory (KiB)."""
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, "-m", "lessons_cli", "hook", H],
        input=raw,
        capture_output=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    took = time.monotonic() - start
    assert done.returncode == 0, done.stderr.decode()
    peak = int(done.stderr.decode().split()[-1])
    return (json.loads(done.stdout) if done.stdout.strip() else None), took, peak


def _edit(root: Path) -> dict[str, Any]:
    data = payload(H, "pre_tool_use_write", root, session_id="s-edit")
    data["tool_input"] = {"file_path": str(root / "src" / "a.py"), "content": ""}
    return data


def _shown(answer: dict[str, Any]) -> str:
    """The rules the hook showed: a change no read prepared is refused with them."""
    out = answer["hookSpecificOutput"]
    return str(out.get("additionalContext") or out["permissionDecisionReason"])


def _raw_lesson(layout: Layout, lesson_id: str, **fields: Any) -> Path:
    data = lesson_data(lesson_id, "Mind the generated code.", files=("src/a.py",))
    data.update(fields)
    path = layout.lesson_path(lesson_id)
    path.write_text(json.dumps(data))
    return path


def _codes(layout: Layout) -> dict[str, str]:
    """Each validate finding's code, by the file it names."""
    return {Path(f.file).name: f.code for f in validate(layout).findings}


def test_a_50_mb_rationale_costs_the_hook_nothing_and_is_reported(project: Layout) -> None:
    """One committed lesson with a 50 MB rationale: the first hook (it builds the index)
    serves the other lessons within its budget and memory, skips that one, logs it once;
    validate reports it."""
    write_lesson(project, "code-a-import-safe", EDIT_RULE, files=("src/a.py",))
    huge = _raw_lesson(project, "code-a-huge", rationale="why " * 12_500_000)
    assert huge.stat().st_size > 50_000_000
    got, took, peak = _hook(_edit(project.root), project.root)
    assert got is not None
    context = _shown(got)
    assert EDIT_RULE in context
    assert "Mind the generated code." not in context
    assert took < HOOK_TIMEOUT, took
    assert peak < MEMORY_BOUND_KIB, peak
    log = Path(project.local(HOOK_LOG)).read_text().splitlines()
    assert len(log) == 1, log
    assert f"code-a-huge.json: is {huge.stat().st_size:,} bytes, over 65,536" in log[0]
    assert _codes(project)["code-a-huge.json"] == "L005"


def test_a_rule_or_rationale_over_its_limit_skips_only_its_lesson(project: Layout) -> None:
    """Fields over their limits (docs/format.md) in files under the size cap: those
    lessons are skipped and reported, the others served."""
    write_lesson(project, "code-a-import-safe", EDIT_RULE, files=("src/a.py",))
    _raw_lesson(project, "code-a-long-rule", rule="Mind it. " * (MAX_STORED_RULE_CHARS // 9 + 1))
    _raw_lesson(project, "code-a-long-why", rationale="w" * (MAX_STORED_RATIONALE_CHARS + 1))
    _raw_lesson(project, "code-a-fine-why", rationale="w" * MAX_STORED_RATIONALE_CHARS)
    got, _took, _peak = _hook(_edit(project.root), project.root)
    assert got is not None
    context = _shown(got)
    assert EDIT_RULE in context
    # The three share one rule text; only the one within its limits is served.
    assert context.count("Mind the generated code.") == 1
    assert "Mind it." not in context
    codes = _codes(project)
    assert codes["code-a-long-rule.json"] == codes["code-a-long-why.json"] == "L005"
    assert "code-a-fine-why.json" not in codes
    found = {f.message for f in validate(project).findings}
    assert any(f"the limit is {MAX_STORED_RULE_CHARS:,}" in m for m in found), found


def test_a_killed_first_build_leaves_its_progress(
    project: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build stopped half-way (a harness's timeout kills the hook) has saved what it
    read: the next build reads only the rest."""
    for number in range(40):
        write_lesson(
            project, f"code-a-rule-{number}", f"Rule number {number} holds.", files=("src/a.py",)
        )
    monkeypatch.setattr(cache, "CHECKPOINT_SECONDS", 0.0)  # save after every file read
    read = cache._read
    reads: list[str] = []

    def killed_after_25(folder: str, name: str, signature: tuple[int, ...]) -> Any:
        if len(reads) == 25:
            raise KeyboardInterrupt  # what a kill leaves: nothing after this runs
        reads.append(name)
        return read(folder, name, signature)

    monkeypatch.setattr(cache, "_read", killed_after_25)
    with pytest.raises(KeyboardInterrupt):
        cache.cached_index(project)
    first = list(reads)
    reads.clear()

    def counted(folder: str, name: str, signature: tuple[int, ...]) -> Any:
        reads.append(name)
        return read(folder, name, signature)

    monkeypatch.setattr(cache, "_read", counted)
    index, broken = cache.cached_index(project)
    assert broken == []
    assert len(index.ids) == 40
    assert len(reads) == 40 - 24, reads  # the 24 saved are not read again
    assert not set(reads) & set(first[:24])


def test_a_lesson_file_over_the_cap_is_not_read(project: Layout) -> None:
    """Judged by fstat before reading: a file one byte over the cap is skipped, one at
    the cap is read."""
    path = _raw_lesson(project, "code-a-padded")
    text = path.read_text()
    path.write_text(text[:-1] + " " * (MAX_STORE_FILE_BYTES - len(text)) + "}")
    assert path.stat().st_size == MAX_STORE_FILE_BYTES
    assert cache.rebuilt_index(project)[1] == []
    path.write_text(text[:-1] + " " * (MAX_STORE_FILE_BYTES - len(text) + 1) + "}")
    (problem,) = cache.rebuilt_index(project)[1]
    assert "over 65,536" in problem.problem


def _prompt_lesson(project: Layout) -> None:
    write_lesson(project, "schema-frobnicator", PROMPT_RULE, keywords=("frobnicator tables",))


def test_a_huge_prompt_is_read_up_to_its_bound(project: Layout) -> None:
    """A 15 MB prompt (under the input bound): the hook reads its first
    MAX_PROMPT_CHARS characters, in bounded time and memory, and matches a keyword there;
    one past the bound is not read."""
    _prompt_lesson(project)
    filler = "log line with nothing in it " * (15_000_000 // 28)
    data = payload(H, "user_prompt_submit", project.root, prompt="the frobnicator tables " + filler)
    got, took, peak = _hook(data, project.root)
    assert got is not None
    assert PROMPT_RULE in got["hookSpecificOutput"]["additionalContext"]
    assert took < HOOK_TIMEOUT, took
    assert peak < MEMORY_BOUND_KIB, peak
    late = payload(
        H,
        "user_prompt_submit",
        project.root,
        session_id="s-late",
        prompt="x" * MAX_PROMPT_CHARS + " the frobnicator tables",
    )
    got, _took, _peak = _hook(late, project.root)
    assert got is None


def test_a_hook_input_over_its_bound_is_refused_and_logged(project: Layout) -> None:
    """A 50 MB prompt exceeds the hook's input bound: silent at once, one log line."""
    _prompt_lesson(project)
    data = payload(H, "user_prompt_submit", project.root, prompt="frobnicator tables " * 2_700_000)
    raw = json.dumps(data).encode()
    assert len(raw) > MAX_PAYLOAD_BYTES
    got, took, peak = _hook(raw, project.root)
    assert got is None
    assert took < HOOK_TIMEOUT, took
    assert peak < MEMORY_BOUND_KIB, peak
    (line,) = Path(project.local(HOOK_LOG)).read_text().splitlines()
    assert f"hook input is over {MAX_PAYLOAD_BYTES:,} bytes" in line


def test_a_50_mb_prompt_through_mcp_costs_a_bounded_query(project: Layout) -> None:
    _prompt_lesson(project)
    prompt = "the frobnicator tables " + "x " * 25_000_000
    reply = within(2.0, lambda: call_tool("lessons_query", {"prompt": prompt}, project.root))
    assert not reply.is_error
    assert PROMPT_RULE in reply.text
