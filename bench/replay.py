"""Token replay: a deterministic agent session through the real hook code, counting every
token that reaches the model.

The session works on the corpus repository's real files: it starts, gets a prompt,
searches, edits files of a few areas (with the odd jump elsewhere) and runs the commands
such work runs (tests, lint, type checks, git, search), gets two more prompts, and is
compacted once. As agents work, every edit is preceded by reads: one to three files of the
same folder (two on average), then the file itself. Each event goes through
``lessons_cli.hook_runner.run_hook`` exactly as ``lessons hook claude-code`` runs it, reads
included, so the replay measures whatever the hook does with a read. A call the hook
refuses (a gate) is made again, as the agent would, and counts as a call too.

Tokens are estimated as characters / 4 (``lessons_core.recall.render.estimate_tokens``), for the
text the model receives: ``additionalContext`` or the refusal's reason. The headline figure
is everything the hooks added divided by the edits and commands made (retries and reads not
counted), so silent reads cannot dilute it. The reference is preloading every active rule
once, the way a rules file in the system prompt does.
"""

from __future__ import annotations

import io
import json
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from bench.graphs import Graph
from lessons_cli.hook_runner import run_hook
from lessons_core.delivery.always import TOPICS_PREFIX
from lessons_core.delivery.deliver import session_note
from lessons_core.index.cache import load_index
from lessons_core.matching.pure_reads import is_pure_read_command
from lessons_core.recall.render import CLOSE, HEADER, OPEN, estimate_tokens, neutralise
from lessons_core.store.layout import Layout

PROMPTS = (
    "add a --dry-run flag to the generate command and cover it with tests",
    "the lessons recall misses rules for windows paths; fix the glob matching",
    "bump the release workflow and publish the new version after the tests pass",
)
COMMANDS = (
    "git status",
    "git diff {path}",
    "pnpm test",
    "pnpm vitest run {test}",
    "pnpm lint",
    "pnpm typecheck",
    "rg -n 'TODO' {dir}",
    "cat {path}",
    "ls {dir}",
    "pnpm build",
    "git add -A && git commit -m 'wip: {area}'",
    "node -e \"console.log(require('./package.json').version)\"",
    "git log --oneline -5",
    "pnpm vitest run {test} --coverage",
    "git push origin HEAD",
)
CALLS = 360
PROMPT_AT = (0, 130, 260)
COMPACT_AT = 200


@dataclass(frozen=True)
class Replay:
    calls: int  # tool calls, retries of refused calls included
    delivering: int  # tool calls whose answer carried rules
    call_tokens: int  # tokens delivered on tool calls
    other_tokens: int  # tokens delivered on prompts and session starts
    preload_tokens: int  # every active rule, listed once
    kinds: dict[str, int]  # tool calls by kind
    by_trigger: dict[str, int]  # tokens of rule lines by what matched (file, command, ...)
    # Of other_tokens, what the session starts (startup, compaction) carried: the note,
    # the always-on lessons' block and the topics line, and how many starts there were.
    starts: int = 0
    note_tokens: int = 0
    always_tokens: int = 0
    topic_tokens: int = 0
    # Edits and commands made, retries not counted: what the headline figure divides by.
    actions: int = 0
    refusals: int = 0  # calls refused (a gate), each made again
    sessions: int = 1
    read_tokens: int = 0  # of call_tokens, what reads carried

    @property
    def per_action(self) -> float:
        """Everything the hooks added, reads and prompts included, per edit or command."""
        return (self.call_tokens + self.other_tokens) / self.actions if self.actions else 0.0

    @property
    def delivering_share(self) -> float:
        return self.delivering / self.calls if self.calls else 0.0

    @property
    def refusals_per_session(self) -> float:
        return self.refusals / self.sessions if self.sessions else 0.0

    @property
    def per_call(self) -> float:
        return (self.call_tokens + self.other_tokens) / self.calls

    @property
    def per_delivery(self) -> float:
        return self.call_tokens / self.delivering if self.delivering else 0.0

    @property
    def frame_tokens(self) -> int:
        """Tokens of tool-call answers that are not rule lines: fences, headers, the gate
        sentence, notices."""
        return self.call_tokens - sum(self.by_trigger.values())

    @property
    def ratio_to_preload(self) -> float:
        return (self.call_tokens + self.other_tokens) / self.preload_tokens


EDIT_TOOLS = ("Edit", "Write")
SHELL_TOOL = "Bash"


