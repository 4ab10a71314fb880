"""A scripted stand-in for the Gemini API (``generativelanguage``), served on 127.0.0.1.

The real Gemini CLI talks to it through ``GOOGLE_GEMINI_BASE_URL``. ``route`` answers
``models/<model>:streamGenerateContent?alt=sse`` (the main loop: server-sent events, one
``data:`` line a chunk), ``:generateContent`` (the client's side requests, such as a
compression summary) and ``:countTokens``, with the step ``fake_model.FakeModel`` chooses.

Function-call ids carry the scenario and step; the client prefixes each with the tool's
name (``run_shell_command__<scenario>_<step>_<n>``) and sends it back with the
``functionResponse``, whose ``response`` holds ``output`` or ``error``.
"""

from __future__ import annotations

import json
from typing import Any

from tests.e2e.fake_model import (
    EMPTY,
    Conversation,
    FakeModel,
    Response,
    Step,
    ToolResult,
    newest_scenario,
)

# The prompt size every answer reports: far below any compression threshold, so the client
# compresses only when a test's settings make it.
PROMPT_TOKENS = 10


def _parts(content: dict[str, Any]) -> list[dict[str, Any]]:
    parts = content.get("parts")
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def user_texts(body: dict[str, Any]) -> list[str]:
    """The text parts of the request's user turns, oldest first."""
    return [
        str(part["text"])
        for content in body.get("contents", [])
        if content.get("role") == "user"
        for part in _parts(content)
        if "text" in part
    ]


def function_responses(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every ``functionResponse`` part in the request, oldest first."""
    return [
        part["functionResponse"]
        for content in body.get("contents", [])
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


def read_contents(body: dict[str, Any]) -> Conversation:
    """The scenario, tool results and tools of a ``generateContent`` request."""
    results = tuple(
        ToolResult(
            str(response.get("id", "")).split("__", 1)[-1],
            response_text(response),
            isinstance(response.get("response"), dict) and "error" in response["response"],
        )
        for response in function_responses(body)
    )
    return Conversation(newest_scenario(user_texts(body)), results, bool(body.get("tools")))


def _candidate_response(step: Step, model: str) -> dict[str, Any]:
    if isinstance(step, str):
        parts: list[dict[str, Any]] = [{"text": step}]
    else:
        parts = [{"functionCall": {"id": step.id, "name": step.name, "args": step.input}}]
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": PROMPT_TOKENS,
            "candidatesTokenCount": 5,
            "totalTokenCount": PROMPT_TOKENS + 5,
        },
        "modelVersion": model,
    }


def route(fake: FakeModel, path: str, query: str, body: dict[str, Any]) -> Response:
    """The Gemini API's ``models/<model>:<method>`` endpoints; anything else ``{}``."""
    model, _, method = path.rpartition("/")[2].partition(":")
    if method == "countTokens":
        return Response(200, json.dumps({"totalTokens": PROMPT_TOKENS}).encode())
    if method not in ("streamGenerateContent", "generateContent"):
        return EMPTY
    answer = _candidate_response(fake.answer(body, read_contents), model)
    if method == "generateContent":
        return Response(200, json.dumps(answer).encode())
    return Response(200, f"data: {json.dumps(answer)}\r\n\r\n".encode(), "text/event-stream")
