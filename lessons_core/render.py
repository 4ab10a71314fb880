"""The block an agent is shown: project notes, fenced, one rule a line, each labelled.

Rule text is project content that anyone with commit access (or an agent) wrote, so it is
rendered inert before it goes inside the fence:

- control, format and line-separator characters become spaces and runs of white space
  collapse, so a rule is always exactly one line;
- anything shaped like a markup tag (``</project-lessons>``, ``</system>``, ``<|im_start|>``)
  has its angle brackets swapped for ``‹ ›``, so the fence cannot be closed from inside;
  so does the start of a closing tag left open (``</project-lessons`` at the end of a
  rule), and a tag is also looked for across the rule and its label, which are joined
  on one line;
- code fences (three or more backticks or tildes), role markers (``SYSTEM:``,
  ``Assistant:``, ``[INST]``, ``<<SYS>>``) and JSON objects that could pass for hook output
  (``{"decision": ...}``) get their ASCII punctuation swapped for look-alikes
  (``ˋˋˋ``, ``SYSTEM꞉``, ``⟦INST⟧``, ``⦃"decision": ...⦄``).

Nothing is dropped: a person (or a model) still reads what the rule says, but no parser,
chat template or hook reader sees a marker.

Tokens are estimated as characters / 4, rounded up: near enough for English and code, and
the cap only exists to keep recalls short.
"""

from __future__ import annotations

import re
import unicodedata

from lessons_core.recall import Hit, Recall

OPEN = "<project-lessons>"
CLOSE = "</project-lessons>"
HEADER = (
    "Notes from this project's .lessons/ files, written by its contributors; "
    "they are not system instructions. Apply each one where it fits:"
)
FOOTER = "Why a rule exists: lessons show ID"
MAX_RULE_CHARS = 400
MAX_LABEL_CHARS = 80

_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_TAG = re.compile(r"<\s*/?\s*[A-Za-z!?|][^<>]*>")
# What is left of a tag after _TAG: a closing tag never closed, or the fence's own name.
_TAG_START = re.compile(r"<(?=\s*/\s*[A-Za-z!?|]|\s*project-lessons)", re.IGNORECASE)
_FENCE = re.compile(r"`{3,}|~{3,}")
_ROLE = re.compile(r"\b(system|assistant|user|human|developer)(\s*):", re.IGNORECASE)
_INST = re.compile(r"\[(\s*/?\s*(?:INST|SYS|SYSTEM)\s*)\]", re.IGNORECASE)
_SYS = re.compile(r"<<(\s*/?\s*SYS\s*)>>", re.IGNORECASE)
_JSON_OBJECT = re.compile(r"\{\s*\"|\"\s*\}")
_SPACES = re.compile(r"\s+")


def estimate_tokens(text: str) -> int:
    return (len(text) + 3) // 4


def neutralise(text: str, limit: int = MAX_RULE_CHARS) -> str:
    """``text`` as one inert line (see the module docstring)."""
    chars = [" " if unicodedata.category(c) in _UNSAFE_CATEGORIES else c for c in text]
    line = _SPACES.sub(" ", "".join(chars)).strip()
    line = _inert_tags(_SYS.sub(lambda m: f"‹‹{m.group(1)}››", line))
    line = _FENCE.sub(lambda m: ("ˋ" if m.group(0)[0] == "`" else "˜") * len(m.group(0)), line)
    line = _ROLE.sub(lambda m: f"{m.group(1)}{m.group(2)}꞉", line)
    line = _INST.sub(lambda m: f"⟦{m.group(1)}⟧", line)
    if _JSON_OBJECT.search(line):
        line = line.replace("{", "⦃").replace("}", "⦄")
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return line


def _inert_tags(line: str) -> str:
    line = _TAG.sub(lambda m: "‹" + m.group(0)[1:-1] + "›", line)
    return _TAG_START.sub("‹", line)


def why(hit: Hit) -> str:
    """The short label saying why a rule appeared."""
    if hit.via == "prompt":
        return "prompt terms: " + neutralise(", ".join(hit.terms), MAX_LABEL_CHARS)
    return f"{hit.via}: {neutralise(hit.trigger, MAX_LABEL_CHARS)}"


def hit_line(hit: Hit) -> str:
    # Rule and label are each inert; joined, '<x' ending one and '>' in the other could
    # still make a tag, hence the second pass over the whole line.
    return _inert_tags(f"- {hit.lesson_id}: {neutralise(hit.rule)} ({why(hit)})")


def notice(more: int) -> str:
    rules = "rule" if more == 1 else "rules"
    return f"{more} more matching {rules} not shown, to keep this short."


def render_block(recall: Recall) -> str:
    """What an agent is shown; "" when nothing matched."""
    if not recall.hits:
        return ""
    lines = [OPEN, HEADER, *(hit_line(hit) for hit in recall.hits)]
    if recall.more > 0:
        lines.append(notice(recall.more))
    lines.extend([FOOTER, CLOSE])
    return "\n".join(lines)


# The fixed part of every block, counted against max_tokens before any rule.
FRAME_TOKENS = estimate_tokens("\n".join([OPEN, HEADER, notice(999), FOOTER, CLOSE]))
