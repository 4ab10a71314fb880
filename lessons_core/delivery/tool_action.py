"""What a tool call is about to touch (``ToolAction``): the one record every harness
adapter builds from its payload and hands to delivery (``lessons_core.delivery.deliver``),
the failure history and telemetry. What it reads, changes or runs is told by
``lessons_core.delivery.actions``, the same for every harness."""

# Annotations are evaluated, not postponed (no ``from __future__ import annotations``):
# a NamedTuple compiles each string annotation of its fields when its class is made.
from typing import NamedTuple

from lessons_core.matching.shell_command import ShellCommand
from lessons_core.session.action import call_digest, digest


class ToolAction(NamedTuple):
    """What a tool call is about to touch: repo-relative files it changes (an edit tool's),
    or a shell command; and the repo-relative files it only reads (a read tool's, or those
    a shell command reads) and those a shell command writes."""

    files: tuple[str, ...] = ()
    command: str | None = None
    # The command parsed once (``matching.shell_command``): every question about it is
    # answered from this, never from the text again.
    shell: ShellCommand | None = None
    # The tool's input, read only to tell a changed retry from a repeated one.
    content: object = None
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    # (repo-relative file, text the call adds to it): an edit's new text, a write's whole
    # content, a patch's added lines, a here-document a command writes into the file;
    # what a ``forbid`` pattern is searched in (``lessons_core.delivery.binding``).
    added: tuple[tuple[str, str], ...] = ()

    @property
    def is_empty(self) -> bool:
        return not self.files and not self.command and not self.reads

    @property
    def changes(self) -> tuple[str, ...]:
        """Every file the call changes: an edit tool's, and those a command writes."""
        return (*self.files, *self.writes) if self.writes else self.files

    @property
    def read_only(self) -> tuple[str, ...]:
        """The files the call reads and does not change."""
        changed = self.changes
        return tuple(f for f in self.reads if f not in changed)

    @property
    def key(self) -> str:
        """What telemetry calls the call: its files, else its command. A failure hook
        builds the same ``ToolAction`` from its payload, so a failure and the recall
        before it share this key; a gate's refusal is kept as its digest
        (``refusal_key``)."""
        return " ".join(self.files) if self.files else self.command or ""

    @property
    def refusal_key(self) -> str:
        """What a session keeps of a refusal of this call: a digest of its key, so the
        call made again (whatever its input) is let through."""
        return digest(self.key)

    @property
    def call_digest(self) -> str:
        """A digest of the whole call: its command, or its files and the tool's input (an
        edit retried with other text is another call)."""
        return call_digest(self.key, None if self.command else self.content)
