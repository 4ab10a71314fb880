"""Kilo Code CLI, a fork of OpenCode: the same plugin and hooks (``opencode``), loaded
from ``.kilo/plugin/`` and answered as ``lessons hook kilo``.

What differs from OpenCode (Kilo 7.7.7, tests/e2e/test_kilo.py): its folders (``.kilo``,
``~/.config/kilo``) and the plugin package it installs into them at start
(``@kilocode/plugin``, ``plugin_files``); its default agent is ``code``. Payloads
recorded from the real client are kept in tests/fixtures/kilo/.
"""

from __future__ import annotations

from lessons_cli.harnesses.opencode import (
    ANSWERS,
    EVENTS,
    TOOLS,
    action_of,
    project_dir,
    wiring,
)

PLUGIN_DIR = ".kilo/plugin"
WIRING = wiring("kilo", PLUGIN_DIR)

__all__ = ["ANSWERS", "EVENTS", "TOOLS", "WIRING", "action_of", "project_dir"]
