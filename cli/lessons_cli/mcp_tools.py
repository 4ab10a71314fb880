"""The tools ``lessons mcp`` offers an agent, as plain functions over the library.

Each tool takes the JSON arguments a client sent and answers with a ``ToolReply``: the
text the model reads, the same facts as a JSON object for programs, and whether the call
failed. The Model Context Protocol itself (the SDK, stdio, JSON-RPC) is
``lessons_cli.mcp_server``'s; nothing here imports it, so these are tested directly.

Every refusal is a reply, never an exception: a capture guard's ``CaptureRefused`` keeps
its code, problem and fix; any other ``LessonsError`` (no store, no such lesson) says what
is wrong and how to fix it; a bad argument names the argument and what it must be.

Descriptions are short on purpose: a client puts the whole tools list in front of the
model on every request (``python -m bench`` prints what it costs).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lessons_cli.output import describe, topic_lines
from lessons_core.authoring.capture import add_lesson
from lessons_core.authoring.guards import CaptureDraft
from lessons_core.containment import is_within
from lessons_core.delivery.deliver import session_key
from lessons_core.delivery.session_recall import recall_once
from lessons_core.errors import CaptureRefused, LessonsError
from lessons_core.index.cache import load_index
from lessons_core.project_commands import everyday_commands
from lessons_core.recall.prompt_files import named_files
from lessons_core.recall.prompt_terms import project_names
from lessons_core.recall.rank import recall
from lessons_core.recall.render import estimate_tokens, render_block
from lessons_core.recall.types import Recall, RecallRequest
from lessons_core.store.config import Config, read_config
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout, find_layout, layout_for_files
from lessons_core.store.model import Status, Triggers
from lessons_core.store.project import set_status
from lessons_core.store.scoped import find_scoped
from lessons_core.store.topics import load_topics
from lessons_core.telemetry import log as telemetry

# Where a client tells its MCP servers which session they serve: the same id its hooks
# receive, so the hook and the tool share "already shown". Claude Code sets
# CLAUDE_CODE_SESSION_ID (its hooks' session_id) for every stdio server it starts,
# Copilot CLI COPILOT_AGENT_SESSION_ID (its hooks' sessionId), Qwen Code
# QWEN_CODE_SESSION_ID (its hooks' session_id: it sets it in its own environment, which
# its servers inherit).
SESSION_VARIABLES = ("CLAUDE_CODE_SESSION_ID", "COPILOT_AGENT_SESSION_ID", "QWEN_CODE_SESSION_ID")

_TEXT = {"type": "string"}
_TEXTS = {"type": "array", "items": {"type": "string"}}
_ID = {"id": _TEXT}

# name -> (description, properties, required): the input schemas, kept minimal.
SPECS: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "lessons_query": (
        "Project rules from past mistakes that apply to a file, a shell command or a task. "
        "Rules already shown in this session are left out.",
        {"file": _TEXT, "command": _TEXT, "prompt": _TEXT, "session": _TEXT},
        (),
    ),
    "lessons_show": ("One lesson in full: rule, rationale, evidence, triggers.", _ID, ("id",)),
    "lessons_add": (
        "Save a one-sentence rule learnt from a mistake, with at least one trigger "
        "(files: repo globs; commands: RE2 patterns; keywords), or always: every task.",
        {
            "rule": _TEXT,
            "topic": _TEXT,
            "files": _TEXTS,
            "commands": _TEXTS,
            "keywords": _TEXTS,
            "rationale": _TEXT,
            "evidence": _TEXTS,
            "gate": {"type": "boolean"},
            "always": {"type": "boolean"},
            "force": {"type": "boolean"},
        },
        ("rule", "topic"),
    ),
    "lessons_topics": ("Topics with their number of active lessons.", {}, ()),
    "lessons_deprecate": ("Stop recalling a lesson that is wrong or obsolete.", _ID, ("id",)),
}


def tool_list() -> list[dict[str, Any]]:
    """The tools as ``tools/list`` describes them (name, description, inputSchema)."""
    listed = []
    for name, (description, properties, required) in SPECS.items():
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = list(required)
        listed.append({"name": name, "description": description, "inputSchema": schema})
    return listed


@dataclass(frozen=True)
class ToolReply:
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    is_error: bool = False


class BadArgument(LessonsError):
    """An argument missing or of the wrong JSON type."""


def call_tool(name: str, arguments: dict[str, Any] | None, cwd: Path | None = None) -> ToolReply:
    """Run tool ``name``; every problem the caller can fix comes back as an error reply."""
    tool = _TOOLS.get(name)
    if tool is None:
        return _error("unknown-tool", f"no tool named '{name}'", f"use one of: {', '.join(SPECS)}")
    args = arguments or {}
    allowed = set(SPECS[name][1])
    unknown = sorted(set(args) - allowed)
    try:
        if unknown:
            fix = f"use only {', '.join(sorted(allowed))}" if allowed else "pass no arguments"
            raise BadArgument(f"unknown argument '{unknown[0]}'; {fix}")
        return tool(args, cwd or Path.cwd())
    except CaptureRefused as err:
        return _error(err.code, err.problem, _as_arguments(err.fix))
    except BadArgument as err:
        return _error("bad-argument", str(err), "call the tool again with the arguments fixed")
    except LessonsError as err:
        problem, _, fix = str(err).partition("; ")
        return _error("error", problem, fix or "see the problem above")


# The capture guards word their fixes for `lessons add`; a tool caller passes arguments.
_FLAGS = (
    (re.compile(r"--trigger-file(?: GLOB)?"), "'files'"),
    (re.compile(r"--trigger-cmd(?: PATTERN)?"), "'commands'"),
    (re.compile(r"--trigger-keyword(?: PHRASE)?"), "'keywords'"),
    (re.compile(r"pass --force\b"), "pass 'force': true"),
    (re.compile(r"or --always\b"), "or 'always': true"),
    (re.compile(r"--topic NAME, e\.g\. --topic (\S+)"), r"'topic', e.g. \1"),
)


def _as_arguments(fix: str) -> str:
    for flag, argument in _FLAGS:
        fix = flag.sub(argument, fix)
    return fix


def _error(code: str, problem: str, fix: str) -> ToolReply:
    return ToolReply(
        f"error ({code}): {problem}\nfix: {fix}",
        {"error": {"code": code, "problem": problem, "fix": fix}},
        is_error=True,
    )


def _text(args: dict[str, Any], key: str, required: bool = False) -> str | None:
    value = args.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise BadArgument(f"'{key}' must be a string")
    return value


def _texts(args: dict[str, Any], key: str) -> tuple[str, ...]:
    value = args.get(key, [])
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadArgument(f"'{key}' must be a list of strings")
    return tuple(value)


def _flag(args: dict[str, Any], key: str) -> bool:
    value = args.get(key, False)
    if not isinstance(value, bool):
        raise BadArgument(f"'{key}' must be true or false")
    return value


def session_of(args: dict[str, Any]) -> str | None:
    """The session the call belongs to: the ``session`` argument, else the one the client
    announced to this server process (``SESSION_VARIABLES``), else none."""
    given = _text(args, "session")
    if given:
        return given
    return next((os.environ[v] for v in SESSION_VARIABLES if os.environ.get(v)), None)


def query(args: dict[str, Any], cwd: Path) -> ToolReply:
    file, command, prompt = (_text(args, key) for key in ("file", "command", "prompt"))
    if not (file or command or prompt):
        raise BadArgument("give at least one of 'file', 'command' or 'prompt'")
    layout, relative = _served_layout(file, cwd)
    named = named_files(layout, prompt) if prompt else ()
    project = project_names(layout) if prompt else ()
    request = RecallRequest(
        files=relative,
        command=command or None,
        prompt=prompt or None,
        named=named,
        project=project,
    )
    config, problems = read_config(layout.config_path)  # defaults stand in for bad keys
    index, broken = load_index(layout)
    session = session_of(args)
    if session:
        found = recall_once(layout, request, session_key(session), config=config, index=index)
    else:
        found = recall(layout, request, config=config, index=index)
    text = render_block(found)
    _log_query(layout, config, request, found, text, session)
    data: dict[str, Any] = {
        "lessons": [hit.to_dict() for hit in found.hits],
        "more": found.more,
        "session": session,
    }
    skipped = [f"{layout.config_path}: {problem}" for _key, problem, _kind in problems]
    skipped += [str(err) for err in broken]
    if skipped:
        data["skipped"] = skipped
    return ToolReply(text or "No new lesson applies.", data)


def _served_layout(file: str | None, cwd: Path) -> tuple[Layout, tuple[str, ...]]:
    """The store a query reads, and ``file`` relative to its root: the server's own store
    (the one at or above ``cwd``) or a nested one inside its repo. A file of another repo
    is refused, since its lessons and its session files are that repo's."""
    served = find_layout(cwd)
    layout, relative = layout_for_files((file,) if file else (), cwd)
    if layout != served and not is_within(layout.top, served.top):
        raise LessonsError(
            f"'{file}' is not inside {served.root}, the repo this server serves; pass a "
            "file of that repo (relative to it, or absolute)"
        )
    return layout, relative


