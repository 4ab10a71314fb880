"""Pure reads: shell commands that look at the project without changing it. (Tools that
only read never reach a hook: each harness's wiring leaves them out, see
``lessons_cli.harnesses``.)

They recall nothing unless a command trigger names them: an agent reads all day, and a
rule shown on every ``cat`` would teach it to skip the block. Anything that could write is
not a pure read: a redirect, ``tee``, ``sed -i``, ``find -delete``, ``&& rm``, an unknown
program. When in doubt a command counts as state-changing, which only means recall runs.
"""

from __future__ import annotations

from lessons_core.matching.commands import MAX_PARSED_CHARS, command_parts, shell_words

_READ_PROGRAMS: frozenset[str] = frozenset(
    """
    cat ls ll rg grep egrep fgrep ag ack head tail wc file stat pwd tree less more which
    type command du df diff cmp jq yq uniq cut nl od hexdump xxd strings basename dirname
    realpath readlink date whoami id uname hostname printenv echo printf true false test [
    sha1sum sha256sum md5sum shasum column fd cd pushd popd sleep
    """.split()
)
_GIT_READS: frozenset[str] = frozenset(
    """
    status log diff show blame rev-parse ls-files ls-tree grep describe shortlog cat-file
    rev-list whatchanged
    """.split()
)
# A read-only command is a line or two, so a longer one is classed as state-changing
# without reading it (recall then runs).
MAX_PURE_READ_CHARS = 16_384
_FIND_WRITES = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fls"})
# Redirections that write nothing: duplicating a descriptor, or discarding output. The
# descriptor number is read from its first digit only, so a long run of digits is scanned
# once, not once from each of its digits.
# (What the regular expression ``(?<!\d)\d*>&\d+|&?(?<!\d)\d*>\s*/dev/null`` finds, found
# with string methods by ``_without_harmless_redirects``.)
_DEV_NULL = "/dev/null"


def is_pure_read_command(command: str) -> bool:
    """True when every simple command in ``command`` only reads and nothing is redirected."""
    if len(command) > MAX_PURE_READ_CHARS:
        return False  # a heredoc or a generated script: in doubt, not a pure read
    cleaned = _without_harmless_redirects(command) if ">" in command else command
    if ">" in cleaned:
        return False
    parts = command_parts(cleaned)
    simple = parts[1:] or parts[:1]
    return bool(simple) and all(_reads(part) for part in simple)


def _without_harmless_redirects(command: str) -> str:
    """``command`` with each harmless redirection (``2>&1``, ``>/dev/null``, ``&> /dev/null``)
    replaced by a space, left to right, as ``re.sub`` replaces the matches of
    ``(?<!\\d)\\d*>&\\d+|&?(?<!\\d)\\d*>\\s*/dev/null``: a redirection starts where the
    digit run before its ``>`` does (or at the ``&`` before that, for /dev/null)."""
    out: list[str] = []
    done = 0  # what is copied to out already
    arrow = command.find(">")
    while arrow >= 0:
        start = arrow
        while start > 0 and command[start - 1].isdecimal():
            start -= 1
        found = _redirect_at(command, start, arrow) if start >= done else None
        if found is not None:
            start, end = found
            out += [command[done:start], " "]
            done = end
        arrow = command.find(">", max(arrow + 1, done))
    out.append(command[done:])
    return "".join(out)


def _redirect_at(command: str, digits: int, arrow: int) -> tuple[int, int] | None:
    """The harmless redirection whose descriptor digits start at ``digits`` and whose
    ``>`` is at ``arrow`` (start, end), leftmost first, or None."""
    size = len(command)
    blank = arrow + 1
    while blank < size and command[blank].isspace():
        blank += 1
    null_end = blank + len(_DEV_NULL) if command.startswith(_DEV_NULL, blank) else -1
    if digits > 0 and command[digits - 1] == "&" and null_end >= 0:
        return digits - 1, null_end
    if command.startswith(">&", arrow):
        end = arrow + 2
        while end < size and command[end].isdecimal():
            end += 1
        if end > arrow + 2:
            return digits, end
    return (digits, null_end) if null_end >= 0 else None


def _reads(part: str) -> bool:
    if len(part) > MAX_PARSED_CHARS:
        return False  # a heredoc or an inline script: in doubt, not a pure read
    words = shell_words(part)
    if not words:
        return True
    program = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    if program == "git":
        return _git_reads(args)
    if program == "sed":
        return not any(a.startswith("-i") or a == "--in-place" for a in args)
    if program == "find":
        return not any(a in _FIND_WRITES for a in args)
    if program == "sort":
        return not any(a.startswith(("-o", "--output")) for a in args)
    return program in _READ_PROGRAMS


def _git_reads(args: list[str]) -> bool:
    """``git [-C dir] [--no-pager] SUBCOMMAND``: only the listed subcommands read."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        index += 2 if args[index] in {"-C", "-c"} else 1
    return index < len(args) and args[index] in _GIT_READS