def events(paths: tuple[str, ...], calls: int = CALLS, seed: int = 5) -> list[dict[str, Any]]:
    """The session's hook events in order (payload fields other than session and cwd):
    about ``calls`` tool calls before retries, reads included."""
    rng = random.Random(seed)
    areas = Counter("/".join(p.split("/")[:2]) for p in paths if p.count("/") >= 2)
    common = [area for area, _n in areas.most_common(12)]
    tests = [p for p in paths if ".test." in p] or list(paths)
    folders: dict[str, list[str]] = {}
    for p in paths:
        folders.setdefault(_folder(p), []).append(p)
    out: list[dict[str, Any]] = [{"hook_event_name": "SessionStart", "source": "startup"}]
    working: list[str] = []
    made = 0  # tool calls so far
    prompts = iter(PROMPT_AT)
    next_prompt = next(prompts)
    compacted = False
    while made < calls:
        if made >= next_prompt:
            focus = rng.sample(common, 2)
            working = [p for p in paths if p.startswith(tuple(f"{a}/" for a in focus))]
            out.append({"hook_event_name": "UserPromptSubmit", "prompt": PROMPTS[len(out) % 3]})
            next_prompt = next(prompts, calls + 1)
        if made >= COMPACT_AT and not compacted:
            out.append({"hook_event_name": "PreCompact", "trigger": "auto"})
            out.append({"hook_event_name": "SessionStart", "source": "compact"})
            compacted = True
        path = rng.choice(working) if rng.random() < 0.85 else rng.choice(paths)
        roll = rng.random()
        if roll < 0.15:
            step = [_tool("Grep", pattern=rng.choice(("TODO", "export", "throw")), path=path)]
        elif roll < 0.55:
            tool = "Edit" if rng.random() < 0.8 else "Write"
            step = edit_with_reads(rng, path, folders.get(_folder(path), [path]), tool)
        else:
            folder = _folder(path)
            command = rng.choice(COMMANDS).format(
                path=path, dir=folder, test=rng.choice(tests), area=folder.split("/")[-1]
            )
            step = [_tool(SHELL_TOOL, command=command)]
        out += step
        made += len(step)
    return out


def edit_with_reads(
    rng: random.Random, path: str, nearby: list[str], tool: str = "Edit", new: bool = False
) -> list[dict[str, Any]]:
    """An edit of ``path`` as agents make it: one to three reads of files of the same
    folder (two on average), a read of the file itself unless it is ``new``, then the
    edit."""
    others = [p for p in nearby if p != path] or [path]
    reads = [rng.choice(others) for _ in range(rng.choice((1, 2, 3)))]
    return [
        *(_tool("Read", file_path=p) for p in (reads if new else [*reads, path])),
        _tool(tool, file_path=path, old_string="a", new_string="b"),
    ]


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else "."


def _tool(name: str, **tool_input: str) -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "tool_name": name, "tool_input": tool_input}


def replay(graph: Graph, calls: int = CALLS) -> Replay:
    """Run the session against ``graph`` through the hook and count what it delivered."""
    return run_sessions(graph, events(graph.paths, calls))


def run_sessions(
    graph: Graph,
    session_events: list[dict[str, Any]],
    record: Callable[[dict[str, Any], str], None] | None = None,
) -> Replay:
    """Run ``session_events`` against ``graph`` through the hook and count what it
    delivered. An event's ``session_id``, if it has one, names its session (default
    "replay"). ``record``, if given, gets each payload with the text the model received
    for it (``bench.breakdown`` adds them up by rule and by call)."""
    root = str(graph.root)
    note = session_note(Layout(graph.root))
    delivered: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    by_trigger: Counter[str] = Counter()
    names = set()
    for number, event in enumerate(session_events):
        payload: dict[str, Any] = {"session_id": "replay", "transcript_path": "/x", "cwd": root}
        payload.update(event)
        names.add(payload["session_id"])
        tool_input: dict[str, str] = payload.get("tool_input", {})
        if "file_path" in tool_input:
            tool_input["file_path"] = f"{root}/{tool_input['file_path']}"
        payload["tool_use_id"] = f"toolu_{number}"
        tool = payload.get("tool_name")
        if tool in (*EDIT_TOOLS, SHELL_TOOL):
            delivered["actions"] += 1
        attempts = 0
        while True:
            text, refused = _answer(run_hook, payload)
            if record is not None:
                record(payload, text)
            if tool:
                attempts += 1
                kinds[str(tool)] += 1
                delivered["calls"] += 1
                delivered["refusals"] += refused
                if text:
                    delivered["delivering"] += 1
                    delivered["call_tokens"] += estimate_tokens(text)
                    if tool == "Read":
                        delivered["read_tokens"] += estimate_tokens(text)
                    by_trigger.update(_rule_tokens(text, _runs_a_command(tool, tool_input)))
            else:
                delivered["other_tokens"] += estimate_tokens(text)
                if payload["hook_event_name"] == "SessionStart":
                    delivered["starts"] += 1
                    delivered.update(_start_tokens(text, note))
            if not refused or attempts > 1:
                break  # a refused call is made once more, as the agent would
    return Replay(
        calls=delivered["calls"],
        delivering=delivered["delivering"],
        call_tokens=delivered["call_tokens"],
        other_tokens=delivered["other_tokens"],
        preload_tokens=preload_tokens(Layout(graph.root)),
        kinds=dict(kinds),
        by_trigger=dict(by_trigger),
        starts=delivered["starts"],
        note_tokens=delivered["note_tokens"],
        always_tokens=delivered["always_tokens"],
        topic_tokens=delivered["topic_tokens"],
        actions=delivered["actions"],
        refusals=delivered["refusals"],
        sessions=len(names),
        read_tokens=delivered["read_tokens"],
    )


