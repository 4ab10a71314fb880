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

Most rules hold nothing to defuse: ``neutralise`` recognises them with str methods alone
and sends only the rest through ``lessons_core.inert``'s regular expressions, so showing a
plain rule costs a hook no import of ``re`` or ``unicodedata``.

Tokens are estimated as characters / 4, rounded up: near enough for English and code, and
the cap only exists to keep recalls short.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs a hook ~8 ms: lessons_core.records
if TYPE_CHECKING:
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


def estimate_tokens(text: str) -> int:
    return (len(text) + 3) // 4


# Role names that, followed by a colon, read like a chat turn (see lessons_core.inert).
_ROLES = ("system", "assistant", "user", "human", "developer")


def neutralise(text: str, limit: int = MAX_RULE_CHARS) -> str:
    """``text`` as one inert line (see the module docstring)."""
    if _plain(text) and len(text) <= limit:
        return text
    from lessons_core.inert import neutralise as full

    return full(text, limit)


def _plain(text: str) -> bool:
    """Whether ``neutralise`` leaves ``text`` as it is: printable, single-spaced, and free
    of every character a marker needs. Checked with str methods, so the common rule costs
    no import of ``re``; anything doubtful takes the full path."""
    if not text.isprintable() or "  " in text or text != text.strip(" "):
        return False
    if "<" in text or "[" in text or "```" in text or "~~~" in text:
        return False
    if '"' in text and ("{" in text or "}" in text):
        return False
    if ":" in text:
        lowered = text.lower()
        return not any(role in lowered for role in _ROLES)
    return True


def why(hit: Hit) -> str:
    """The short label saying why a rule appeared."""
    if hit.via == "prompt":
        return "prompt terms: " + neutralise(", ".join(hit.terms), MAX_LABEL_CHARS)
    return f"{hit.via}: {neutralise(hit.trigger, MAX_LABEL_CHARS)}"


def hit_line(hit: Hit) -> str:
    # Rule and label are each inert; joined, '<x' ending one and '>' in the other could
    # still make a tag, hence the second pass over the whole line.
    line = f"- {hit.lesson_id}: {neutralise(hit.rule)} ({why(hit)})"
    if "<" not in line:
        return line
    from lessons_core.inert import inert_tags

    return inert_tags(line)


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
