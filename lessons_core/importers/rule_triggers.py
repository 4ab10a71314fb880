"""The triggers of an imported rule: where its mistake is made.

``Mentions`` finds every file and command a sentence names; a rule's triggers are only
some of them (``normative.stance``):

- what it forbids ("never edit `uv.lock`", "avoid `make test` between edits", "instead
  of `os.path`") and the situation it is about ("after changing `schema.json`",
  "before committing"): files and commands both;
- what it asks the agent to edit ("keep `models.py` free of queries"): files only, and
  only in a rule that forbids nothing and names no situation: in "never edit `uv.lock`;
  change `pyproject.toml`" the file it asks for is the alternative, and in "after
  editing a workflow `*.md`, commit the regenerated `*.lock.yml`" the mistake is made
  in the `*.md`, the lock being what the rule wants done. A command it asks for ("run
  `make typecheck` before you finish") is never its trigger: a lesson on it would fire,
  or refuse, on the very command the rule wants run;
- what it points at ("see `docs/x.md`", "e.g. `test_x.py`"): nothing.

"Before committing" and "on commits" name ``git commit``; "before pushing", ``git push``;
"after pulling", ``git pull``;
"never force-push", ``git push --force``; "before submitting PRs" and "PR titles",
``gh pr create`` (not for a rule asking for a draft, which is made there too);
"never create an issue", ``gh issue create``; "never reply to an issue", ``gh issue
comment``. A rule on the type a commit message opens with ("Use Conventional Commits")
fires on the commits whose message breaks it (``commit_pattern``).
A name written after "bare" or "plain" (``never call bare `pytest` ``) is anchored to
the start of the command, so ``uv run pytest`` does not fire the rule against bare
``pytest``.
"""

from __future__ import annotations

import re

from lessons_core.importers.languages import main_language
from lessons_core.importers.markdown_text import outside_code
from lessons_core.importers.mentions import Mentions
from lessons_core.importers.normative import Part, Role, stance, words
from lessons_core.importers.package_managers import swapped_for
from lessons_core.matching.commit_messages import TYPED_COMMIT, UNSIGNED_COMMIT, UNTYPED_COMMIT
from lessons_core.matching.missing_options import without_option
from lessons_core.store.model import Triggers