def combined(parts: list[Replay]) -> Replay:
    """Replays of separate sessions counted as one: every count added up, the preload
    reference too (each session's store preloaded once)."""
    values: dict[str, Any] = {}
    for field in fields(Replay):
        found = [getattr(part, field.name) for part in parts]
        if isinstance(found[0], dict):
            values[field.name] = dict(sum(map(Counter, found), Counter()))
        else:
            values[field.name] = sum(found)
    return Replay(**values)


def _start_tokens(text: str, note: str) -> Counter[str]:
    """A session start's tokens by part: the note, the always-on block without its topics
    line, the topics line (``lessons_core.delivery.always``)."""
    found: Counter[str] = Counter()
    if text.startswith(note):
        found["note_tokens"] = estimate_tokens(note)
        text = text[len(note) :].lstrip("\n")
    lines = text.splitlines()
    topics = next((x for x in lines if x.startswith(TOPICS_PREFIX)), "")
    # "- RULE (always on)", or "… (always on) [ID]" for a rule cut short
    if not any(x.startswith("- ") and ALWAYS_LABEL in x for x in lines):
        found["topic_tokens"] = estimate_tokens(text)
    else:
        found["topic_tokens"] = estimate_tokens(topics + "\n") if topics else 0
        found["always_tokens"] = estimate_tokens(text) - found["topic_tokens"]
    return found


ALWAYS_LABEL = "(always on)"
# "- RULE (why)", a cut rule's ending in its id; a rule about the very file or command
# touched has no label ("- RULE", "- RULE… [ID]").
RULE_LINE = re.compile(
    r"^- .* \((file|command|keyword|prompt terms|named in the prompt|always on)(: .*)?\)"
    r"( \[[^\]]+\])?$"
)


def _runs_a_command(tool: object, tool_input: dict[str, str]) -> bool:
    """Whether the call is a shell command that is not a pure read (``cat FILE`` speaks
    only about its file)."""
    return tool == SHELL_TOOL and not is_pure_read_command(tool_input.get("command", ""))


def _rule_tokens(text: str, command: bool) -> Counter[str]:
    """Tokens of each rule line in a block, by the kind of trigger that matched it; an
    unlabelled line, about the very file or command touched, counts as a command rule in
    the block of a ``command`` (``_runs_a_command``) and as a file rule in any other."""
    found: Counter[str] = Counter()
    for line in text.splitlines():
        if not line.startswith("- "):
            continue
        match = RULE_LINE.match(line)  # "prompt terms" counts as prompt
        kind = match.group(1).split()[0] if match else "command" if command else "file"
        found[kind] += estimate_tokens(line)
    return found


def _answer(run_hook: Any, payload: dict[str, Any]) -> tuple[str, bool]:
    """The text the model receives for ``payload``, and whether the call was refused."""
    out = io.BytesIO()
    run_hook("claude-code", io.BytesIO(json.dumps(payload).encode()), out)
    if not out.getvalue():
        return "", False
    specific = json.loads(out.getvalue())["hookSpecificOutput"]
    if specific.get("permissionDecision") == "deny":
        return str(specific["permissionDecisionReason"]), True
    return str(specific.get("additionalContext", "")), False


def preload_tokens(layout: Layout) -> int:
    """Tokens of every active rule listed once in a block, as a preloaded rules file."""
    index, _broken = load_index(layout)
    lines = [f"- {i}: {neutralise(rule)}" for i, rule in zip(index.ids, index.rules, strict=True)]
    return estimate_tokens("\n".join([OPEN, HEADER, *lines, CLOSE]))
