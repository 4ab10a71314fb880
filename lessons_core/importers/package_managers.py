"""Package managers a rule swaps one for another: "Always use `uv` instead of `pip`",
"Use pnpm, not npm", "Ensure pnpm is used (not npm/yarn)".

The mistake is made where the other one adds a dependency: the lesson fires on ``pip
install``, ``npm install``, ``yarn add``; never on every use of the program, which the
breadth judgement refuses (a bare ``npm`` fires on every script the agent runs).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lessons_core.importers.normative import Part, Role

# How each package manager adds a dependency.
ADDS = {
    "pip": "pip install",
    "pip3": "pip3 install",
    "npm": "npm install",
    "yarn": "yarn add",
    "bun": "bun add",
    "pnpm": "pnpm add",
    "uv": "uv add",
    "poetry": "poetry add",
    "pdm": "pdm add",
}
# A name as a word: "npm/yarn" is two; `.yarn/` and `pip-tools` are none.
_NAME = re.compile(r"(?<![\w.-])(" + "|".join(sorted(ADDS, key=len, reverse=True)) + r")(?![\w.-])")
# An aside that forbids: "(not npm/yarn)".
_NOT_ASIDE = re.compile(r"^\W*not\b", re.I)


def swapped_for(parts: Sequence[Part]) -> tuple[str, ...]:
    """The commands with which the package managers ``parts`` (a rule's ``stance``)
    forbids in favour of one it asks for add a dependency; () when it swaps none."""
    asked: set[str] = set()
    forbidden: set[str] = set()
    aside_forbids = False
    for part in parts:
        names = set(_NAME.findall(part.text.replace("`", "")))
        if part.role is Role.POINTS:
            aside_forbids = aside_forbids or bool(_NOT_ASIDE.match(part.text))
            if aside_forbids:
                forbidden |= names
        else:
            aside_forbids = False
            (forbidden if part.role is Role.FORBIDS else asked).update(names)
    if not asked:
        return ()
    return tuple(ADDS[name] for name in sorted(forbidden - asked))
