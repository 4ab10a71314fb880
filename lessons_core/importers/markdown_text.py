"""A rule's Markdown as the plain sentence a lesson holds.

A lesson is one line the agent reads inside a fenced block, where ``**bold**`` and
``[the guide](../../docs/)`` are noise. Cleaning keeps every word and every code span
(the names triggers come from): emphasis markers, link targets, images and HTML tags
go; a reference-style link (``[Agent][pydantic_ai.Agent]``) stays, its target being a
name. A trailing lead-in (``with:``, ``:``) is either completed by the command of the
code block below it or dropped. The rationale a rule carries after a dash (``Do X —
because Y``) is split off, as a nested bullet would be.
"""

from __future__ import annotations

import itertools
import re

_SPAN = re.compile(r"(`+)(.+?)\1")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>|<!--.*?-->")
# Emphasis: a run of * or _ hugging a word on one side (never inside a word's own
# underscores, as in snake_case, nor a lone * standing for multiplication).
_STRONG = re.compile(r"(?<![\w*])(\*\*|__)(?=\S)(.+?)(?<=\S)\1(?![\w*])")
_EM = re.compile(r"(?<![\w*])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")
_LEAD_IN = re.compile(r"\s*(?:,?\s*(?:with|via|using|by running|run|as follows))?\s*:\s*$", re.I)
# A dash between two clauses; a hyphen with a space on each side, as plain text writes
# one, is a dash too.
_RATIONALE = re.compile(r"\s+(?:—|--|–|-)\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*_(\[])")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")
_INSTEAD = re.compile(r"^Instead,\s")
MIN_RULE_WORDS = 3


# A GitHub alert's marker ("> [!NOTE]"): what kind of aside follows, no word of it.
_ALERT = re.compile(r"^\s*\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*", re.I)


def clean(text: str) -> str:
    """``text`` without Markdown syntax; code spans are kept as written."""
    spans: list[str] = []

    def keep(match: re.Match[str]) -> str:
        spans.append(match.group(0))
        return f"\x00{len(spans) - 1}\x00"

    text = _SPAN.sub(keep, text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _AUTOLINK.sub(r"\1", text)
    text = _TAG.sub("", text)
    text = _ALERT.sub("", text)
    for pattern in (_STRONG, _EM, _STRONG):
        text = pattern.sub(r"\2", text)
    text = re.sub(r"\x00(\d+)\x00", lambda match: spans[int(match.group(1))], text)
    text = text.replace("\\*", "*").replace("\\_", "_")
    return " ".join(text.split())


def outside_code(text: str) -> str:
    """``text`` with every code span blanked, for looking at its words only."""
    return _SPAN.sub(lambda match: " " * len(match.group(0)), text)


def is_lead_in(text: str) -> bool:
    """Whether ``text`` ends by introducing what follows it (``..., with:``)."""
    return text.rstrip().endswith(":")


def complete_lead_in(text: str, command: str | None) -> str:
    """``text`` with its trailing lead-in completed by ``command`` (the first line of the
    code block below it) or, without one, cut off."""
    if not is_lead_in(text):
        return text
    head = _LEAD_IN.sub("", text).rstrip(" ,;")
    if command is None:
        return head
    return f"{head}: `{command}`" if "`" not in command else f"{head}: {command}"


def split_rationale(text: str) -> tuple[str, str | None]:
    """(rule, rationale) of ``Do X — because Y``: the words after the first dash that
    stands between two clauses, when what is before it is a rule of its own."""
    # "`a - b`" holds no dash: code spans are masked, with no spaces for the dash to take
    dash = _RATIONALE.search(_SPAN.sub(lambda match: "x" * len(match.group(0)), text))
    if dash and len(outside_code(text[: dash.start()]).split()) >= MIN_RULE_WORDS:
        head = text[: dash.start()].rstrip(" ,;")
        return (head if head.endswith((".", "!", "?")) else head + "."), text[dash.end() :]
    return text, None


def sentences(paragraph: str) -> list[str]:
    """The sentences of a prose paragraph (code spans never split)."""
    blanked = outside_code(paragraph)
    cuts = [
        match.end()
        for match in _SENTENCE_END.finditer(paragraph)
        if blanked[match.start() - 1] in ".!?"  # the end stands outside any code span
        if not blanked[: match.start()].lower().endswith(_ABBREVIATIONS)
    ]
    bounds = [0, *cuts, len(paragraph)]
    found = [paragraph[a:b].strip() for a, b in itertools.pairwise(bounds)]
    joined: list[str] = []
    for sentence in filter(None, found):
        if joined and _INSTEAD.match(sentence) and joined[-1].endswith("."):
            # "Do not use X. Instead, use Y.": the second half of one rule
            joined[-1] = f"{joined[-1][:-1]}; {sentence[0].lower()}{sentence[1:]}"
        else:
            joined.append(sentence)
    return joined
