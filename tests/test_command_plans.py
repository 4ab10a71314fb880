"""Command matching without ``re`` or RE2 means what it did with them.

A planned pattern (``command_plans``) is checked against RE2 itself on every command
pattern of the real corpus and of this repository's lessons, plus patterns made to use
each planned form, over the commands of every recorded payload, texts made from the
patterns' own words and random texts. The string methods that
replaced regular expressions (``command_words.is_interpreter``, ``bounded_regex``) are
checked against the regular expressions they replaced; a command's words and parts come
from its one parse (``tests/test_shell_command.py``).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
import re2

from lessons_core.importers.agentsmesh import _command as agentsmesh_command
from lessons_core.matching import command_words, commands
from lessons_core.matching.command_plans import command_plan, plan_matches
from lessons_core.matching.commands import (
    CommandPatternError,
    bounded_regex,
    compile_command,
    fired_part,
    request_parts,
)
from lessons_core.matching.regex_literals import required_runs

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "bench" / "corpus" / "agentsmesh" / "lessons.json"
FIXTURES = ROOT / "tests" / "fixtures"

# Made to use each form a plan takes, and some it must refuse.
MADE = (
    "^git commit( |$)", "^git commit(?: |$)", "pnpm test", "^pnpm (test|lint)$",
    "git (add|rm) -f?x", "install https?://", "vitest.*e2e", "^.*coverage$", "a.*?b.*c",
    "(?:sed|cat)", r"cli\.js install\b", r"\bnpm\b", r"a\\b", r"x\\\b", "-m", " --global",
    "(?:pnpm (-C website )?(add|install|update))", "é.*ü", "_x_", r"git\s+push",
    "git push.*-f", "[a-z]+ test", "(?i)git push", "rm -rf /", "^(ls|cat)( |$)",
)  # fmt: skip
_OLD_INTERPRETER = re.compile(
    r"(?:.*/)?(?:sh|bash|zsh|dash|ksh|fish|python(?:\d+(?:\.\d+)?)?|pypy3?|node|deno|bun|"
    r"ruby|perl|php|tsx|ts-node)"
)
_OLD_WORD_START = re.compile(r"^\w", re.UNICODE)
_OLD_WORD_END = re.compile(r"\w$", re.UNICODE)


def _corpus_patterns() -> list[str]:
    """The corpus's command patterns as ``lessons import agentsmesh`` carries them."""
    triggers = json.loads(CORPUS.read_text())["triggers"].values()
    raw = [t["pattern"] for t in triggers if t["kind"] == "command_pattern"]
    return [p for pattern in raw for p in agentsmesh_command("x", pattern, [])]


def _own_patterns() -> list[str]:
    found = []
    for path in sorted((ROOT / ".lessons" / "lessons").glob("*.json")):
        found += json.loads(path.read_text()).get("triggers", {}).get("commands", [])
    return found


def _regexes() -> list[str]:
    regexes = []
    for pattern in dict.fromkeys([*_corpus_patterns(), *_own_patterns(), *MADE]):
        try:
            regexes.append(compile_command(pattern).regex)
        except CommandPatternError:
            continue
    return regexes


def _fixture_commands() -> list[str]:
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("command", "cmd") and isinstance(item, str):
                    found.append(item)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted(FIXTURES.rglob("*.json")):
        try:
            walk(json.loads(path.read_text()))
        except (ValueError, UnicodeDecodeError):
            continue
    return found


def _texts(regexes: list[str]) -> list[str]:
    """Recorded commands, then texts made of the patterns' words, anchors' neighbours
    (spaces, word characters, line breaks, separators) and random characters."""
    rng = random.Random(7)
    words = sorted({w for r in regexes for w in re.split(r"[^A-Za-z0-9_:./-]+", r) if w})
    glue = [" ", "", "\n", "_", "x", "é", "-", "|", " && ", "; ", "(", "$(", "`", "'", '"']
    texts = [*_fixture_commands(), "", " ", "\n", "pnpm test", "git commit", "git commit -m x"]
    for _ in range(3000):
        pieces = [rng.choice(words) if rng.random() < 0.6 else rng.choice(glue)]
        for _ in range(rng.randrange(1, 7)):
            pieces += [rng.choice(glue), rng.choice(words)]
        texts.append("".join(pieces))
    alphabet = "ab -_\nxé|&;()$`'\"\\=\t"
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(12))) for _ in range(1500)]
    return texts


REGEXES = _regexes()
TEXTS = _texts(REGEXES)


def test_the_corpus_gives_patterns_of_every_kind() -> None:
    """Not vacuous: most corpus patterns are planned, some are left to RE2."""
    planned = [r for r in REGEXES if command_plan(r) is not None]
    assert len(REGEXES) > 100
    assert len(planned) > len(REGEXES) / 2
    assert len(planned) < len(REGEXES)
    assert command_plan("[a-z]+ test") is None
    assert command_plan(bounded_regex("(?i)git push")) is None


@pytest.mark.parametrize("regex", [r for r in REGEXES if command_plan(r) is not None])
def test_a_plan_matches_where_re2_does(regex: str) -> None:
    plan = command_plan(regex)
    assert plan is not None
    compiled = re2.compile(regex)
    wrong = [t for t in TEXTS if plan_matches(plan, t) != (compiled.search(t) is not None)]
    assert wrong == []


def test_the_runs_a_regex_needs_never_skip_a_match() -> None:
    """Without a plan, RE2 runs only on parts holding every run ``required_runs`` found:
    the part it reports is the one RE2 finds in all parts."""
    for regex in REGEXES:
        needs = required_runs(regex)
        for text in TEXTS[:1500]:
            parts = request_parts(text)
            assert fired_part(regex, parts, None, needs) == fired_part(regex, parts), regex


def test_interpreters_are_named_as_the_regular_expression_did() -> None:
    names = ["sh", "bash", "/usr/bin/python3", "python3.11", "python3.", "python.1",
             "pythonx", "ts-node", "a\n/bash", "x/y/node", "pypy", "pypy3", "pypy4",
             "python٣", "nodejs"]  # fmt: skip
    for word in [*names, *(w for t in TEXTS[:2000] for w in t.split())]:
        expected = _OLD_INTERPRETER.fullmatch(word) is not None
        assert command_words.is_interpreter(word) == expected, word


def test_word_boundaries_are_added_as_the_regular_expressions_did() -> None:
    for text in [*TEXTS[:2000], "git\n", "a\\", "é", "x\n\n"]:
        regex = text
        if _OLD_WORD_START.search(text):
            regex = r"\b" + regex
        if _OLD_WORD_END.search(text) and text[-2:-1] != "\\":
            regex = regex + r"\b"
        assert commands._bounded(text) == regex, text