# Words naming a git action, by the part of a rule they name it in: "before committing",
# "after you push"; "never ... on commits" (a verb "push" that forbids is too often
# another push: "push a particular approach").
_GIT_ACTIONS = {
    Role.WHEN: {
        "commit": "git commit",
        "commits": "git commit",
        "committing": "git commit",
        "push": "git push",
        "pushing": "git push",
        "force-push": "git push --force",
        "pulling": "git pull",
    },
    Role.FORBIDS: {"commits": "git commit", "force-push": "git push --force"},
}
# Verbs of making a pull request or an issue; "an open PR" is one already made.
_MAKING = (
    r"submit(?:s|ting)?|(?<!\ban )(?<!\bthe )(?<!\ba )open(?:s|ing)?|creat(?:e|es|ing)"
    r"|rais(?:e|es|ing)"
)
# Opening a pull request, in the words a rule says it with: "before submitting PRs",
# "when you open a pull request". The mistake is made where the request is made:
# ``gh pr create``. "An open PR" is one already made.
_PULL_REQUEST = re.compile(
    rf"\b(?:{_MAKING}|send(?:s|ing)?)"
    r"\s+(?:a\s+|an\s+|the\s+|your\s+|any\s+|every\s+|each\s+)?(?:issues?\s+(?:or|and)\s+)?"
    r"(?:PRs?|pull[- ]requests?)\b",
    re.I,
)
# What a pull request says, wherever the rule names it: "PR titles should ...", "Keep
# PR description short".
_PULL_REQUEST_TEXT = re.compile(r"\b(?:PR|pull[- ]request)\s+(?:titles?|descriptions?)\b", re.I)
# A draft is a pull request made with ``gh pr create --draft``: a rule asking for one
# fires on no ``gh pr create``, since the right call is one too (``asks_for_draft``).
_DRAFT = re.compile(r"\bdrafts?\b", re.I)
_PR_TEMPLATE = re.compile(r"pull_request_template", re.I)
# Issues, in the words a rule says it with: "Never create an issue", "file a GitHub
# issue"; "Never reply to an issue", "comment on issues".
_ISSUE_CREATE = "gh issue create"
_MAKING_ISSUE = re.compile(
    rf"\b(?:{_MAKING}|fil(?:e|es|ing))\s+(?:(?:a|an|the|any|new|github)\s+)*issues?\b", re.I
)
_ISSUE_ACTIONS = (
    (_MAKING_ISSUE, _ISSUE_CREATE),
    (
        re.compile(
            r"\b(?:repl(?:y|ies|ying)\s+to|comment(?:s|ing)?\s+on|respond(?:s|ing)?\s+to)"
            r"\s+(?:(?:a|an|the|any)\s+)?issues?\b",
            re.I,
        ),
        "gh issue comment",
    ),
)
PR_CREATE = "gh pr create"
# A commit message said in words: "Use Conventional Commits for commit messages", "ALWAYS
# use semantic commits". It is written at ``git commit``.
_COMMIT_MESSAGE = re.compile(
    r"(?<!-)\bcommit\s+(?:messages?|titles?|subjects?)\b"
    # "a conventional-commit title" (of a PR), "a Conventional Commit-style message" (of a
    # changeset) name a style, not a commit
    r"|\b(?:conventional|semantic)[- ]commits?\b(?![- ](?:titles?|style)\b)"
    # a co-author is named in a trailer of the message
    r"|\bco-?author(?:s|ed)?\b|\btrailers?\b",
    re.I,
)
# A rule about the type a commit message opens with: "Use Conventional Commits",
# "Semantic commit messages", "no `feat:`/`fix:` prefixes".
_CONVENTIONAL = re.compile(
    r"\b(?:conventional|semantic)[- ]commits?\b|`(?:feat|fix|chore)(?:\([^`]*\))?:`", re.I
)
# Stopping work: a rule forbidding it before or after a git action is about the end of
# the work, not about the action.
_STOPS = re.compile(r"\b(?:stop|stopping|go(?:es|ing)?\s+idle)\b", re.I)
# A heading about when to make commits ("When to commit"): its rules ask for commits, and
# the mistake is making none, which no commit shows.
_WHEN_TO = re.compile(r"^\W*(?:when|how often)\s+to\b", re.I)
# A rule asking for a commit of some kind ("use an `amend!` commit instead", "create a
# new commit"): the commit is what it wants made, not where its mistake is.
_ASKS_COMMIT = re.compile(
    r"\b(?:use|create|make|add)\s+(?:an?|one|the)\s+(?:[\w`!-]+\s+){0,2}commit\b", re.I
)
# A module a rule says to import from, or not: "instead of importing from `vite`".
_MODULE = re.compile(r"\bfrom\s+`[^`]+`(?:\s*(?:,|or|and|,\s*or)\s*`[^`]+`)*", re.I)
# A part that describes a file: "`ci.yml` requires a scoped title".
_DESCRIBED = re.compile(r"^\s*`[^`]+`\s+(?!(?:needs|has|is|does|was)\b)[a-z]+s\b")
_SPAN = re.compile(r"`([^`\n]+)`")
_BARE = re.compile(r"\b(?:bare|plain)\s+`[^`]+`", re.I)
_WHERE_MADE = (Role.FORBIDS, Role.WHEN)


