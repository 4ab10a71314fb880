"""The benchmark's one table: medians, ratios to ``python -c pass``, peak memory, targets."""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import dataclass

from bench.graphs import Graph
from bench.hook_runs import DELIVERING, DIRECT, NO_VARIABLE
from bench.installs import Install
from bench.replay import Replay
from bench.timing import Measure

# Ratio targets by (graph role, call): role 0 is the corpus, 1 the smaller synthetic graph,
# 2 the larger one.
TARGETS = {
    **{(0, kind): 3.0 for kind in ("edit", "command", "prompt")},
    **{(1, kind): 4.0 for kind in ("edit", "command")},
    **{(2, kind): 4.0 for kind in ("edit", "command", "prompt")},
}
# The corpus with a pack and a personal store of 500 lessons each (bench.scopes_run).
SCOPED = "scoped"
SCOPED_TARGETS = {"edit, own process": 3.0, "command, own process": 3.0}
# Rows that must cost no more than the graph's delivering calls.
QUIET = ("silent", "read")


@dataclass(frozen=True)
class Line:
    install: str
    graph: Graph
    kind: str
    measure: Measure
    bare: Measure | None = None  # the same install's python -c pass, measured alongside

    @property
    def ratio(self) -> float | None:
        return self.measure.median_ms / self.bare.median_ms if self.bare else None


def print_table(lines: list[Line], replayed: Replay, installs: list[Install]) -> None:
    """Print the machine, then one row per graph and call, both installs side by side."""
    print(machine())
    names = [install.name for install in installs]
    graphs = list(dict.fromkeys(line.graph.name for line in lines if line.bare))
    by_key = {(line.install, line.graph.name, line.kind): line for line in lines}
    bare: dict[str, Measure] = {line.install: line.bare for line in lines if line.bare}
    header = f"{'graph':<9}{'lessons':>8}  {'call':<29}"
    header += "".join(f"{name + ' ms':>14}{'x':>7}" for name in names)
    print(header + f"{'peak MiB':>10}  target")
    first = f"{'':<9}{'':>8}  {'python -c pass':<29}"
    for name in names:
        base = bare.get(name)
        first += f"{base.median_ms:>14.1f}{1:>7.2f}" if base else f"{'-':>14}{'-':>7}"
    print(first)
    kinds = list(dict.fromkeys(line.kind for line in lines))
    for graph_name in [*graphs, "validate"]:
        for kind in kinds:
            found = [by_key.get((name, graph_name, kind)) for name in names]
            present = [line for line in found if line]
            if not present:
                continue
            line = present[0]
            text = f"{graph_name:<9}{line.graph.lessons:>8}  {kind:<29}"
            for entry in found:
                if entry is None:
                    text += f"{'-':>14}{'-':>7}"
                else:
                    ratio = entry.ratio or entry.measure.median_ms / bare[entry.install].median_ms
                    text += f"{entry.measure.median_ms:>14.1f}{ratio:>7.2f}"
            peak = max(entry.measure.peak_mib for entry in present)
            print(text + f"{peak:>10.1f}  {verdict(present, graphs, by_key)}")
    print(launcher_summary(lines, names))
    print(replay_summary(replayed))


def launcher_summary(lines: list[Line], installs: list[str]) -> str:
    """What the committed launcher adds to a hook: the silent call through each form of
    the command, less the same call as the launcher execs it, per graph and install."""
    by_key = {(line.install, line.graph.name, line.kind): line for line in lines}
    parts = []
    for graph in dict.fromkeys(line.graph.name for line in lines if line.kind == DIRECT):
        for name in installs:
            direct = by_key.get((name, graph, DIRECT))
            forms = [by_key.get((name, graph, k)) for k in ("silent: nothing applies", NO_VARIABLE)]
            if direct and all(forms):
                extra = [
                    f"{f.measure.median_ms - direct.measure.median_ms:+.1f}" for f in forms if f
                ]
                parts.append(f"{graph} {name} {extra[0]} / {extra[1]} ms")
    return (
        "launcher (.lessons/run) on the silent call, with a project variable / without: "
        + ", ".join(parts)
    )


def verdict(lines: list[Line], graphs: list[str], by_key: dict[tuple[str, str, str], Line]) -> str:
    """Each install's verdict on the row's target, or on being the cheapest call."""
    first = lines[0]
    if first.graph.name not in graphs:
        return ""
    role = min(graphs.index(first.graph.name), 2)
    target = TARGETS.get((role, first.kind))
    if first.graph.name == SCOPED:
        target = SCOPED_TARGETS.get(first.kind)
    found = []
    for line in lines:
        if line.kind.startswith(QUIET):
            others = [
                by_key[key].measure.median_ms
                for key in ((line.install, line.graph.name, k) for k in DELIVERING)
                if key in by_key
            ]
            met = all(line.measure.median_ms <= other for other in others)
        elif target is not None and line.ratio is not None:
            met = line.ratio <= target
        else:
            continue
        found.append(f"{line.install} {'yes' if met else 'NO'}")
    if not found:
        return ""
    label = "cheapest" if first.kind.startswith(QUIET) else f"<= {target}x"
    return f"{label}: {', '.join(found)}"


DAYS_NAME = "20 days, 12 lessons"  # bench.days
# The same days against the 576 lessons of the corpus: what a session a day costs where
# many rules are about the project's everyday commands (bench.days).
CORPUS_DAYS_NAME = "20 days, the corpus's lessons"


def replay_summary(replayed: Replay, name: str = "corpus") -> str:
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(replayed.kinds.items()))
    return (
        f"token replay ({name}): {replayed.calls} tool calls ({kinds}), "
        f"{replayed.actions} edits and commands, {replayed.delivering} delivering "
        f"({replayed.delivering_share:.0%} of calls), "
        f"{replayed.refusals_per_session:.1f} refusals a session ({replayed.sessions}); "
        f"{replayed.per_action:.1f} tokens per edit or command (goal <= 25), "
        f"{replayed.per_delivery:.0f} per delivering call (goal <= 150), "
        f"{replayed.per_call:.1f} per call; "
        f"{replayed.call_tokens + replayed.other_tokens} tokens in all "
        f"({replayed.read_tokens} on reads, "
        f"{replayed.other_tokens} on prompts and session starts) vs "
        f"{replayed.preload_tokens} to preload every active rule: "
        f"{replayed.ratio_to_preload:.2f}x; rule lines by trigger: "
        + ", ".join(f"{kind} {n}" for kind, n in sorted(replayed.by_trigger.items()))
        + f"; frames, gate text and notices {replayed.frame_tokens}"
        + f"; {session_starts(replayed)}"
    )


def session_starts(replayed: Replay) -> str:
    """What the session starts carried, by part."""
    starts = max(replayed.starts, 1)
    return (
        f"{replayed.starts} session starts: note {replayed.note_tokens // starts}, "
        f"always-on {replayed.always_tokens // starts}, "
        f"topics line {replayed.topic_tokens // starts} tokens each"
    )


def always_summary(replayed: Replay, marked: int) -> str:
    """The replay of the corpus with ``marked`` lessons always-on and the topics line on."""
    return (
        f"token replay (corpus, {marked} oldest lessons always-on, topics line on): "
        f"{session_starts(replayed)}; {replayed.per_call:.1f} tokens per call on average, "
        f"{replayed.call_tokens + replayed.other_tokens} in all"
    )


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(
                (line.split(":", 1)[1].strip() for line in info if line.startswith("model name")),
                cpu,
            )
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"machine: {cpu}, {cores} cores, Python {sys.version.split()[0]}, {platform.system()}"
