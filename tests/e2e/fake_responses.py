"""A scripted stand-in for the OpenAI Responses API (served by ``fake_server``).

The real Codex CLI reaches it through a custom model provider (``wire_api = "responses"``)
and streams ``POST /v1/responses``. Each request carries the whole conversation as
``input`` items, so the reply is derived from it:

- a tool call goes out as a ``function_call`` (``exec_command``: arguments as JSON) or,
  for a tool the request declares ``custom`` (``apply_patch``), a ``custom_tool_call``
  whose ``input`` is ``ToolCall.input["input"]``; its ``call_id`` names the scenario and
  the step, so the step count survives whatever Codex keeps of the history;
- Codex compacts through the model too: a request whose last item is its checkpoint
  prompt gets a summary that notes how many steps of the scenario ran
  (``STEPS:name=N``), which the next request counts from;
- a reply reports few tokens used, except the one issuing a step listed in
  ``full_context_after``: it reports a full context window, and Codex compacts before
  sending the next request.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lessons_core.delivery.deliver import GATE_PREFIX
from lessons_core.feedback.stop_capture import REQUEST_MARK
from tests.e2e.fake_server import EMPTY, SCENARIO, Recorder, Reply, ToolCall, sse, texts

# The opening of the prompt Codex sends to have the model summarise (compact) a session.
COMPACT_MARK = "CONTEXT CHECKPOINT COMPACTION"
# What the reply issuing a ``full_context_after`` step says it used: above the
# ``model_auto_compact_token_limit`` that codex_project writes into config.toml.
FULL_CONTEXT_TOKENS = 250_000
_STEPS = re.compile(r"STEPS:([\w-]+)=(\d+)")
# Codex's tool discovery: the model calls it with a query, the client answers with the
# matching deferred tools (its MCP servers' tools among them) for the next request.
TOOL_SEARCH = "tool_search"
TOOL_SEARCH_CALL = "tool_search_call"
# What Codex tells the model about the servers whose tools tool_search can find: in its
# first instructions ("Deferred tool namespaces:") when they started before it, else once
# they have ("Added deferred tool namespaces:"), each as a line "- mcp__NAME: ...".
ANNOUNCED = re.compile(r"[Dd]eferred tool namespaces:\n(?:- .*\n)*?- mcp__\w+:")
MAX_WAITS = 60
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output"})


@dataclass
class FakeResponses(Recorder):
    """``POST /v1/responses``; ``full_context_after`` holds (scenario, step) pairs."""

    full_context_after: set[tuple[str, int]] = field(default_factory=set)
    # How the model acts on a stop hook's request to capture (which Codex sends as a user
    # message): given its text, the call it makes, once.
    answer_stop: Callable[[str], ToolCall] | None = None

    def respond(self, path: str, body: dict[str, Any]) -> Reply:
        if not path.endswith("/responses"):
            return EMPTY
        index = self.record(body)
        items: list[dict[str, Any]] = body.get("input") or []
        scenario = _newest_scenario(items)
        done = _completed_steps(items, scenario or "")
        tokens = 100
        request = stop_request(items)
        if request is not None and self.answer_stop is not None:
            answer = self.answer_stop(request)
            item: dict[str, Any] = {"type": "function_call", "call_id": f"call_stop_{index:04d}"}
            item.update(name=answer.name, arguments=json.dumps(answer.input))
        elif _is_compaction(items):
            item = _message(index, f"Summary: STEPS:{scenario}={done}")
        elif (call := self.next_call(scenario, done)) is None:
            item = _message(index, "All steps are done.")
        else:
            call_id = f"call_{scenario}_{done}_{index:04d}"
            if call.name == TOOL_SEARCH and not _announced(items) and _waited(items) < MAX_WAITS:
                # Codex starts MCP servers in the background and says so when their
                # tools can be found; until then the model does other work.
                wait = {"cmd": "sleep 1"}
                item = {"type": "function_call", "call_id": f"call_wait_{index:04d}"}
                item.update(name="exec_command", arguments=json.dumps(wait))
            elif call.name == TOOL_SEARCH and _offers(body, TOOL_SEARCH):
                item = {"type": TOOL_SEARCH_CALL, "call_id": call_id, "execution": "client"}
                item.update(status="completed")
                item["arguments"] = call.input
            elif _is_custom(body, call.name):
                item = {"type": "custom_tool_call", "call_id": call_id, "name": call.name}
                item["input"] = call.input["input"]
            else:
                # "namespace/name": a tool tool_search returned inside a namespace.
                namespace, _, name = call.name.rpartition("/")
                item = {"type": "function_call", "call_id": call_id, "name": name}
                if namespace:
                    item["namespace"] = namespace
                item["arguments"] = json.dumps(call.input)
            if (scenario, done) in self.full_context_after:
                tokens = FULL_CONTEXT_TOKENS
        return Reply(_stream(f"resp_{index:04d}", item, tokens), "text/event-stream")


def stop_request(items: list[dict[str, Any]]) -> str | None:
    """A stop hook's request to capture in the newest user message, not answered yet."""
    if any(str(item.get("call_id", "")).startswith("call_stop_") for item in items):
        return None
    users = [i for i in items if i.get("type") == "message" and i.get("role") == "user"]
    found = [t for t in texts(users[-1].get("content")) if REQUEST_MARK in t] if users else []
    return found[-1] if found else None