def rule_triggers(mentions: Mentions, rule: str, folder: str = "") -> Triggers:
    """The triggers of ``rule`` (read in ``folder``, as ``Mentions.triggers`` reads it)."""
    files: list[str] = []
    commands: list[str] = []
    parts = stance(rule)
    # A rule that forbids something names its alternative in the part that asks: "never
    # edit `uv.lock`; change `pyproject.toml`".
    alternatives = any(part.role is Role.FORBIDS for part in parts)
    asked: list[str] = []
    # "NEVER stop before pushing", "After you push, do not go idle": the mistake is
    # stopping, which no push shows
    stops = any(part.role is Role.FORBIDS and _STOPS.search(part.text) for part in parts)
    message = _COMMIT_MESSAGE.search(outside_code(rule))
    if message and not re.search(r"\band\b", rule[: message.start()]):
        # about the message itself: "Answer in English and keep commit messages short"
        # asks for more than a commit shows
        commands.append("git commit")
    for part in map(_without_modules, parts):
        if part.role is Role.POINTS or (part.role is Role.ASKS and alternatives):
            continue
        if _DESCRIBED.match(part.text):
            continue  # what the file does, not an edit of it
        if part.role is Role.ASKS:
            # "Run `npm test` from `clients/cli/`": the folder is where to run it
            if not (
                _produces(part.text)
                or asks_to_read(part.text)
                or _runs(part.text, mentions, folder)
            ):
                asked.extend(
                    mentions.triggers(_files_only(part.text, mentions, folder), folder).files
                )
            continue
        found = mentions.triggers(part.text, folder, options=part.role is Role.FORBIDS)
        files.extend(found.files)
        anchor = "^" if _BARE.search(part.text) else ""
        commands.extend(anchor + command for command in found.commands)
        if not (part.role is Role.WHEN and stops):
            actions = _GIT_ACTIONS[part.role]
            commands.extend(actions[word] for word in words(part.text) if word in actions)
        if _PULL_REQUEST.search(part.text):
            commands.append(PR_CREATE)
        commands.extend(command for found, command in _ISSUE_ACTIONS if found.search(part.text))
    if _PULL_REQUEST_TEXT.search(outside_code(rule).split(",")[0]):
        commands.append(PR_CREATE)  # "Keep PR description short", not one in a list
    commands.extend(swapped_for(parts))  # "use `uv` instead of `pip`": `pip install`
    commands = [commit_pattern(rule) if c == "git commit" else c for c in commands]
    commands = _lacking_option(rule, parts, commands, mentions)
    if asks_for_draft(rule):
        commands = [command for command in commands if command != PR_CREATE]
    if any(_PR_TEMPLATE.search(name) for name in (*files, *asked)):
        # "Use the template at `.github/PULL_REQUEST_TEMPLATE/x.md`": a pull request's
        # body, written where the request is made
        files = [name for name in files if not _PR_TEMPLATE.search(name)]
        asked = [name for name in asked if not _PR_TEMPLATE.search(name)]
        commands.append(PR_CREATE)
    if not files and not commands:
        files = asked  # "after editing `x.md`, commit `x.lock.yml`": x.md is the place
    return Triggers(files=tuple(dict.fromkeys(files)), commands=tuple(dict.fromkeys(commands)))


# A section about one git or pull-request step, by its heading: "Commit message
# convention", "Committing", "Pull Requests", "PR titles". A rule under it that names no
# place of its own is about that step ("Avoid `feat:` prefixes", "Keep PRs small").
_COMMIT_HEADING = re.compile(r"(?<![\w-])commit(?:s|ting)?\b", re.I)  # not "pre-commit"
# Working on a request already made: reviewing it, iterating on its feedback.
_REVIEW = re.compile(r"\breview(?:s|ing|ers?)?\b|\biterat\w*|\bfeedback\b", re.I)
_PR_HEADING = re.compile(r"(?<![\w$-])PRs?(?![\w-])|\bpull[- ]requests?\b", re.I)
_ISSUE_HEADING = re.compile(r"\bissues?\b", re.I)
# Writing on an issue or a pull request already there: "Commenting on issues and PRs".
_COMMENTING = re.compile(r"\bcomment(?:s|ing)?\b|\brepl(?:y|ies|ying)\b|\brespond(?:ing)?\b", re.I)
# Where a comment on an issue or a pull request is written.
COMMENT_ACTIONS = ("gh pr comment", "gh issue comment", "gh pr review")


