"""A scripted stand-in for the Gemini API (``generativelanguage``), served by ``fake_server``.

The real Gemini CLI reaches it through ``GOOGLE_GEMINI_BASE_URL`` and asks
``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` for its agent loop (server-
sent events, one ``data:`` line a ``GenerateContentResponse``), ``:generateContent`` for
side requests such as a compression summary, and ``:countTokens``. Each request carries
the whole conversation as ``contents``, so the reply is derived from it:

- a request that offers no tools (a compression summary), or whose user turns name no
  scenario, gets a short text;
- a tool call goes out as a ``functionCall`` whose ``id`` names the scenario and the
  step; the client sends it back with the ``functionResponse`` (``response`` holds
  ``output``, or ``error`` for a refused or failed call), and a result refused by a
  ``lessons`` gate does not count as a step done;
- ``answer_stop``, when set, is how the model acts on a stop hook's request to capture
  (an ``AfterAgent`` block, which the client sends as a new user turn): given its text,
  the call it makes, once;
- every reply reports a small prompt (``PROMPT_TOKENS``), far below any compression
  threshold: the client compresses only when a test's settings make it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from lessons_core.delivery.deliver import GATE_PREFIX
from lessons_core.feedback.stop_capture import REQUEST_MARK
from tests.e2e.fake_server import EMPTY, SCENARIO, Recorder, Reply, ToolCall

PROMPT_TOKENS = 10


class FakeGemini(Recorder):
    """``models/<model>:streamGenerateContent``, ``:generateContent``, ``:countTokens``."""

    answer_stop: Callable[[str], ToolCall] | None = None

    def respond(self, path: str, body: dict[str, Any]) -> Reply:
        model, _, method = path.rpartition("/")[2].partition(":")
        if method == "countTokens":
            return Reply(json.dumps({"totalTokens": PROMPT_TOKENS}).encode())
        if method not in ("streamGenerateContent", "generateContent"):
            return EMPTY
        index = self.record(body)
        part = self._next_part(body, index)
        answer = {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}],
            "usageMetadata": {
                "promptTokenCount": PROMPT_TOKENS,
                "candidatesTokenCount": 5,
                "totalTokenCount": PROMPT_TOKENS + 5,
            },
            "modelVersion": model,
        }
        if method == "generateContent":
            return Reply(json.dumps(answer).encode())
        return Reply(f"data: {json.dumps(answer)}\r\n\r\n".encode(), "text/event-stream")

    def _next_part(self, body: dict[str, Any], index: int) -> dict[str, Any]:
        request = stop_request(body)
        if request is not None and self.answer_stop is not None and body.get("tools"):
            answer = self.answer_stop(request)
            return {
                "functionCall": {
                    "id": f"stop_{index:04d}",
                    "name": answer.name,
                    "args": answer.input,
                }
            }
        scenario = _newest_scenario(body)
        if not self.scenarios.get(scenario or "") or not body.get("tools"):
            return {"text": "Summary: the session ran the scripted steps."}
        done = _completed_steps(body, scenario or "")
        call = self.next_call(scenario, done)
        if call is None:
            return {"text": "All steps are done."}
        call_id = f"{scenario}_{done}_{index:04d}"
        return {"functionCall": {"id": call_id, "name": call.name, "args": call.input}}


def _parts(content: dict[str, Any]) -> list[dict[str, Any]]:
    parts = content.get("parts")
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def _newest_scenario(body: dict[str, Any]) -> str | None:
    """The name in the last ``SCENARIO:`` of the user turns' text parts."""
    found = None
    for content in body.get("contents", []):
        if content.get("role") != "user":
            continue
        for part in _parts(content):
            for match in SCENARIO.finditer(str(part.get("text", ""))):
                found = match.group(1)
    return found


def stop_request(body: dict[str, Any]) -> str | None:
    """The text of a stop hook's request to capture in the newest user turn, while the
    model has not answered it with a call (``stop_...``) yet."""
    if any(
        str(r.get("id", "")).split("__", 1)[-1].startswith("stop_")
        for r in function_responses(body)
    ):
        return None
    users = [c for c in body.get("contents", []) if c.get("role") == "user"]
    texts = [str(p.get("text", "")) for p in _parts(users[-1])] if users else []
    found = [t for t in texts if REQUEST_MARK in t]
    return found[-1] if found else None


def function_responses(request: dict[str, Any]) -> list[dict[str, Any]]:
    """Every ``functionResponse`` part of a request, oldest first."""
    return [
        part["functionResponse"]
        for content in request.get("contents", [])
        for part in _parts(content)
        if isinstance(part.get("functionResponse"), dict)
    ]


def response_text(response: dict[str, Any]) -> str:
    """What a ``functionResponse`` told the model: its error, else its output."""
    inner = response.get("response")
    if not isinstance(inner, dict):
        return ""
    value = inner.get("error", inner.get("output", ""))
    return value if isinstance(value, str) else json.dumps(value)


def refused(response: dict[str, Any]) -> bool:
    """Whether a ``lessons`` gate refused the call (so the model makes it again)."""
    inner = response.get("response")
    return isinstance(inner, dict) and "error" in inner and GATE_PREFIX in response_text(response)


def _completed_steps(body: dict[str, Any], scenario: str) -> int:
    """Results of this scenario's calls (their ids name it) that no gate refused. The
    client may prefix an id with the tool's name and ``__``."""
    return sum(
        1
        for response in function_responses(body)
        if str(response.get("id", "")).split("__", 1)[-1].startswith(f"{scenario}_")
        and not refused(response)
    )
