"""JavaScript command patterns rewritten for RE2."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
import re2

from lessons_core.importers.jsregex import UntranslatableRegex, translate_js_regex


@pytest.mark.parametrize(
    ("js", "re2_pattern"),
    [
        ("git push --force", "git push --force"),
        (r"git\s+(clone|fetch)", r"git\s+(clone|fetch)"),
        (r"dist\/cli\.js", r"dist/cli\.js"),
        (r"\u0041", r"\x{0041}"),
        (r"a\cJb", r"a\x{0A}b"),
        (r"\0", r"\x{00}"),
        (r"[\b]", r"[\x08]"),
        (r"[\1]", r"[\x{01}]"),
        (r"\e\q", "eq"),
        ("a{,3}", r"a\{,3\}"),
        ("a{2,}b{1,3}c{4}", "a{2,}b{1,3}c{4}"),
        ("x}", r"x\}"),
        ("(?<name>ab)", "(?P<name>ab)"),
        ("[^]z", r"[\s\S]z"),
        ("[[]", r"[\[]"),
        (r"\x41", r"\x41"),
        (r"\u{2}", "u{2}"),
    ],
)
def test_translation(js: str, re2_pattern: str) -> None:
    """Each JavaScript-only construct becomes the RE2 spelling of the same thing."""
    assert translate_js_regex(js) == re2_pattern


@pytest.mark.parametrize(
    ("js", "reason"),
    [
        ("(?<=git )push", "lookaround"),
        ("push(?! --force)", "lookaround"),
        (r"(a)\1", "backreference"),
        (r"(?<q>')x\k<q>", "named backreference"),
        ("[]", "empty class"),
        ("trailing\\", "lone backslash"),
    ],
)
def test_untranslatable(js: str, reason: str) -> None:
    """Constructs without a linear-time equivalent are refused, naming the construct."""
    with pytest.raises(UntranslatableRegex, match=reason):
        translate_js_regex(js)


PATTERNS = [
    r"git\s+(clone|ls-remote|fetch)",
    r"pnpm (test|lint|typecheck)[^|]*\|\s*(tail|head|grep)",
    r"^pnpm (precommit|test:coverage)$",
    r"git fetch.*pull/\d+/head",
    "git log v",
    r"\u0041b",
    r"a\cJb",
    r"[\b]x",
    r"\e\q",
    "a{,3}",
    "a{2}",
    "x}",
    "(?<n>ab)c",
    "[^]z",
    r"\/x",
    "[[]a",
    r"\0",
    r"[\1]",
    r"\x41",
    r"\u{2}",
    "sed|cat",
]
INPUTS = [
    "git log v1.2.0..HEAD",
    "git  clone x",
    "pnpm test | tail -5",
    "pnpm precommit",
    "git fetch origin pull/12/head",
    "Ab",
    "a\nb",
    "\x08x",
    "eq",
    "a{,3}",
    "aa",
    "x}",
    "abc",
    "\nz",
    "/x",
    "[a",
    "\x00",
    "\x01",
    "A",
    "uu",
    "concatenate",
    "used",
]


def test_same_matches_as_javascript() -> None:
    """Every translated pattern matches exactly the inputs JavaScript's RegExp matches."""
    node = shutil.which("node")
    assert node, "node is needed to compare with JavaScript's own RegExp"
    script = (
        "const [p, c] = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(p.map(x => c.map(y => new RegExp(x).test(y)))));"
    )
    result = subprocess.run(
        [node, "-e", script],
        input=json.dumps([PATTERNS, INPUTS]),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    expected = json.loads(result.stdout)
    for pattern, row in zip(PATTERNS, expected, strict=True):
        compiled = re2.compile(translate_js_regex(pattern))
        got = [compiled.search(text) is not None for text in INPUTS]
        assert got == row, pattern