def heading_action(heading: str, rule: str) -> tuple[str, ...]:
    """The one git or pull-request action ``heading`` names for ``rule``, or () when it
    names none or both ("Pull Request & Commit Guidelines" leaves each rule its own
    words), when it is about reviewing ("PR Review Guidelines": no request is made
    there), or when the rule asks for a draft."""
    plain = outside_code(heading)  # "`$pr-draft-summary`" is a name, no pull request
    commit, pull = _COMMIT_HEADING.search(plain), _PR_HEADING.search(plain)
    if _COMMENTING.search(plain) and (pull or _ISSUE_HEADING.search(plain)):
        # "Commenting on issues and PRs": what a comment says, unless the rule is about
        # making a request or an issue ("Open every PR with the repository template")
        made = _made(rule)
        said = _COMMENTING.search(outside_code(rule)) or not made
        return (*made, *(COMMENT_ACTIONS if said else ()))
    if commit and not pull and not _WHEN_TO.search(plain) and not _ASKS_COMMIT.search(rule):
        return (commit_pattern(rule),)
    if pull and not commit and not _REVIEW.search(plain) and not asks_for_draft(rule):
        return (PR_CREATE,)
    return ()


# The work done with git and pull requests, which no folder's or glob's files show.
_GIT_WORK = re.compile(
    r"\b(?:push(?:es|ing|ed)?|commit(?:s|ting|ted)?|uncommitted|pull[- ]requests?|PRs?"
    r"|merg(?:e|es|ing)|rebas(?:e|es|ing)|branch(?:es)?)\b",
    re.I,
)


def _made(rule: str) -> tuple[str, ...]:
    """The commands making the pull request or the issue ``rule`` speaks of making."""
    plain = outside_code(rule)
    made = [PR_CREATE] if _PULL_REQUEST.search(plain) else []
    return (*made, *([_ISSUE_CREATE] if _MAKING_ISSUE.search(plain) else []))


def about_git_work(rule: str) -> bool:
    """Whether ``rule`` speaks of git or pull-request work ("NEVER stop before pushing",
    "Keep commits focused on a single change"): no file of a folder or a glob is where
    its mistake is made."""
    return bool(_GIT_WORK.search(outside_code(rule)))


# A sign-off a commit carries: "`git commit -s`", "--signoff", "DCO sign-off".
_SIGN_OFF = re.compile(r"\bgit commit -s\b|--signoff\b|\bsign(?:ed)?[- ]off\b|\bDCO\b", re.I)


def _asks_for_sign_off(rule: str) -> bool:
    """Whether ``rule`` asks for commits signed off ("Always use `git commit -s`", "Never
    commit without a DCO sign-off"), rather than forbidding the sign-off."""
    if not _SIGN_OFF.search(rule):
        return False
    return not any(
        part.role is Role.FORBIDS
        and _SIGN_OFF.search(part.text)
        and not re.search(r"\bwithout\b", part.text, re.I)
        for part in stance(rule)
    )


def commit_pattern(rule: str) -> str:
    """The pattern of the commits ``rule``, written at ``git commit``, is about: those whose
    message breaks it when it is about the type a message opens with (asked for, as in
    "Use Conventional Commits", or forbidden, as in "Do not use conventional commits"),
    those with no sign-off when it asks for one ("Always use `git commit -s`"), else every
    commit."""
    if not _CONVENTIONAL.search(rule):
        return UNSIGNED_COMMIT if _asks_for_sign_off(rule) else "git commit"
    forbids = any(
        part.role is Role.FORBIDS and _CONVENTIONAL.search(part.text) for part in stance(rule)
    )
    return TYPED_COMMIT if forbids else UNTYPED_COMMIT


# An option a rule asks to be passed: "always pass `--run`", "Always include `-tags
# test_dep` when running tests", "use the `--frozen` flag".
_ASKED_OPTION = re.compile(
    r"\b(?:pass|include|use|add|specify|with)\s+(?:the\s+)?`(--?[A-Za-z][\w-]*)(?:[ =][^`]*)?`",
    re.I,
)
# A rule on running tests ("Always include `-tags x` when running tests") is about the
# test command, wherever it stands: no edit of a test file shows its mistake.
RUNNING_TESTS = re.compile(
    r"\brun(?:s|ning)?\s+(?:the\s+|all\s+)?(?:\w+\s+)?(?:tests|test\s+suites?)\b"
    # "Do not start repository-wide lint, typecheck, tests, builds"
    r"|\bstart(?:s|ing)?\s+(?:[\w-]+,?\s+){0,4}tests\b",
    re.I,
)
# Running tests or building, said in words: the language's command is where it is done
# ("Always include `-tags x` when running tests", "Use `--bin deno` to build only ...").
_LANGUAGE_COMMANDS = (
    (RUNNING_TESTS, {"go": "go test", "rust": "cargo test"}),
    (
        re.compile(r"\b(?:to|when|while|before)\s+build(?:ing)?\b", re.I),
        {"go": "go build", "rust": "cargo build"},
    ),
)


