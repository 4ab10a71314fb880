"""Shared pieces of the reliability and security tests: the hook tests' project fixture, a
time budget, and one hypothesis profile (fixed seed, no example database) so a run is
repeatable and leaves nothing behind."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, settings

from tests.hooks.conftest import project

__all__ = ["fuzz_settings", "project", "within"]


def fuzz_settings(examples: int) -> settings:
    """``examples`` derandomised examples, no deadline (``within`` times what matters)."""
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


def within(seconds: float, work: Callable[[], Any]) -> Any:
    """Run ``work`` and fail the test if it takes longer than ``seconds``; its result."""
    start = time.perf_counter()
    result = work()
    took = time.perf_counter() - start
    assert took < seconds, f"took {took:.2f}s, the budget is {seconds}s"
    return result