def _log_query(
    layout: Layout,
    config: Config,
    request: RecallRequest,
    found: Recall,
    text: str,
    session: str | None,
) -> None:
    """One telemetry record of a query, as a hook logs a recall: what matched, what was
    served and its tokens, under the call's files, else its command, else ``prompt``."""
    if not config.telemetry:
        return
    if request.files:
        key, about = " ".join(request.files), telemetry.ABOUT_FILES
    elif request.command:
        key, about = request.command, telemetry.ABOUT_COMMAND
    else:
        key, about = telemetry.PROMPT_KEY, telemetry.ABOUT_PROMPT
    telemetry.record_recall(
        layout,
        config,
        event=telemetry.MCP_QUERY_EVENT,
        key=key,
        candidates=found.matched,
        delivered=[hit.lesson_id for hit in found.hits],
        tokens=estimate_tokens(text) if text else 0,
        session=session or "",
        about=about,
    )


def show(args: dict[str, Any], cwd: Path) -> ToolReply:
    # personal:ID and PACK:ID too, as a block names a cut rule of those scopes
    _store, lesson = find_scoped(_text(args, "id", required=True) or "", start=cwd)
    return ToolReply(describe(lesson), lesson.to_dict())


def add(args: dict[str, Any], cwd: Path) -> ToolReply:
    draft = CaptureDraft(
        rule=_text(args, "rule", required=True) or "",
        topics=(_text(args, "topic", required=True) or "",),
        triggers=Triggers(
            files=_texts(args, "files"),
            commands=_texts(args, "commands"),
            keywords=_texts(args, "keywords"),
        ),
        rationale=_text(args, "rationale"),
        evidence=_texts(args, "evidence"),
        gate=_flag(args, "gate"),
        always=_flag(args, "always"),
    )
    layout = find_layout(cwd)
    project = everyday_commands(layout.root) if draft.triggers.commands else None
    result = add_lesson(layout, draft, force=_flag(args, "force"), project=project)
    lesson = result.lesson
    said = f"saved {lesson.id}" if result.created else f"updated {lesson.id} (same rule)"
    lines = [said, *(f"warning: {w}" for w in result.warnings)]
    data = {"lesson": lesson.to_dict(), "created": result.created, "warnings": result.warnings}
    return ToolReply("\n".join(lines), data)


def topics(args: dict[str, Any], cwd: Path) -> ToolReply:
    layout = find_layout(cwd)
    counts = load_graph(layout).topic_counts()
    summaries = {name: topic.summary for name, topic in load_topics(layout).items()}
    return ToolReply(topic_lines(counts, summaries) or "No lessons yet.", {"topics": counts})


def deprecate(args: dict[str, Any], cwd: Path) -> ToolReply:
    lesson_id = _text(args, "id", required=True) or ""
    lesson = set_status(find_layout(cwd), lesson_id, Status.DEPRECATED)
    return ToolReply(f"deprecated {lesson.id}", {"id": lesson.id, "status": lesson.status.value})


_TOOLS: dict[str, Callable[[dict[str, Any], Path], ToolReply]] = {
    "lessons_query": query,
    "lessons_show": show,
    "lessons_add": add,
    "lessons_topics": topics,
    "lessons_deprecate": deprecate,
}