def _lacking_option(
    rule: str, parts: list[Part], commands: list[str], mentions: Mentions
) -> list[str]:
    """``commands`` as the commands run without the option ``rule`` asks for ("A bare
    `pnpm test` ...; always pass `--run`": every ``pnpm test`` with no ``--run``), the
    test or build command of the repo's language for "when running tests" or "to build";
    ``commands`` when the rule asks for no option."""
    asked = [
        found.group(1)
        for part in parts
        if part.role is Role.ASKS
        for found in _ASKED_OPTION.finditer(part.text)
    ]
    if len(set(asked)) != 1:
        return commands
    if not commands:
        language = main_language(list(mentions.files.paths)) or ""
        commands = [
            by_language[language]
            for said, by_language in _LANGUAGE_COMMANDS
            if said.search(outside_code(rule)) and language in by_language
        ][:1]
    lacking = [without_option(command, asked[0]) for command in commands]
    return [pattern for pattern in lacking if pattern] if all(lacking) else commands


def asks_for_draft(rule: str) -> bool:
    """Whether ``rule`` asks for a draft pull request ("Open PRs as drafts"), rather than
    forbidding one ("Do not create draft PRs to bypass it")."""
    return any(
        part.role is Role.ASKS and _DRAFT.search(outside_code(part.text)) for part in stance(rule)
    )


def _without_modules(part: Part) -> Part:
    """``part`` without the modules it names to import from ("instead of importing from
    `vite`"): a module is no command, whatever program shares its name."""
    if not re.search(r"\bimport", part.text, re.I):
        return part
    return Part(part.role, _MODULE.sub(" ", part.text))


def _produces(text: str) -> bool:
    """Whether the part asks the agent to make something new ("Add usage examples in
    `examples/`", "Create an example in `examples/`", "Update relevant docs in
    `content/`", "Mirror changes into `x.md`"): the mistake is not making it, which no
    edit of that folder shows."""
    return _opens_on(text, _PRODUCING, _PRODUCING_SKIP)


_PRODUCING = frozenset(
    {
        "add",
        "create",
        "update",
        "document",
        "record",
        "note",
        "mention",
        "mirror",
        "sync",
        "propagate",
    }
)
_PRODUCING_SKIP = frozenset({"also", "then", "always", "and", "first"})


def asks_to_read(text: str) -> bool:
    """Whether the part asks the agent to read something ("Make sure to read the relevant
    tests in `tests/`", "Do a quick scan of `examples/`"): what it reads is context for
    the work, not where a mistake is made."""
    return _opens_on(text, _READING, _READING_SKIP)


def _opens_on(text: str, verbs: frozenset[str], skipped: frozenset[str]) -> bool:
    """Whether the first word of ``text`` that is not in ``skipped`` is one of ``verbs``."""
    first = next((word for word in words(text) if word not in skipped), "")
    return first in verbs


_READING = frozenset(
    {"read", "reread", "re-read", "scan", "consult", "look", "study", "skim", "inspect", "examine"}
)
_READING_SKIP = _PRODUCING_SKIP | {"make", "sure", "to", "do", "a", "quick", "please"}


def _runs(text: str, mentions: Mentions, folder: str) -> bool:
    """Whether ``text`` names a program to run in a code span (`` `npm run test` ``)."""
    return any(
        mentions.is_program(span.split()[0], folder) for span in _SPAN.findall(text) if span.split()
    )


def _files_only(text: str, mentions: Mentions, folder: str) -> str:
    """``text`` without the commands it asks for: the script a rule asks to run
    (`` `uv run python scripts/check.py` ``) is no file it is about."""

    def blank(match: re.Match[str]) -> str:
        first = [w for w in match.group(1).split() if "=" not in w][:1]
        run = first and (first[0].startswith("./") or mentions.is_program(first[0], folder))
        return " " if run else match.group(0)

    return _SPAN.sub(blank, text)