def _user_texts(items: list[dict[str, Any]]) -> list[str]:
    return [
        text
        for item in items
        if item.get("type") == "message" and item.get("role") == "user"
        for text in texts(item.get("content"))
    ]


def _newest_scenario(items: list[dict[str, Any]]) -> str | None:
    for text in reversed(_user_texts(items)):
        found = SCENARIO.search(text)
        if found:
            return found.group(1)
    return None


def _is_compaction(items: list[dict[str, Any]]) -> bool:
    return any(COMPACT_MARK in text for text in _user_texts(items[-1:]))


def _completed_steps(items: list[dict[str, Any]], scenario: str) -> int:
    """Steps of ``scenario`` that ran: the last one whose output was not a gate denial,
    or what a compaction summary noted, whichever is further."""
    done = 0
    for text in _user_texts(items):
        for name, count in _STEPS.findall(text):
            if name == scenario:
                done = max(done, int(count))
    step_of = re.compile(rf"call_{re.escape(scenario)}_(\d+)_")
    for item in items:
        if item.get("type") not in _OUTPUTS:
            continue
        found = step_of.match(str(item.get("call_id", "")))
        if found and GATE_PREFIX not in output_text(item):
            done = max(done, int(found.group(1)) + 1)
    return done


def output_text(item: dict[str, Any]) -> str:
    """The text of a tool output item (a string, or a list of content parts)."""
    return "\n".join(texts(item.get("output")))


def _announced(items: list[dict[str, Any]]) -> bool:
    return any(
        ANNOUNCED.search(text)
        for item in items
        if item.get("type") == "message"
        for text in texts(item.get("content"))
    )


def _waited(items: list[dict[str, Any]]) -> int:
    return sum(1 for item in items if str(item.get("call_id", "")).startswith("call_wait_"))


def _offers(body: dict[str, Any], kind: str) -> bool:
    """Whether the request offers the built-in tool ``kind`` (such as ``tool_search``)."""
    return any(tool.get("type") == kind for tool in body.get("tools") or [])


def _is_custom(body: dict[str, Any], name: str) -> bool:
    return any(
        tool.get("type") == "custom" and tool.get("name") == name
        for tool in body.get("tools") or []
    )


def _message(index: int, text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "assistant",
        "id": f"msg_{index:04d}",
        "content": [{"type": "output_text", "text": text}],
    }


def _stream(response_id: str, item: dict[str, Any], tokens: int) -> bytes:
    """The streaming events of one response holding one output item."""
    usage = {
        "input_tokens": tokens - 5,
        "input_tokens_details": None,
        "output_tokens": 5,
        "output_tokens_details": None,
        "total_tokens": tokens,
    }
    return b"".join(
        (
            sse("response.created", {"type": "response.created", "response": {"id": response_id}}),
            sse("response.output_item.done", {"type": "response.output_item.done", "item": item}),
            sse(
                "response.completed",
                {"type": "response.completed", "response": {"id": response_id, "usage": usage}},
            ),
        )
    )
