"""What ``lessons mcp`` costs an agent: the tokens of its tools list, which a client puts
before the model, and how long the server takes to start and to answer a query.

A real server process on the corpus graph, spoken to over stdio in JSON-RPC lines: the
``tools`` of its ``tools/list`` answer, serialised compactly, in characters / 4 (the
estimate ``lessons_core.recall.render.estimate_tokens`` uses everywhere).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import time
from dataclasses import dataclass
from typing import Any

from bench.graphs import Graph
from bench.installs import Install
from lessons_core.recall.render import estimate_tokens

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


@dataclass(frozen=True)
class McpCost:
    tools: int
    list_tokens: int
    start_ms: float  # median, process start to the initialize answer
    query_ms: float  # median lessons_query round trip on the graph's edit file
    query_tokens: int


def _exchange(process: subprocess.Popen[bytes], message: dict[str, Any]) -> dict[str, Any]:
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()
    while True:
        answer: dict[str, Any] = json.loads(process.stdout.readline())
        if answer.get("id") == message["id"]:
            return answer


def _one_run(install: Install, graph: Graph) -> tuple[float, float, list[Any], str]:
    started = time.perf_counter()
    process = subprocess.Popen(
        [install.lessons, "mcp"],
        cwd=graph.root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        _exchange(process, INITIALIZE)
        ready = time.perf_counter()
        assert process.stdin is not None
        process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        tools = _exchange(process, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        call = {"name": "lessons_query", "arguments": {"file": graph.edit}}
        asked = time.perf_counter()
        reply = _exchange(
            process, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}
        )
        answered = time.perf_counter()
        process.stdin.close()
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    text = reply["result"]["content"][0]["text"]
    return (ready - started) * 1000, (answered - asked) * 1000, tools["result"]["tools"], text


def mcp_cost(install: Install, graph: Graph, runs: int) -> McpCost:
    results = [_one_run(install, graph) for _ in range(runs)]
    tools, text = results[0][2], results[0][3]
    listed = json.dumps(tools, separators=(",", ":"))
    return McpCost(
        tools=len(tools),
        list_tokens=estimate_tokens(listed),
        start_ms=statistics.median(r[0] for r in results),
        query_ms=statistics.median(r[1] for r in results),
        query_tokens=estimate_tokens(text),
    )


def mcp_summary(cost: McpCost) -> str:
    return (
        f"lessons mcp (corpus): tools list {cost.tools} tools, {cost.list_tokens} tokens; "
        f"server start to initialize answer {cost.start_ms:.0f} ms; lessons_query on the "
        f"edit file {cost.query_ms:.0f} ms, {cost.query_tokens} tokens"
    )
