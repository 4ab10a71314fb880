"""A scripted stand-in for an OpenAI-compatible chat completions API on 127.0.0.1.

Clients that speak it (Copilot CLI with ``COPILOT_PROVIDER_BASE_URL``, Qwen Code with
``OPENAI_BASE_URL``) post to ``/v1/chat/completions``; every such request is recorded
(``fake_server``). A scenario's
tool calls are issued in turn; a call whose result came back as a ``lessons`` gate denial
is issued again, the way a model applies the rule and retries.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from lessons_core.delivery.deliver import GATE_PREFIX
from lessons_core.feedback.stop_capture import REQUEST_MARK
from tests.e2e.fake_server import EMPTY, SCENARIO, Recorder, Reply, ToolCall, texts

CALL_PREFIX = "call_"
# A compaction request ends with a user message asking for a summary (Copilot CLI's, Qwen
# Code's). The summary the model writes carries the scenario's progress, since the tool
# results it replaces no longer show it; Qwen Code takes only a <state_snapshot>.
COMPACT_MARKS = ("history is being compacted", "summarizes a conversation when its context")
_CARRIED = re.compile(r"CALLS-DONE:([\w,-]+)")
# A tool call and the first line of its result in a conversation told as text.
_RENDERED = re.compile(r"^\[Assistant tool call\]: .*\n\[Tool result\]: (.*)$", re.M)
SUMMARY_TEXT = "Summary: the session ran the scripted steps."


def text_of(message: dict[str, Any]) -> str:
    """A message's text, whether its content is a string or a list of parts."""
    return "\n".join(texts(message.get("content")))


