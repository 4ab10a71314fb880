"""What an action is, the one record of it (``ActionId``), and the digests that name an
action or a call in a session file without keeping its text.

An action is a repo-relative file, or a command named by its program and sub-commands
(``matching.command_words``), kept as the pattern anchored to them (``^pnpm test:e2e``).
The same record is, written out: the failure history's key (``failure_key``, a digest of
``identity``), the identity the telemetry log and a session's evidence keep (``file
src/a.py``, ``cmd ^pnpm test:e2e``), the trigger a capture line suggests (``trigger``,
``label``), and the action a correction followed (``saved``: ``["command", "pnpm
test:e2e"]``). Two constructors tell which actions have one: ``named`` (every file, a
command whose words look like no token: what a session's evidence keeps of each call),
and ``precise`` (no secret in it: what a failure is counted under and a lesson's trigger
may say).
"""

# Annotations are evaluated, not postponed (no ``from __future__ import annotations``):
# a NamedTuple compiles each string annotation of its fields when its class is made.
import json
import sys
from typing import TYPE_CHECKING, NamedTuple

from lessons_core.matching.literal_patterns import anchored, unanchored

if TYPE_CHECKING:
    from lessons_core.matching.shell_command import ShellCommand

# hashlib's own C SHA-256, without loading OpenSSL's bindings, which no other part of a
# hook call needs.
# Chosen by version, not by a failed import: a module found nowhere makes the launcher's
# interpreter run site's setup after all (lessons_cli/__main__.py).
try:
    if sys.version_info >= (3, 12):
        from _sha2 import sha256  # type: ignore[import-not-found, unused-ignore]
    else:
        from _sha256 import sha256  # type: ignore[import-not-found, no-redef, unused-ignore]
except ImportError:
    from hashlib import sha256  # type: ignore[assignment, unused-ignore]

FILE = "file"
COMMAND = "command"
FILE_FLAG, COMMAND_FLAG = "--trigger-file", "--trigger-cmd"
# The words ``identity`` writes before the file or pattern.
_IDENTITY_WORD = {FILE: "file", COMMAND: "cmd"}
_KIND_OF_WORD = {"file": FILE, "cmd": COMMAND}
# A command word that looks like a token (long, with digits) is not kept: it may be one.
MAX_PLAIN_WORD = 40


def digest(text: str, length: int = 16) -> str:
    """A short digest naming ``text`` (a refused call, an action, a session): the session
    file keeps no command text (it could hold a secret), only enough to know the same
    text again."""
    found: str = sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return found[:length]


def call_digest(key: str, content: object = None) -> str:
    """A digest of a whole call: its key (its files, or its command) and, for a call
    whose ``content`` counts (an edit retried with other text is another call), that."""
    if content is None:
        return digest(key)
    return digest(key + json.dumps(content, ensure_ascii=False, separators=(",", ":")))


class ActionId(NamedTuple):
    """An action's identity: ``kind`` ``FILE`` with a repo-relative path, or ``COMMAND``
    with the pattern anchored to the command's words."""

    kind: str
    value: str

    @property
    def identity(self) -> str:
        """``file src/a.py`` or ``cmd ^pnpm test:e2e``."""
        return f"{_IDENTITY_WORD[self.kind]} {self.value}"

    @property
    def failure_key(self) -> str:
        """The digest the failure history and a session's evidence key the action by."""
        return digest(self.identity)

    @property
    def trigger(self) -> tuple[str, str]:
        """``--trigger-file PATH`` or ``--trigger-cmd PATTERN``."""
        return (FILE_FLAG if self.kind == FILE else COMMAND_FLAG), self.value

    @property
    def label(self) -> str:
        """The action as the agent reads it: the path, or the command quoted."""
        if self.kind == FILE:
            return self.value
        return "the command '" + self.value.lstrip("^").replace("\\", "") + "'"

    @property
    def words(self) -> str:
        """The path, or the command's words as one line (``pnpm test:e2e``)."""
        if self.kind == FILE:
            return self.value

        return unanchored(self.value)

    @property
    def saved(self) -> list[str]:
        """The action as a session's evidence keeps it: ``[kind, path or words]``."""
        return [self.kind, self.words]


def of_words(words: str) -> ActionId:
    """The command action named by ``words`` (``matching.command_words``, as one line)."""

    return ActionId(COMMAND, anchored(words.split(" ")))


def named(files: tuple[str, ...], command: "str | ShellCommand | None") -> ActionId | None:
    """The action a call is about, as a session's evidence keeps it: its first file, or
    the words that name its command when none looks like a token; None when nothing
    names it."""
    if files:
        return ActionId(FILE, files[0])
    if command:
        from lessons_core.matching.command_words import command_words  # noqa: PLC0415 (event: shell calls only)

        words = command_words(command)
        if words and all(plain(word) for word in words):
            return of_words(" ".join(words))
    return None


def precise(files: tuple[str, ...], command: "str | ShellCommand | None") -> ActionId | None:
    """The action a call is about as a failure is counted under it and a lesson's trigger
    may name it: its first file, or the pattern anchored to its command's last
    state-changing simple command (``cd web && pnpm test:e2e --filter x`` gives ``^pnpm
    test:e2e``); None when nothing precise names it, or what would holds a secret."""
    if files:
        path = files[0]
        return None if _quotes_a_secret(path) else ActionId(FILE, path)
    if command:
        from lessons_core.matching.command_words import command_words  # noqa: PLC0415 (event: shell calls only)

        kept = command_words(command)
        if kept and not _quotes_a_secret(" ".join(kept)):
            return of_words(" ".join(kept))
    return None


def logged_identity(files: tuple[str, ...], command: "str | ShellCommand | None") -> str:
    """The identity of the ``precise`` action, as the telemetry log keeps it ("" for
    none)."""
    found = precise(files, command)
    return found.identity if found is not None else ""


def from_saved(value: object) -> ActionId | None:
    """The action ``saved`` wrote (``[kind, path or words]``), or None for anything else."""
    if not isinstance(value, list) or len(value) != 2:
        return None
    kind, name = value
    if not isinstance(name, str) or not name:
        return None
    if kind == FILE:
        return ActionId(FILE, name)
    return of_words(name) if kind == COMMAND else None


def from_identity(identity: str) -> ActionId | None:
    """The action ``identity`` wrote (``file src/a.py``, ``cmd ^make gen``), or None."""
    word, _, value = identity.partition(" ")
    kind = _KIND_OF_WORD.get(word)
    return ActionId(kind, value) if kind is not None and value else None


def plain(word: str) -> bool:
    """Not a token: short, or without digits."""
    return len(word) <= MAX_PLAIN_WORD and not (len(word) >= 16 and any(c.isdigit() for c in word))


def _quotes_a_secret(text: str) -> bool:
    """Whether ``text`` holds a credential. Checked before escaping: ``\\.`` inside a token
    would hide it from the masks, and a trigger naming a secret could never be captured."""
    from lessons_core.authoring.secrets import mask_secrets  # noqa: PLC0415 (heavy: secret patterns)

    return mask_secrets(text) != text
