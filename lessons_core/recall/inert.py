"""Rule text made inert: the full treatment, with regular expressions.

``lessons_core.recall.render`` explains what is done and why. It calls this module only for text
that could need it (a ``<``, a colon beside a role name, a code fence, a character that
is not plain printable text...): most rules need nothing.
"""

from __future__ import annotations

import re
import unicodedata

_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_TAG = re.compile(r"<\s*/?\s*[A-Za-z!?|][^<>]*>")
# What is left of a tag after _TAG: a closing tag never closed, or the fence's own name.
_TAG_START = re.compile(r"<(?=\s*/\s*[A-Za-z!?|]|\s*lessons)", re.IGNORECASE)
_FENCE = re.compile(r"`{3,}|~{3,}")
_ROLE = re.compile(r"\b(system|assistant|user|human|developer)(\s*):", re.IGNORECASE)
_INST = re.compile(r"\[(\s*/?\s*(?:INST|SYS|SYSTEM)\s*)\]", re.IGNORECASE)
# The bracketed fence (``render.bracket_fence``), opening or closing, closed or left open
# (at the end of the text); ``[lessons-system-…]`` (an id, say) is no fence.
_BRACKET_FENCE = re.compile(r"\[(?=\s*/?\s*lessons\s*(?:\]|$))", re.IGNORECASE)
_SYS = re.compile(r"<<(\s*/?\s*SYS\s*)>>", re.IGNORECASE)
_JSON_OBJECT = re.compile(r"\{\s*\"|\"\s*\}")
_SPACES = re.compile(r"\s+")


def neutralise(text: str, limit: int) -> str:
    """``text`` as one inert line (see the module docstring)."""
    chars = [" " if unicodedata.category(c) in _UNSAFE_CATEGORIES else c for c in text]
    line = _SPACES.sub(" ", "".join(chars)).strip()
    line = inert_tags(_SYS.sub(lambda m: f"‹‹{m.group(1)}››", line))
    line = _FENCE.sub(lambda m: ("ˋ" if m.group(0)[0] == "`" else "˜") * len(m.group(0)), line)
    line = _ROLE.sub(lambda m: f"{m.group(1)}{m.group(2)}꞉", line)
    line = _INST.sub(lambda m: f"⟦{m.group(1)}⟧", line)
    line = _BRACKET_FENCE.sub("⟦", line)
    if _JSON_OBJECT.search(line):
        line = line.replace("{", "⦃").replace("}", "⦄")
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return line


def inert_tags(line: str) -> str:
    line = _TAG.sub(lambda m: "‹" + m.group(0)[1:-1] + "›", line)
    return _TAG_START.sub("‹", line)