def messages_of(request: dict[str, Any]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = request["messages"]
    return messages


def request_text(request: dict[str, Any]) -> str:
    """Every message's text in a recorded request, as the model reads it (not JSON)."""
    return "\n".join(text_of(m) for m in messages_of(request))


def first_with(requests: list[dict[str, Any]], text: str) -> int:
    """The index of the first recorded request holding ``text``."""
    return next(i for i, r in enumerate(requests) if text in request_text(r))


def assert_refused_once_then_ran(fake: Recorder, rule: str) -> None:
    """The command gate's promise, from what the model received for a scenario making a
    covered command twice (``fake.probe``: whether the command ran): ``rule`` reached the
    model as the refused call's result before the command ran, the retry ran, and the
    second call was neither refused nor shown the rule again."""
    first = first_with(fake.requests, rule)
    assert fake.observed[first] is False  # the model read the rule before anything ran
    assert tool_results(fake.requests[first])[-1].startswith(GATE_PREFIX)
    assert fake.observed[-1] is True  # the retried call ran
    results = tool_results(fake.requests[-1])
    assert [r.startswith(GATE_PREFIX) for r in results] == [True, False, False]
    assert request_text(fake.requests[-1]).count(rule) == 1


def tool_results(request: dict[str, Any]) -> list[str]:
    """The texts of the tool results in a recorded request, oldest first."""
    return [text_of(m) for m in messages_of(request) if m.get("role") == "tool"]


def newest_scenario(messages: list[dict[str, Any]]) -> str | None:
    """The scenario named in the newest user message that names one, or in a summary this
    fake wrote (OpenCode and Kilo replay it as the assistant's message after compacting)."""
    for message in reversed(messages):
        text = text_of(message)
        summary = message.get("role") == "assistant" and "<state_snapshot>" in text
        found = SCENARIO.search(text) if message.get("role") == "user" or summary else None
        if found:
            return found.group(1)
    return None


def stop_request(messages: list[dict[str, Any]]) -> str | None:
    """A stop hook's request to capture in the newest user message, not answered yet."""
    answered = f"{CALL_PREFIX}stop_"
    if any(str(m.get("tool_call_id", "")).startswith(answered) for m in messages):
        return None
    users = [m for m in messages if m.get("role") == "user"]
    text = text_of(users[-1]) if users else ""
    return text if REQUEST_MARK in text else None


def is_compaction(messages: list[dict[str, Any]]) -> bool:
    return bool(messages) and any(mark in text_of(messages[-1]) for mark in COMPACT_MARKS)


def completed_calls(messages: list[dict[str, Any]], scenario: str) -> set[str]:
    """Ids of ``scenario``'s calls that ran (their ids name it): those whose results are in
    the conversation and were not a gate denial, and those a compaction summary carried."""
    prefix = f"{CALL_PREFIX}{scenario}_"
    done = {
        call
        for message in messages
        for found in _CARRIED.finditer(text_of(message))
        for call in found.group(1).split(",")
        if call.startswith(prefix)
    }
    # OpenCode and Kilo hand the conversation to summarise as text, without call ids.
    rendered = _RENDERED.findall(text_of(messages[-1])) if messages else []
    done.update(
        f"{prefix}told{i}" for i, result in enumerate(rendered) if GATE_PREFIX not in result
    )
    done.update(
        str(m.get("tool_call_id"))
        for m in messages
        if m.get("role") == "tool"
        and str(m.get("tool_call_id", "")).startswith(prefix)
        and GATE_PREFIX not in text_of(m)
    )
    return done


@dataclass
class FakeModel(Recorder):
    """``POST /v1/chat/completions``, streaming or not; other paths get ``{}``.

    ``full_at`` maps a scenario to the step whose reply reports a prompt of
    ``full_prompt_tokens``: clients decide to compact from the usage the model reports,
    so that step starts a compaction (Copilot CLI with ``MAX_PROMPT_TOKENS`` as its limit).
    """

    full_at: dict[str, int] = field(default_factory=dict)
    full_prompt_tokens: int = 29_000
    # How the model acts on a stop hook's request to capture (a follow-up user message):
    # given its text, the call it makes, once.
    answer_stop: Callable[[str], ToolCall] | None = None

    def reply(self, body: dict[str, Any], index: int) -> tuple[dict[str, Any], int]:
        """The next assistant message (text, or one tool call) and its prompt tokens."""
        messages = body.get("messages", [])
        request = stop_request(messages)
        if request is not None and self.answer_stop is not None and body.get("tools"):
            answer = self.answer_stop(request)
            stop_call: dict[str, Any] = {"id": f"{CALL_PREFIX}stop_{index:04d}", "type": "function"}
            stop_call["function"] = {"name": answer.name, "arguments": json.dumps(answer.input)}
            return {"role": "assistant", "content": None, "tool_calls": [stop_call]}, PROMPT_TOKENS
        scenario = newest_scenario(messages)
        calls = completed_calls(messages, scenario or "")
        done = len(calls)
        if is_compaction(messages) or not body.get("tools"):
            carried = f" SCENARIO:{scenario} CALLS-DONE:{','.join(sorted(calls))}"
            summary = (
                f"<state_snapshot>{SUMMARY_TEXT}{carried if scenario else ''}</state_snapshot>"
            )
            return {"role": "assistant", "content": summary}, PROMPT_TOKENS
        if not self.scenarios.get(scenario or ""):
            return {"role": "assistant", "content": SUMMARY_TEXT}, PROMPT_TOKENS
        step = self.next_call(scenario, done)
        if step is None:
            return {"role": "assistant", "content": "All steps are done."}, PROMPT_TOKENS
        call = {
            "id": f"{CALL_PREFIX}{scenario}_{done}_{index:04d}",
            "type": "function",
            "function": {"name": step.name, "arguments": json.dumps(step.input)},
        }
        full = self.full_at.get(scenario or "") == done
        tokens = self.full_prompt_tokens if full else PROMPT_TOKENS
        return {"role": "assistant", "content": None, "tool_calls": [call]}, tokens

    def respond(self, path: str, body: dict[str, Any]) -> Reply:
        if not path.endswith("/chat/completions"):
            return EMPTY
        message, tokens = self.reply(body, self.record(body))
        model = str(body.get("model", "fake"))
        usage = {"prompt_tokens": tokens, "completion_tokens": 5, "total_tokens": tokens + 5}
        if body.get("stream"):
            return Reply(b"".join(stream_chunks(message, model, usage)), "text/event-stream")
        completion = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": _finish(message)}],
            "usage": usage,
        }
        return Reply(json.dumps(completion).encode())


PROMPT_TOKENS = 10
MAX_PROMPT_TOKENS = 30_000


def _data(payload: dict[str, Any]) -> bytes:
    """One server-sent event of chat completions: a ``data:`` line, no event name."""
    return f"data: {json.dumps(payload)}\n\n".encode()


def _finish(message: dict[str, Any]) -> str:
    return "tool_calls" if message.get("tool_calls") else "stop"


def stream_chunks(message: dict[str, Any], model: str, usage: dict[str, int]) -> Iterator[bytes]:
    """The ``chat.completion.chunk`` events for one assistant message, then ``[DONE]``."""

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _data(
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [choice],
                **extra,
            }
        )

    yield chunk({"role": "assistant", "content": ""})
    if message.get("content"):
        yield chunk({"content": message["content"]})
    for index, call in enumerate(message.get("tool_calls") or []):
        yield chunk({"tool_calls": [{"index": index, **call}]})
    yield chunk({}, _finish(message), usage=usage)
    yield b"data: [DONE]\n\n"


__all__ = ["FakeModel", "ToolCall"]
