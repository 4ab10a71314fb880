"""Fixtures for the reliability and security tests: the hook tests' project and payloads."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tests.hooks.conftest import project

__all__ = ["project", "within"]


def within(seconds: float, work: Callable[[], Any]) -> Any:
    """Run ``work`` and fail the test if it takes longer than ``seconds``; its result."""
    start = time.perf_counter()
    result = work()
    took = time.perf_counter() - start
    assert took < seconds, f"took {took:.2f}s, the budget is {seconds}s"
    return result
