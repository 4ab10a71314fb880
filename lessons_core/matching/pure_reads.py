"""Pure reads: shell commands that look at the project without changing it. (Tools that
only read never reach a hook: each harness's wiring leaves them out, see
``lessons_cli.harnesses``.)

They recall nothing unless a command trigger names them: an agent reads all day, and a
rule shown on every ``cat`` would teach it to skip the block. Anything that could write is
not a pure read: a redirect, ``tee``, ``sed -i``, ``find -delete``, ``&& rm``, an unknown
program. When in doubt a command counts as state-changing, which only means recall runs.
Which programs only read is the table of ``shell_files`` (``only_reads``), read from the
command's one parse (``shell_command``).
"""

from __future__ import annotations

from lessons_core.matching.shell_command import Segment, ShellCommand, parsed
from lessons_core.matching.shell_files import only_reads, writes_nothing

# A read-only command is a line or two: a longer one (a heredoc, a generated script) is
# classed as state-changing without reading it (recall then runs).
MAX_PURE_READ_CHARS = 16_384
# And so is a longer simple command: an inline script.
MAX_SIMPLE_CHARS = 4096


def is_pure_read_command(command: str | ShellCommand) -> bool:
    """True when every simple command in ``command`` only reads and nothing is redirected."""
    text = command if isinstance(command, str) else command.text
    if len(text) > MAX_PURE_READ_CHARS:
        return False
    shell = parsed(command)
    if not shell.complete:
        return False
    return all(segment_reads(segment) for segment in shell.segments)


def segment_reads(segment: Segment) -> bool:
    """Whether one simple command only reads: a reading program, no file written."""
    if len(segment.text) > MAX_SIMPLE_CHARS:
        return False
    if not all(writes_nothing(operator, target) for operator, target in segment.redirects):
        return False
    return only_reads(segment.runs)
