"""What recall is asked (``RecallRequest``) and what it answers (``Recall`` of ``Hit``s):
the records ``lessons_core.recall.rank`` ranks into and ``lessons_core.recall.render`` shows."""

# Annotations are evaluated, not postponed (no ``from __future__ import annotations``):
# a NamedTuple compiles each string annotation of its fields when its class is made.
from typing import NamedTuple

from lessons_core.matching.shell_command import ShellCommand

# A prompt is read up to this many characters, by recall and by the hook's correction cues
# (docs/recall.md): the words that say what a task is about come first, and a pasted log
# of megabytes would cost a hook seconds and gigabytes to tokenise.
MAX_PROMPT_CHARS = 16_384


class RecallRequest(NamedTuple):
    files: tuple[str, ...] = ()  # repo-relative POSIX paths
    command: str | None = None
    prompt: str | None = None
    # The command parsed once (``matching.shell_command``), when the caller has it.
    shell: ShellCommand | None = None
    # The files are being read, not changed: broad trigger matches wait for the change
    # (``rank.select``), so a rule about a whole tree does not speak on every read.
    read: bool = False
    # Repo-relative files the prompt names (lessons_core.recall.prompt_files): matched
    # like ``files``, shown as "named in the prompt".
    named: tuple[str, ...] = ()
    # The project's own name words (``prompt_terms.project_names``): never a meaningful
    # prompt term, since nearly every prompt and rule of the project says them.
    project: tuple[str, ...] = ()


class Hit(NamedTuple):
    lesson_id: str
    rule: str
    via: str  # "file" | "named" (a file the prompt names) | "command" | "keyword" | "prompt"
    trigger: str  # the glob / pattern / keyword that matched ("" for prompt)
    terms: tuple[str, ...]  # shared terms for prompt matches, else ()
    gate: bool
    matched: str = ""  # the path, command part or text source ("prompt", "path", ...) hit
    broad: bool = False  # matched through a broad trigger only (lessons_core.matching.breadth)
    # Set by a person only: every matching command is refused (``Lesson.enforce``); what a
    # change to the lesson's files must not add (``Lesson.forbid``).
    enforce: bool = False
    forbid: str | None = None
    # About the very file (an exact path) or command (a pattern that is not broad)
    # touched, or gated: no session budget holds it back, and it draws on none
    # (``lessons_core.recall.rank.pinned``).
    pinned: bool = False
    # Where the lesson lives, as its block labels it: "" for the project's own store,
    # "personal", or "pack NAME" (``lessons_core.store.sources``).
    source: str = ""

    def to_dict(self) -> dict[str, object]:
        """The JSON form ``lessons query --json`` prints for one rule."""
        return {
            "id": self.lesson_id,
            "rule": self.rule,
            "via": self.via,
            "trigger": self.trigger,
            "terms": list(self.terms),
            "gate": self.gate,
            "matched": self.matched,
            "broad": self.broad,
            "source": self.source or "project",
        }


class Allowance(NamedTuple):
    """What a recall may still show beyond the config's caps: what a session has left
    (``lessons_core.delivery.deliver.allowance``), and a caller's ``limit``. The defaults
    allow everything: a recall outside any session."""

    exclude: frozenset[str] = frozenset()  # ids shown already: never again
    limit: int | None = None  # at most this many rules
    broad_left: int | None = None  # of max_broad_per_session
    tokens_left: int | None = None  # of max_session_tokens


# Outside a session and without a limit: only the config's caps apply.
NO_LIMITS = Allowance()


class Recall(NamedTuple):
    hits: tuple[Hit, ...]  # rank order, within budget, excluding `Allowance.exclude`
    more: int  # how many more matched but were cut by the budget
    # Every lesson that matched, in rank order, before `exclude` and the budget: what
    # telemetry logs as a recall's candidates.
    matched: tuple[str, ...] = ()
    # Each hit's line as rendered when the budget costed it (``render.hit_line``); the
    # block is built from these, so a rule is rendered once per recall.
    lines: tuple[str, ...] = ()
    # The matches that bind whatever the session was shown and the budget: an enforced
    # lesson matched through a command trigger, and a lesson with a ``forbid`` pattern once
    # for each requested file its file triggers match (``matched`` that path).
    binding: tuple[Hit, ...] = ()
    # Some rule the caps left out is about the very file or command touched (``Hit.pinned``):
    # no budget holds it back, so the next such call (a refused call's retry) shows it,
    # with its own count of what is left.
    follows: bool = False
    # Of ``more``, the matches held back because their trigger is broad (``Hit.broad``):
    # what the block's count points to with the command that lists them
    # (``lessons_core.delivery.pointer``).
    held: int = 0

    def only(self, ids: set[str] | frozenset[str]) -> "Recall":
        """This recall with only the hits (and their lines) whose ids are in ``ids``."""
        kept = [n for n, hit in enumerate(self.hits) if hit.lesson_id in ids]
        lines = tuple(self.lines[n] for n in kept) if len(self.lines) == len(self.hits) else ()
        return self._replace(hits=tuple(self.hits[n] for n in kept), lines=lines)
