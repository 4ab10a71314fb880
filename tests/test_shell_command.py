"""A shell command's one parse: its segments, words, redirections and match parts
(``tests/hooks/test_one_parse.py``: a hook call parses its command once)."""

from __future__ import annotations

import random
import shlex

import pytest

from lessons_core.matching.command_words import command_words
from lessons_core.matching.commands import command_parts, compile_command
from lessons_core.matching.pure_reads import is_pure_read_command
from lessons_core.matching.shell_command import Segment, match_parts, parse
from lessons_core.matching.shell_files import shell_file_effects


def test_segments_keep_words_assignments_redirections_and_operators() -> None:
    """Each simple command holds its program's words, its leading assignments, its
    redirections with their targets and the operator before it."""
    command = parse("cd web && FOO='a b' pnpm test --x 2>&1 | tee out.log")
    assert command.segments == (
        Segment(words=("cd", "web"), text="cd web", runs=("cd", "web")),
        Segment(
            words=("pnpm", "test", "--x"),
            assignments=("FOO=a b",),
            redirects=(("2>&", "1"),),
            operator="&&",
            text="pnpm test --x 2>&1",
            runs=("pnpm", "test", "--x"),
        ),
        Segment(
            words=("tee", "out.log"), operator="|", text="tee out.log", runs=("tee", "out.log")
        ),
    )
    assert command.segments[2].piped


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        ("sudo -u me cat x", ("cat", "x")),
        ("env A=1 timeout 5 make test", ("make", "test")),
        ("if ! grep -q x f", ("grep", "-q", "x", "f")),
        ("command -v git", ()),
        ("fi", ()),
    ],
)
def test_what_a_segment_runs_is_past_keywords_and_wrappers(
    text: str, runs: tuple[str, ...]
) -> None:
    """``runs`` starts at the program: ``sudo``, ``env``, ``timeout``, ``if`` looked past."""
    assert parse(text).segments[0].runs == runs


def test_the_script_a_shell_runs_is_parsed_with_the_command() -> None:
    """``bash -lc SCRIPT`` and a here-document given to ``sh`` are commands too: parts,
    files and pure reads see them, from the same parse."""
    command = parse("bash -lc 'cd web && git push' && sh <<EOF\nsed -i s/a/b/ f.txt\nEOF")
    assert match_parts(command)[:3] == ("cd web", "git push", "sed -i s/a/b/ f.txt")
    assert shell_file_effects(command).writes == ("f.txt",)
    assert not is_pure_read_command(command)


@pytest.mark.parametrize(
    "text",
    ["git commit -m 'wip: x'", 'a "b c" d\\ e', "x 'it''s' \"q\\\"uote\"", "  a\tb  ", ""],
)
def test_words_of_a_plain_command_are_those_shlex_reads(text: str) -> None:
    """Without operators or substitutions, a command's words are ``shlex.split``'s."""
    segments = parse(text).segments
    words = [word for segment in segments for word in (*segment.assignments, *segment.words)]
    assert words == shlex.split(text)


def test_random_plain_commands_read_as_shlex_does() -> None:
    """The same over random text of quotes, escapes, blanks and letters."""
    rng = random.Random(7)
    pieces = ["a", "b=", "'x y'", '"p q"', "\\ ", " ", "\t", "-", "'", '"', "\\\\", "é"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 12)))
        try:
            expected = shlex.split(text)
        except ValueError:
            continue  # an unclosed quote: shlex refuses it, the parse reads on
        found = [w for s in parse(text).segments for w in (*s.assignments, *s.words)]
        assert found == expected, text


def test_a_quoted_operator_splits_nothing() -> None:
    """A ``;`` or ``>`` inside quotes is part of a word: no part, no redirection."""
    command = parse('git commit -m "a; rm -rf x > y"')
    assert match_parts(command) == ('git commit -m "a; rm -rf x > y"',)
    assert not compile_command("^rm").matches(command.text)
    assert command.segments[0].redirects == ()


def test_commands_inside_substitutions_are_parts_too() -> None:
    """What ``$(...)`` and backticks run is matched and judged like any command."""
    assert command_parts("echo $(git push) `make deploy`") == [
        "echo $(git push) `make deploy`",
        "git push",
        "make deploy",
    ]
    assert not is_pure_read_command("cat $(rm -rf x)")
    assert is_pure_read_command("wc -l $(git ls-files)")


def test_leading_assignments_leave_the_part() -> None:
    """``A=1 B='x y' make`` is matched as ``make``; an assignment alone stays as written."""
    assert command_parts("A=1 B='x y' make deploy") == ["A=1 B='x y' make deploy", "make deploy"]
    assert command_parts("A=1") == ["A=1"]


@pytest.mark.parametrize("text", ["echo 'unclosed", 'a "b', "cat <<EOF\nno end", "$(", "`x"])
def test_unbalanced_text_is_read_as_far_as_it_goes(text: str) -> None:
    """Malformed shell never raises: it is read to its end, and the whole is a part."""
    command = parse(text)
    assert match_parts(command)[-1] == text.strip()
    command_words(command)
    shell_file_effects(command)
    is_pure_read_command(command)


def test_every_question_is_answered_from_one_value() -> None:
    """Files, pure reads, command words and parts agree whether given text or its parse."""
    text = "cd src && sed -i 's/a/b/' a.py > /dev/null; FOO=1 pnpm test:e2e --filter x"
    command = parse(text)
    assert shell_file_effects(command) == shell_file_effects(text)
    assert shell_file_effects(command).writes == ("src/a.py",)
    assert command_words(command) == ["pnpm", "test:e2e"]
    assert is_pure_read_command(command) is False
    assert command_parts(command) == command_parts(text)
