"""Whether a sentence of an instruction file is a rule, and what it forbids or asks for.

A lesson is an instruction: "Never hand-edit `*.lock.yml`", "Use `uv run pytest`",
"Prefer `pathlib` over `os.path`", "Token counting must mirror the request". An
instruction file also holds descriptions ("`pytest` in `tests/`, via `make test`"),
lists of links, table rows, set-up steps and lead-ins; those stay in the file, each with
a reason (``Left``). The test is on words, never on what this machine has installed: a
sentence is a rule when, past an opening clause ("When you edit X, ..."), it starts with
an imperative verb or "always"/"never"/"only", or when it says "must", "should",
"avoid", "prefer", "don't", "instead of", "rather than", "need to".

``stance`` splits a rule into the parts that name what it forbids, the situation it is
about, what it asks for, and what it merely points at; import takes a rule's triggers
from the first two (and files it edits from the third), so a rule fires where the
mistake is made, never on the very command it tells the agent to run.
"""

from __future__ import annotations

import enum
import itertools
import re
from dataclasses import dataclass

from lessons_core.importers.markdown_text import outside_code, split_rationale
from lessons_core.importers.mentions import DEVELOPER_TOOLS

# Verbs an instruction starts with (the imperative mood), lower case.
IMPERATIVES = frozenset(
    """add adopt align annotate anchor append apply ask assert attach avoid be bump call
    cap catch change check choose cite clean clear close collapse combine commit compare
    lint format examine inspect invoke pay augment
    compute configure confirm consider consolidate convert copy cover create cross-reference
    declare default defer define delete deprecate derive describe design document don't
    double-check drop duplicate edit emit enable enforce ensure escape exclude expand
    explain export hand-edit hardcode introduce mock modify reintroduce rely touch
    cross-link demonstrate end expect focus model pair parse reason reach install clone
    activate download bootstrap stack promote allow disclose clamp inset size access
    freeze version answer provide stay work pick reply respond enclose interleave widen
    reserve lead question thread try decline refuse prioritize stick aim post bundle
    expose extend extract favor favour fetch file fill filter fix flag follow forward gate
    give group guard handle hide hold ignore implement import include inline insert
    isolate keep label leave let limit link list load lock log look make mark match
    measure merge mention migrate mirror mock move name narrow nest normalize normalise
    note omit open order organize override parametrize pass patch pin place point prefer
    prefix preserve prevent print process produce propagate prove push put raise re-run
    read rebase rebuild recompile record reduce refactor reference regenerate register
    reject release remove rename render reorder replace report reproduce request require
    reset resolve respect restore restrict retry return reuse review rewrite route run
    save scope search send separate set show simplify skip snapshot sort specify split
    start state stop store structure stub submit suppress surface switch sync tag take
    target test think throw trim treat trigger type typecheck update upgrade use validate
    verify wait warn watch wrap write""".split()
)
_OPENERS = frozenset(
    """when whenever if before after while in for once unless during on with within
    across outside inside where to as until even""".split()
)
# Words that make a sentence a rule wherever they stand. "never", "always", "instead of"
# and "don't" are not among them: descriptions use them too ("the check never runs",
# "PRs that don't touch it"); they make a rule where the sentence starts with them. "To
# avoid" is a purpose ("the script sets `CI=1` to avoid watch mode"), no instruction.
_NORMATIVE_WORDS = re.compile(
    r"\b(?:must|should|shouldn't|(?<!\bto )avoid|(?<=\btry to )avoid|prefer|needs? (?:to|a|an)|"
    r"have to|has to|"
    r"is required|are required|not allowed|forbidden|mandatory|disallowed|"
    r"not permitted|prohibited|belongs? (?:in|on|behind|under))\b",
    re.I,
)
# A rule word in capitals: "Client code NEVER imports server code" is no account of what
# the code does; a description does not shout.
_SHOUTED = re.compile(r"\b(?:NEVER|ALWAYS|MUST|SHOULD|DO NOT|DON'T|NOT|REQUIRES?|REQUIRED)\b")
# What a thing does not call for, said of it: "Additive changes do NOT require a bump".
_NOT_NEEDED = re.compile(r"\b(?:does|do)\s+not\s+(?:require|need)\b", re.I)
# What "we" should do is the project's norm ("We should import at the top of the file");
# what "we" do is its account of itself ("We use uv").
_OUR_NORM = frozenset({"should", "must", "never", "always"})
_RELATIVE_BEFORE = re.compile(r"\b(?:that|which|who)\s+$", re.I)
_STARTS = frozenset({"always", "never", "only", "do", "don't", "please", "no"})
_COPULA = frozenset({"is", "are", "was", "were"})
# A contrast that makes a statement a norm: "Commit messages explain why, not what".
_CONTRAST = re.compile(r",\s+not\s+\w")
# Verbs whose object is a clause: "Ensure pnpm is used".
_CLAUSE_VERBS = frozenset({"ensure", "verify", "confirm"})
_EXISTS = _COPULA | {"exists", "exist"}
_ADVERBS = frozenset({"also", "then", "first", "still", "just"})
_ASIDE = re.compile(r"\([^()]*\)")
# Words that, near a sentence's start, point at something said before it.
_POINTING = frozenset({"it", "them", "they", "these", "those"})
_BACK_REFERENCES = _POINTING | {"either", "there"}
_CONTEXT_BOUND = frozenset(
    """this that these those it its they them such therefore so otherwise also
    additionally then here there thus hence both similarly likewise""".split()
)
# A thing shown beside the sentence, not in it: "follow this pattern", "Run this loop".
_SHOWN_NEARBY = re.compile(
    r"\bthis\s+(?:pattern|example|snippet|format|template|structure|loop|procedure|"
    r"checklist|sequence)\b",
    re.I,
)
# "this" standing for what was shown: "Run this before declaring a task complete" (after
# a name the text opens on, for that name: "`runInlineTests` - use this for ...").
_THIS_SHOWN = re.compile(
    r"\b(?:run|use|do|follow|repeat|apply|call)\s+this(?=\s+(?:before|after|when|"
    r"whenever|if|once|first|again|for|on|in|with|to)\b|\s*[.,;:!]|\s*$)",
    re.I,
)
# "This repository is a pnpm workspace; ...": the project itself, no earlier sentence.
_OWN_SUBJECT = re.compile(
    r"^\s*this\s+(?:repository|repo|project|codebase|monorepo|workspace|package|library|app|"
    r"crate|module)\b",
    re.I,
)
_SETUP_VERBS = frozenset({"install", "clone", "activate", "cd", "download", "bootstrap"})
_SETUP_HEADING = re.compile(
    r"(?<!mock )(?<!test )set(?:ting)?[ -]?up|install|getting started|prerequisites|"
    r"requirements\s*$|"
    r"development environment|quick ?start|building|local development|"
    # troubleshooting a machine: "Troubleshooting", "MySQL connection refused", "apt-get
    # times out or fails", "Issue: Panic in Walk"
    r"troubleshoot|common (?:issues|problems)|^\W*(?:issue|problem)s?:|"
    r"\b(?:fails|failed|refused|times out|timed out|not found|not working)\s*$",
    re.I,
)
# How to do a task, not a mistake to catch: "To move to a newer commit, bump X, then Y"
# (a purpose clause leading a recipe), "If `x` is not available, use `y`" (a fallback for
# a machine that lacks a tool).
_RECIPE = re.compile(r"^to [a-z]+\b[^,]*,")
# "For CFG tests, enable the `cfg` feature: `cargo test ...`": a purpose, then only the
# command that serves it (a situation such as "Before committing, ..." is a rule's).
_PURPOSE_COMMAND = re.compile(r"^for\b[^,]*,[^:]*:\s*`[^`]+`\.?$", re.I)
# "Use the following scripts ...": it introduces what comes after it.
# A clause that ends where its object should be: "As a TypeScript expert, you should:"
# (its colon dropped), which leads into the list below it.
_OBJECTLESS = re.compile(
    r"\b(?:you|we|agents?)\s+(?:should|must|shall|need to|have to|will)\s*[.!]?\s*$", re.I
)
_FORWARD = re.compile(
    r"\b(?:the following|as follows|listed below)\b"
    r"|\b(?:steps|items|rules|instructions|commands|checks|checklist)\s+below\b",
    re.I,
)
# What the sentence before said, or its case: "If not, ...", "Run before every commit."
# (run what?).
_LEANING = re.compile(
    r"^\W*(?:if not|if so|in that case|in this case|in either case)\b"
    r"|^\W*(?:run|execute|invoke|call)\s+(?:it\s+)?(?:before|after|when|whenever|once|on)\b"
    # "Usually use for `play.ts`": use what?
    r"|^\W*(?:\w+ly\s+)?use\s+(?:for|with)\b",
    re.I,
)
# "`requirements.ts` is a manifest: ...": a definition; a "must" in it is what it defines.
_DEFINITION = re.compile(r"^`[^`]+`\s+(?:is|are)\s+(?:a|an|the)\b(?![^;]*;)", re.I)
# Verbs that are nouns too, and the words after them that make the pair a noun phrase:
# "Test files in `scenarios/` cite ...", "Model architectures implemented in ...".
_NOUN_VERBS = frozenset(
    "test snapshot lock log model mock list name type record report release patch tag "
    "build source link label request focus work lead question thread commit".split()
)
_DETERMINERS = frozenset("the a an that this these those your each every all any its".split())
_NOUN_HEADS = frozenset(
    "files file names cases suites fixtures helpers utilities outputs results entries "
    "messages message levels types architectures state".split()
)
_FALLBACK = re.compile(
    r"^if\b[^,]*\b(?:is not|isn't|are not|aren't)\s+(?:available|installed|present)\b", re.I
)
# An entry of a list of commands: what it does, a colon, and only the command.
_ASSIGNED = re.compile(r"^[A-Za-z_]\w*=")
_COMMAND_ENTRY = re.compile(r"^[^:`]+:\s*`([^`]+)`\.?$")
# What a command list's entry runs: a developer tool, or one in a folder it enters first
# ("Run Python tests: `cd python && uv run pytest`").
_ENTRY_PROGRAMS = DEVELOPER_TOOLS | {"cd"}
_FLOW_HEADING = re.compile(r"\b(?:flow|pipeline|lifecycle|architecture|overview)\b", re.I)
# A heading naming a procedure: "Adding New Packages", "How to release", "Steps",
# "Example plan: adding a method on Table".
_PROCEDURE_HEADING = re.compile(
    r"(?:^|:\s*)(?:[a-z]+ing\b|how to\b|steps?\b)|^(?:example|sample)\b", re.I
)
# What a task needs before it runs: "Requirements: `--tags=examples` and databases".
_NEEDS_LABEL = re.compile(r"^(?:requirements|prerequisites|requires|dependencies)\s*:", re.I)
# A fact pointed out: "Note that sqlc syntax is not handled here".
_NOTE_THAT = re.compile(r"^note\s+that\b", re.I)
# A heading that is one name of the code ("TestReplay", "`format.go`", "walk()"); a bare
# file name is the heading a rule file's own name gives, which names no code.
_IDENTIFIER = re.compile(r"[A-Z][a-z]+[A-Z]\w*|\w+\(\)|`[^`\s]+`")
# Words of a heading that point at the list below it: "Never use these commands".
_LISTED = re.compile(r"\b(?:these|those|the following|below|list)\b", re.I)
_PROHIBITING_HEADING = re.compile(
    r"^(?:do not|don'?ts?|never|avoid|must not|no(?=\s)|anti-?patterns?|forbidden|prohibited|"
    r"not allowed|things to avoid|what not to do)\b",
    re.I,
)
# A heading over the project's conventions: each labelled bullet below it says how a
# thing is written ("Components: PascalCase"), which is a rule however it is phrased.
_CONVENTIONS_HEADING = re.compile(
    r"\b(?:conventions?|idioms?|code style|coding style|style guide|naming)\b", re.I
)
_LINK_ONLY = re.compile(r"^\s*(?:\[[^\]]*\]\([^)]*\)[\s,;.]*)+$")
# A line that pulls another file in ("@AGENTS.md", "@.github/copilot-instructions.md"):
# the harness reads that file, whose rules are imported from it.
_INCLUDE = re.compile(r"^\s*@[\w./-]+\s*$")
# A pointer to reading material: a verb of looking at a named place, then only why to
# look ("Use `examples/` to see common usage", "Check `scripts/` directory for tools").
# "Use `uv` for installs" is a rule: only a verb of looking takes the "for", and a "for"
# that goes on to a situation ("... for breaking changes before a release") or a rule
# word is no pointer.
_LOOKED_AT = r"(?:the\s+)?`[^`]+`(?:\s+(?:directory|folder|file|dir))?\s+"
# A document named bare: "Use AGENT_INSTRUCTIONS.md for the current command policy".
_DOCUMENT = r"(?:the\s+)?`?[\w./-]+\.(?:md|mdx|rst|txt)`?\s+"
_READING_POINTER = re.compile(
    r"^(?:(?:use|check|see|consult|browse|explore|read|refer to|look (?:at|in|through))\s+"
    + _LOOKED_AT
    + r"to\s+(?:see|understand|learn|find|get|discover|explore)\b"
    r"|(?:check|see|consult|browse|explore|read|refer to|look (?:at|in|through))\s+"
    + _LOOKED_AT
    + r"for\s+(?![^.]*\b(?:before|after|when|whenever|if|unless|while|must|should|never|"
    r"always)\b)[^`.]+\.?\s*$"
    r"|use\s+" + _DOCUMENT + r"for\s+[^`.]+\.?\s*$"
    # "Read `../AGENTS.md` first.": the file to read is loaded, or imported, itself
    r"|(?:always\s+)?read\s+(?:the\s+)?(?:`[^`]+`|[\w./-]+\.md)\s+first\.?\s*$)",
    re.I,
)
# A pointer to what a command prints: its help ("Run `bd agent --help` for its commands",
# "Use `x --help` to see all commands") or more of the context ("Run `bd prime` for full
# workflow context"). It is read when needed; no mistake is made by not running it.
_HELP_POINTER = re.compile(
    r"^(?:run|use|try|call)\s+`[^`]*\s(?:--help|-h|help)`\s+(?:for|to\s+(?:see|list|learn|find))\b"
    r"|^(?:run|use)\s+`[^`]+`\s+(?:for|to\s+(?:see|get))\s+(?:the\s+)?(?:full|more|complete|"
    r"detailed|additional|current)\b[^`.]*\b(?:context|details|information|info|docs|"
    r"documentation|help|usage|reference|options|instructions|overview)\.?\s*$",
    re.I,
)
_WORD = re.compile(r"[A-Za-z][\w'-]*")
# A verb alone, or with one word: "Use", "Use judgment." (but "Never force-push." forbids).
_BARE_VERB = re.compile(
    r"^\s*(?!(?:never|always|only|don't|do|no)\b)[A-Za-z]+(?:\s+[\w-]+)?[.!]?\s*$", re.I
)
# An entry of a glossary, file or flag list: a name in backticks (or several, "`--match` /
# `-m`"), then a colon or a dash. A name may also stand bare when it is one word in lower
# case, as a list of make targets or scripts writes it ("test: run the suite with `x`").
_ENTRY = re.compile(
    r"^\s*(?:`[^`]+`(?:\s*[/,]\s*`[^`]+`)*|[a-z][\w.-]*)\s*(?::|\s[-–—])\s+(\S.*)$", re.S
)
# A quotation opens the text: an example of what someone says ('"Refactor X" → "Ensure
# tests pass"'), not an instruction to the agent.
_QUOTED = re.compile(r"^\s*[\"“]")
# A quotation of several words: what it says is mentioned, not said.
_QUOTATION = re.compile(r"[\"“][^\"”]*\s[^\"”]*[\"”]")
# A mapping opens the text: "list + scrollbar → `joinScrollbar`", an entry of a table
# written as a list.
_MAPPING = re.compile(r"^[^→]{1,40}?\s(?:→|->|=>)\s")
# Words that open a clause of their own: a copula after one is that clause's ("Use
# `.optional()` unless `null` is meaningful"), not a sign the first word is a noun.
_SUBORDINATORS = frozenset("unless if when whenever because until where while so".split())
# The name of an entry that is a place: a path or a glob ("`sqlite/upstream/`", "`*.snap`").
_PLACE_NAME = re.compile(r"^`([^`\s]*(?:/|\*)[^`\s]*|[^`\s]+\.[A-Za-z]\w{0,5})`$")
# A word that points back at what an entry names: "Do not modify these".
# With the noun after it, which the name it stands for replaces too: "these files".
_POINTER = re.compile(
    rf"\b(?:{'|'.join(sorted(_POINTING))})\b(?:\s+(?:files|directories|folders|paths|dirs)\b)?",
    re.I,
)
# Verbs that take a gerund as their object: when or whether to do it.
_ASPECT = frozenset(
    "avoid prefer consider keep stop start try continue finish skip begin mind resume use".split()
)
# Words that follow a noun phrase's head: "Snapshot testing with", "Unit testing of".
_AFTER_NOUN = frozenset("with for in of and on to via is are uses under".split())
# Gerunds that say how, after a verb: "Commit using Conventional Commits".
_MANNER = frozenset({"using", "following", "according"})
# A label before a colon: a few words ("Mocks: ..."), a word and a name ("Rule `x`: ..."),
# or a path ("docs/: Do NOT edit `docs/` directly").
_LABEL = re.compile(
    r"^[A-Z][\w&/'., -]{0,30}:\s+(\S.*)$|^[A-Z][\w-]*\s+`[^`]{1,40}`:\s+(\S.*)$"
    r"|^[\w.-]+/[\w./-]*:\s+(\S.*)$",
    re.S,
)
# A heading forbidding one act, its bullets naming what not to do it to: "Do Not Edit".
_FORBIDDEN_ACT = re.compile(r"^(do not|don't|never)\s+([a-z]+)$", re.I)
# A label that forbids what follows it: "FORBIDDEN: `uv pip install`", "Never: ...".
_PROHIBITING_LABEL = re.compile(
    r"^(?:forbidden|prohibited|never|don'?t|do not|avoid|not allowed)\s*:\s+(\S.*)$", re.I | re.S
)


class Left(enum.Enum):
    """Why a piece of an instruction file stays there: (code, reason)."""

    DESCRIPTION = ("description", "it describes the project; it asks nothing of the agent")
    LEAD_IN = ("lead-in", "it introduces what follows it")
    LINK_LIST = ("link-list", "it points at reference material, read when needed")
    INCLUDE = ("include", "it pulls another file in, whose rules come from that file")
    TABLE = ("table", "a table row is reference material, read in the file")
    SETUP = ("setup-step", "it is a set-up step, done once, not a mistake to catch")
    CONTEXT = ("context-bound", "it leans on the sentences around it")
    CODE = ("code-block", "a code block cannot live in a one-line rule")
    HEADING = ("heading", "a heading names the topic of the rules below it, and is no rule")

    @property
    def code(self) -> str:
        return self.value[0]

    @property
    def reason(self) -> str:
        return self.value[1]


def words(text: str) -> list[str]:
    """The words of ``text`` outside its code spans, lower case."""
    return [word.lower() for word in _WORD.findall(outside_code(text))]


def main_clause(text: str) -> list[str]:
    """The words of ``text`` past its opening clause ("When you edit X, do Y" -> do Y)
    and the adverbs before its verb ("Also read", "Silently ignore")."""
    plain = _ASIDE.sub(" ", outside_code(text))  # a comma in parentheses ends no clause
    found = [word.lower() for word in _WORD.findall(plain)]
    for _ in range(3):  # "If X is stale, or if Y changed, rebuild": a second opening
        if found[:1] in (["or"], ["and"]) and found[1:2] and found[1] in _OPENERS:
            found = found[1:]
        if not found or found[0] not in _OPENERS or "," not in plain:
            break
        plain = plain.split(",", 1)[1]
        found = [word.lower() for word in _WORD.findall(plain)]
    while (
        len(found) > 1
        and found[0] not in IMPERATIVES
        and (found[0] in _ADVERBS or found[0].endswith("ly"))
    ):
        found = found[1:]
    return found


def is_normative(text: str) -> bool:
    """Whether ``text`` (plain, cleaned) instructs: an imperative or a rule word. What
    "we" do is the project's account of itself, not an instruction."""
    entry = _ENTRY.match(text)
    if entry:  # "`vitest.config.ts`: Test runner configuration": what a name is
        return says_a_rule(entry.group(1))
    if _QUOTED.match(text) or _MAPPING.match(outside_code(text)):
        return False
    if _only_not_needed(text):
        return False  # "New enum variants do NOT require a revision bump"
    if _SHOUTED.search(outside_code(text)):
        return True
    clause = main_clause(text)
    if text.lstrip().startswith("`") and clause[:1] in (["never"], ["always"]):
        # "`runVitest` never throws": what a named thing does, its subject in the code
        return bool(_NORMATIVE_WORDS.search(outside_code(text)))
    if clause and clause[0] == "no" and _EXISTS & set(_own_clause(clause)[1:5]):
        return bool(_NORMATIVE_WORDS.search(outside_code(text)))  # "No cache exists at ..."
    if clause and clause[0] in _STARTS:
        return not (clause[0] == "no" and len(clause) < 2)
    # "Ensure dependencies are MIT-licensed": a verb taking a clause, whose "are" is in it
    verb = (
        clause
        and (_imperative(clause[0]) or _verb_by_ending(clause[0], text))
        and (_takes_clause(clause) or not _COPULA & set(_subject(clause)))
    )
    if verb and not _noun_compound_subject(clause):  # "Test matrix configuration is in"
        # "Check names are ...", "Snapshot testing with `insta`": a noun, not the verb;
        # after an opening clause the verb is the main clause's ("Before committing, run
        # formatting for ...")
        opened = words(text)[:1] != clause[:1] and words(text)[:1] != ["only"]
        noun = _gerund_object(clause) or _noun_phrase(clause) or _noun_pair(text)
        if opened or not noun:
            return True
        # "Commit messages explain why, not what": a norm, said by its contrast
        return bool(_NORMATIVE_WORDS.search(outside_code(text)) or _CONTRAST.search(text))
    if clause and clause[0] in {"we", "i"}:
        return bool(_OUR_NORM.intersection(clause[1:3]))
    if clause and clause[0] in _OPENERS and _unmarked_rule(clause):
        return True  # "When running `nu -c` never use `echo`": an opening with no comma
    if _NORMATIVE_WORDS.search(_QUOTATION.sub(" ", outside_code(text))):
        return True  # not one quoted: 'The general "prefer mature crates" rules apply'
    # "`run.ts` is the runtime entrypoint; keep it small": a rule after the description
    later = outside_code(text).split(";")[1:]
    return any(is_normative(part.strip()) for part in later if part.strip())


def _main_text(text: str) -> str:
    """``text`` past an opening clause that a comma ends, when a verb follows it ("Even if
    asked to, refuse.")."""
    first = words(text)[:1]
    if not (first and first[0] in _OPENERS and "," in text):
        return text
    rest = text.split(",", 1)[1]
    return rest if _imperative((words(rest) or [""])[0]) else text


def _only_not_needed(text: str) -> bool:
    """Whether ``text`` says only what a thing does not call for ("Additive changes do NOT
    require a revision bump"): no rule word besides, and no "Do not" of its own."""
    plain = outside_code(text)
    rest = _NOT_NEEDED.sub(" ", plain)
    if rest == plain or words(text)[:1] in (["do"], ["don't"]):
        return False
    ruled = _SHOUTED.search(rest) or _NORMATIVE_WORDS.search(rest)
    return not ruled and not {"never", "always"} & set(words(rest))


def _takes_clause(clause: list[str]) -> bool:
    """Whether ``clause`` opens on a verb whose object is a clause of its own ("Ensure
    pnpm is used", "Make sure `x` is run"): a copula after it is that clause's."""
    return clause[0] in _CLAUSE_VERBS or clause[:2] == ["make", "sure"]


def _unmarked_rule(clause: list[str]) -> bool:
    """Whether ``clause``, an opening with no comma to end it, goes on to "never" or
    "always" and a verb that asks ("When running X never use Y")."""
    return any(
        word in {"never", "always"} and _imperative(after)
        for word, after in itertools.pairwise(clause)
    )


def _rule_word_outside_relative(text: str) -> bool:
    """Whether ``text`` holds a rule word that is not in a relative clause: "Tests that
    must have no access to X" says what the tests are, and asks nothing."""
    plain = outside_code(text)
    return any(
        not _RELATIVE_BEFORE.search(plain[: found.start()])
        for found in _NORMATIVE_WORDS.finditer(plain)
    )


def _imperative(word: str) -> bool:
    """Whether ``word`` is an imperative verb, "re-" before one too ("Re-snapshot")."""
    return word in IMPERATIVES or (word.startswith("re-") and word[3:] in IMPERATIVES)


def _verb_by_ending(word: str, text: str) -> bool:
    """Whether ``word``, a verb of no list, is one by its ending ("Capitalize",
    "Stringify"): no noun ends in "-ize" or "-ify" past the short "size" and "prize",
    but a name does, and stands before another capitalised word ("Testify Suite")."""
    if len(word) <= 5 or not word.endswith(("ize", "ify")):
        return False
    after = re.search(rf"\b{re.escape(word)}\s+(\w)", outside_code(text), re.I)
    return not (after and after.group(1).isupper())


def _subject(clause: list[str]) -> list[str]:
    """The words after ``clause``'s first where a copula would make it a noun: the next
    two ("Check names are ..."), or, after "and", the next four ("Focus and UI state is
    managed ...")."""
    own = _own_clause(clause)
    return own[1:5] if own[1:2] == ["and"] else own[1:3]


def _own_clause(clause: list[str]) -> list[str]:
    """``clause`` up to the first word that opens another clause."""
    cut = next((n for n, word in enumerate(clause) if word in _SUBORDINATORS), len(clause))
    return clause[:cut]


def _instructs(text: str, heading: str = "") -> bool:
    """Whether ``text`` instructs; a labelled bullet ("Mocks: Use mocks sparingly") by
    what follows its label, unless the label is a clause of its own ("Keep views thin:
    logic goes in `services/`"): one or two words before a colon ("Test files:",
    "Snapshot tests:") name a topic, even when the first could be a verb."""
    labelled = after_label(text)
    if prohibited_by_label(text):
        return True  # "FORBIDDEN: `uv pip install`"
    if not labelled:
        return is_normative(text)
    if _CONVENTIONS_HEADING.search(heading) and words(labelled):
        # "Receiver names: 1–2 letters" under "Go Idioms" says what to write; "Labels:
        # `fix`, `feat`" only lists names
        return True
    label = text[: len(text) - len(labelled)].rstrip().rstrip(":")
    named = words(label)[-1:]
    if len(words(label)) > 1 and words(labelled)[1:2] == named:
        return False  # "Client middleware: Request middleware in `x`": a kind of the label
    if named[:1] in (["alternative"], ["alternatively"]):
        return False  # "Alternative: Import `x` directly": another way, not the rule
    # "Note for external contributors: The feature depends on ...": a note, not a verb
    clause = len(label.split()) >= 3 and words(label)[0] != "note"
    return is_normative(labelled) or (clause and is_normative(label))


def _noun_compound_subject(clause: list[str]) -> bool:
    """Whether a verb-looking first word is the first noun of a compound that is the
    subject of an "is" or "are", with no article between ("Test matrix configuration is
    in `tox.ini`"; "Test the output is sorted" asks)."""
    compound = clause[0] in _NOUN_VERBS and clause[1:2] and clause[1] not in _DETERMINERS
    return bool(compound and _COPULA & set(clause[2:4]))


def _noun_phrase(clause: list[str]) -> bool:
    """Whether a verb-looking first word heads a noun phrase ("Test files in `x/` cite",
    "Model architectures implemented in"): a noun after it that is no object without an
    article, or a plural noun followed by a participle."""
    if len(clause) < 3 or clause[0] not in _NOUN_VERBS:
        return False
    participle = clause[1].endswith("s") and clause[2].endswith("ed")
    return clause[1] in _NOUN_HEADS or (participle and clause[2] not in IMPERATIVES)


def _noun_pair(text: str) -> bool:
    """Whether ``text`` is two words joined by "and" and nothing more, the second no verb
    ("Scope and expectations", a heading), where "Lint and format" asks for two things."""
    found = _PAIR.match(text)
    return found is not None and not _imperative(found.group(1).lower())


_PAIR = re.compile(r"^\W*[A-Za-z]+\s+and\s+([A-Za-z]+)\W*$")


def _gerund_object(clause: list[str]) -> bool:
    """Whether the verb-looking first word is a noun before a gerund ("Snapshot testing",
    "Unit testing"): a verb takes a gerund only when it says when or whether to act
    ("Avoid using", "Keep running")."""
    return (
        len(clause) > 1
        and clause[1].endswith("ing")
        and clause[1] not in _MANNER
        and clause[0] not in _ASPECT
        and (len(clause) == 2 or clause[2] in _AFTER_NOUN)  # not "examine existing tests"
    )


def after_label(text: str) -> str:
    """``text`` past a short label of a few words and a colon ("Mocks: Use mocks as
    sparingly as possible" -> "Use mocks ..."), or "" when it has none: a list of
    labelled bullets says its rules after the label."""
    found = _LABEL.match(text)
    return next((group for group in found.groups() if group), "") if found else ""


def prohibited_by_label(text: str) -> str:
    """What a prohibiting label forbids ("FORBIDDEN: `uv pip install`" -> "`uv pip
    install`"), or "" when ``text`` has no such label."""
    found = _PROHIBITING_LABEL.match(text.strip())
    return found.group(1) if found else ""


def entry_place(text: str) -> str:
    """The place an entry of a list of folders or files names, in backticks
    ("`sqlite/upstream/` - golden tests. Do not modify these." -> "`sqlite/upstream/`"),
    or "" when ``text`` is no such entry: the later sentences of the entry speak of it
    ("these", "them")."""
    entry = _ENTRY.match(text)
    if not entry:
        return ""
    name = text[: entry.start(1)].rstrip().rstrip(":-–—").rstrip()
    return name if _PLACE_NAME.match(name) else ""


def about_place(sentence: str, place: str) -> str:
    """``sentence`` of an entry naming the entry's ``place``, when it speaks of it: in
    the stead of its first word that points back ("Do not modify these" -> "Do not
    modify `x/`"), or before a rule that says what must or must not happen there ("Only
    assert ..." -> "In `x/`, only assert ..."). Other sentences stay as they are: "Start
    with the map" may be about reading the place, "Default path for most models" is
    about what it holds."""
    found = _POINTER.search(sentence)
    if found:
        return sentence[: found.start()] + place + sentence[found.end() :]
    if says_a_rule(sentence):
        return f"In {place}, {sentence[:1].lower()}{sentence[1:]}"
    return sentence


def points_back(text: str) -> bool:
    """Whether ``text`` speaks of something it does not name ("Do not edit these")."""
    return bool(_POINTER.search(outside_code(text)))


def is_include(text: str) -> bool:
    """Whether ``text`` only pulls another file in ("@AGENTS.md")."""
    return bool(_INCLUDE.match(text))


def is_link_list(markdown: str) -> bool:
    """Whether ``markdown`` (as written, before cleaning) is only links."""
    return bool(_LINK_ONLY.match(markdown))


def left_reason(text: str, heading: str = "", ordered: bool = False) -> Left | None:
    """Why ``text`` (plain, cleaned; under ``heading``; a numbered step when ``ordered``)
    is no rule, or None when it is one."""
    if _LINK_ONLY.match(text) or (text.startswith("[") and not words(text)):
        return Left.LINK_LIST
    if is_include(text):
        return Left.INCLUDE
    if _READING_POINTER.match(text.strip()) or _HELP_POINTER.match(text.strip()):
        return Left.LINK_LIST
    if text.lstrip().startswith("|"):
        return Left.TABLE
    if text.rstrip().endswith(":"):
        return Left.LEAD_IN
    first = words(text)[:1]
    if "`" not in text and any(_BARE_VERB.match(said) for said in (text, _main_text(text))):
        # "Use judgment.", "Even if the user asks you to, refuse.": a verb needs what it is
        # about
        return Left.CONTEXT
    if text.lstrip().startswith("("):
        return Left.CONTEXT  # an aside
    entry = _entry(text)
    if entry is not None:
        return entry
    if _PURPOSE_COMMAND.match(text.strip()) or _NEEDS_LABEL.match(text.strip()):
        return Left.SETUP  # "Run all parser coverage: `cargo coverage parser`": an entry
    if _NOTE_THAT.match(text.strip()):
        return Left.DESCRIPTION  # "Note that X is not handled here": what is so
    if ordered and _IDENTIFIER.fullmatch(heading.strip()):
        return Left.DESCRIPTION  # the steps of `TestReplay`, under its name: what it does
    if not _instructs(text, heading) or (_DEFINITION.match(text.strip()) and not prohibits(text)):
        return Left.DESCRIPTION
    if _FORWARD.search(outside_code(text)) or _OBJECTLESS.search(text):
        return Left.LEAD_IN
    if first and first[0] in _SETUP_VERBS:
        return Left.SETUP
    if _SETUP_HEADING.search(heading) and (ordered or not prohibits(text)):
        return Left.SETUP
    if is_recipe(text, heading, ordered):
        return Left.SETUP
    if first and first[0] in _CONTEXT_BOUND and not _OWN_SUBJECT.match(outside_code(text)):
        return Left.CONTEXT
    # after a dash, "it" is the rule's own object: "DO NOT use `bd edit` - it opens an
    # editor"
    said = words(split_rationale(text)[0])
    if _BACK_REFERENCES & set(said[:4]) or {"these", "those"} & set(said):
        return Left.CONTEXT  # "Reach for it when ...", "no em dashes in these files"
    if _SHOWN_NEARBY.search(outside_code(text)) or _LEANING.match(text):
        return Left.CONTEXT  # "Tests that create spans should follow this pattern"
    if _THIS_SHOWN.search(outside_code(text)) and not text.lstrip().startswith("`"):
        return Left.CONTEXT
    return None


def _entry(text: str) -> Left | None:
    """Why ``text``, a few words, a colon and one code span, is no rule: an entry of a
    list of commands ("Run all parser coverage: `cargo coverage parser`", a set-up step)
    or of names ("List item interfaces: `list/item.go`", a description). None when it is
    none, or when a longer clause ends with its example ("Size X to the content area, not
    the outer width: `innerWidth := ...`")."""
    found = _COMMAND_ENTRY.match(text.strip())
    if not found:
        return None
    program = [word for word in found.group(1).split() if not _ASSIGNED.match(word)][:1]
    if program and (program[0] in _ENTRY_PROGRAMS or program[0].startswith("./")):
        return Left.SETUP
    first = words(text)[:1]
    if first and _imperative(first[0]) and first[0] not in _NOUN_VERBS:
        return None  # "Import React testing utilities: `import * as React ...`": its example
    return Left.DESCRIPTION if _LABEL.match(text.strip()) else None


def is_recipe(text: str, heading: str = "", ordered: bool = False) -> bool:
    """Whether ``text`` (a rule by its words) is a step of how to do a task: led by a
    purpose clause ("To bump X, ...") or a missing tool ("If `x` is not available, ..."),
    or a numbered step under a heading naming a procedure ("Adding New Packages"). One
    that forbids something is a rule wherever it stands."""
    if _FALLBACK.match(text.strip()):
        return True  # its "not" is the missing tool, forbidding nothing
    if prohibits(text):
        return False
    plain = " ".join(outside_code(text).lower().split())
    if _RECIPE.match(plain):
        return True
    return ordered and bool(_PROCEDURE_HEADING.match(heading.strip()))


def prohibiting_heading(heading: str) -> bool:
    """Whether the bullets under ``heading`` are things not to do ("Do not", "Avoid",
    "Never use these"). A heading that is a prohibition of its own ("Don't edit files
    under `docs/`") heads rules that say what to do instead: they are not negated."""
    found = _PROHIBITING_HEADING.match(heading.strip())
    if not found:
        return False
    rest = heading.strip()[found.end() :]
    own = "`" in rest or len(words(rest)) >= 3
    return not own or bool(_LISTED.search(rest))


def as_prohibition(text: str, heading: str = "") -> str:
    """A bullet under a "Do not" heading, saying so itself; under one naming what not to
    do ("Do Not Edit"), a bullet naming a thing says the whole ("Do not edit `*.pb.go`")."""
    found = words(text)
    if found and found[0] in {"never", "don't", "do", "avoid", "no"}:
        return text
    if found and found[0] in IMPERATIVES and text[:1].isalpha():
        return "Do not " + text[0].lower() + text[1:]
    verb = _FORBIDDEN_ACT.match(heading.strip())
    if verb and verb.group(2).lower() in IMPERATIVES:
        return f"{verb.group(1).capitalize()} {verb.group(2).lower()} {text}"
    if found and found[0] in _DETERMINERS and text[:1].isalpha():
        return "Avoid " + text[0].lower() + text[1:]  # "A `Co-Authored-By:` trailer"
    return "Avoid " + text


def says_a_rule(text: str) -> bool:
    """Whether ``text`` says a rule in words no description uses: it opens on "never",
    "always", "only", "do not", or has "must", "should", "avoid" and the like."""
    opening = words(text)[:1] + main_clause(text)[:1]  # "Only ...", "When X, never Y"
    return bool(_STARTS.intersection(opening)) or _rule_word_outside_relative(text)


def describes_steps(heading: str) -> bool:
    """Whether ``heading`` names how the project works ("Contract Flow", "Release
    pipeline", "Architecture"): its numbered steps say what happens, not what to do."""
    return bool(_FLOW_HEADING.search(heading))


def prohibits(text: str) -> bool:
    """Whether ``text`` forbids something."""
    return any(part.role is Role.FORBIDS for part in stance(text))


class Role(enum.Enum):
    """What a part of a rule does with the names in it."""

    ASKS = "asks"  # "use X", "run X": what the rule asks for
    FORBIDS = "forbids"  # "never X", "instead of X", "avoid X": the mistake itself
    WHEN = "when"  # "when you change X", "after X": where the mistake is made
    POINTS = "points"  # "see X", "e.g. X", "read X": a reference


@dataclass(frozen=True)
class Part:
    role: Role
    text: str


_MARKERS: tuple[tuple[re.Pattern[str], Role], ...] = tuple(
    (re.compile(rf"(?<![\w-])(?:{pattern})(?![\w-])", re.I), role)
    for pattern, role in (
        (
            r"never|don't|do not|must not|must never|should not|should never|"
            r"shouldn't|cannot|can't|instead of|rather than|not|no|bare|without|over|"
            r"(?<!to )avoid|(?<=try to )avoid",
            Role.FORBIDS,
        ),
        (
            r"when|whenever|after|before|if|once|while|on every|each time",
            Role.WHEN,
        ),
        (
            r"see|e\.g\.|i\.e\.|read|review|consult|refer to|such as|like|per|follow|according to|"
            r"outside(?: of)?|except(?: in| for)?|other than|"
            r"(?:defined|described|documented|specified|explained|outlined|configured) in|"
            r"(?:already )?(?:covered|handled|checked|caught) by|relative to",
            Role.POINTS,
        ),
        (
            r"use|run|call|prefer|instead(?! of)|always|only|put|keep|write|add|change|"
            r"edit|update|regenerate|recompile|commit|go",
            Role.ASKS,
        ),
    )
)
# A closing part that is only a document's name: where the rule is written down at
# length ("assert the whole shape: `.agents/rules/shape.mdc`"), not where it is broken.
_DOCUMENT_ONLY = re.compile(r"^\s*`[^`\s]+\.(?:md|mdc|mdx|rst|txt)`[.!]?\s*$", re.I)
# A clause ends at a semicolon, a sentence end, a dash or a colon, before "and" or "but"
# opening a rule of its own ("Never X and always Y": Y is asked for, not forbidden), and
# before "until".
_CLAUSE_BREAK = re.compile(
    r";|\.\s|\s(?:—|--|–)\s|:\s"
    r"|\s(?:and|but)\s+(?=(?:always|never|only|do not|don't)\b)"
    # "not complete until `git push` succeeds": what must happen first is asked for
    r"|\s(?=until\b)",
    re.I,
)
# A purpose: "so uv doesn't rewrite `uv.lock`", "to avoid ...". What it names is what the
# rule protects, not where it is broken, and its "not" forbids nothing.
_PURPOSE = re.compile(
    r"(?<![\w-])(?:so that|(?<!\bdo )so(?=\s+[\w`])|in order to|(?<!\btry )to avoid|to prevent"
    r"|to ensure)"
    r"(?![\w-])",
    re.I,
)


def stance(text: str) -> list[Part]:
    """``text`` cut into parts by what each does with the names in it, in order.

    A clause break (``;``, a sentence end, a dash, a colon) starts a part that asks; a
    comma ends an opening "when" clause; a parenthesis is an aside that points, after
    which the part goes on as before it; a verb that asks ("use", "run") changes the
    part only where a clause starts ("Never X, use Y"), never inside "never edit X".
    """
    if prohibited_by_label(text):
        return [Part(Role.FORBIDS, text)]  # "FORBIDDEN: `uv pip install`, `@latest`"
    plain = outside_code(text)
    cuts: list[tuple[int, str, Role]] = [(0, "break", Role.ASKS)]
    cuts += [(m.end(), "break", Role.ASKS) for m in _CLAUSE_BREAK.finditer(plain)]
    cuts += [(m.end(), "comma", Role.ASKS) for m in re.finditer(r",\s", plain)]
    cuts += [(m.start(), "aside", Role.POINTS) for m in re.finditer(r"\(", plain)]
    cuts += [(m.end(), "back", Role.ASKS) for m in re.finditer(r"\)", plain)]
    cuts += [(m.start(), "purpose", Role.POINTS) for m in _PURPOSE.finditer(plain)]
    for pattern, role in _MARKERS:
        cuts.extend((match.start(), "marker", role) for match in pattern.finditer(plain))
    cuts.sort(key=lambda cut: cut[0])
    parts: list[Part] = []
    role, at_start, before_aside, depth, purpose = Role.ASKS, True, Role.ASKS, 0, False
    ends = [cut[0] for cut in cuts[1:]] + [len(text)]
    for (start, kind, new), end in zip(cuts, ends, strict=True):
        if kind == "aside":
            before_aside = role if depth == 0 else before_aside
            role, depth = Role.POINTS, depth + 1
        elif kind == "back":
            depth = max(depth - 1, 0)
            role = before_aside if depth == 0 else role
        elif depth:
            pass  # a parenthesis is an aside, whatever it says
        elif kind == "purpose":
            role, purpose = Role.POINTS, True
        elif purpose and kind == "marker":
            pass  # "so uv doesn't rewrite X": the purpose goes on to its clause's end
        elif kind == "break" and not (role is Role.POINTS and plain[start - 2] == ":"):
            role, at_start, purpose = Role.ASKS, True, False
        elif kind == "break":
            at_start = True  # "read that skill: `x/SKILL.md`": what follows is pointed at
        elif kind == "comma":
            role = Role.ASKS if role is Role.WHEN or purpose else role
            at_start, purpose = True, False
        elif new is not Role.ASKS or at_start or role is Role.ASKS:
            role, at_start = new, False
        if end > start:
            parts.append(Part(role, text[start:end]))
    if parts and _DOCUMENT_ONLY.match(parts[-1].text):
        parts[-1] = Part(Role.POINTS, parts[-1].text)  # "...: `docs/rules/x.mdc`."
    return _place_opening(_passive(_without(parts)))


# An opening clause naming where the rest holds: "In `packages/browser`, do not ...".
_PLACE_OPENING = re.compile(r"^\s*(?:in|inside|within|under)\s+[^,]*,\s*$", re.I)


def _place_opening(parts: list[Part]) -> list[Part]:
    """ "In `x/`, never Y": the opening names where the mistake is made (as "when"
    does), not an alternative the rule asks for."""
    if len(parts) > 1 and parts[0].role is Role.ASKS and _PLACE_OPENING.match(parts[0].text):
        parts[0] = Part(Role.WHEN, parts[0].text)
    return parts


def _without(parts: list[Part]) -> list[Part]:
    """ "Never add a dependency without running `X`": a "without" inside a prohibition
    names what the rule asks for (two negations), not a second thing it forbids."""
    for index, part in enumerate(parts[1:], start=1):
        if (
            part.role is Role.FORBIDS
            and part.text.lstrip().lower().startswith("without")
            and parts[index - 1].role is Role.FORBIDS
        ):
            parts[index] = Part(Role.ASKS, part.text)
    return parts


_PASSIVE = re.compile(r"^\s*(?:must|should)\s+(?:not|never)\b|^\s*(?:shouldn't|cannot)\b", re.I)


def _passive(parts: list[Part]) -> list[Part]:
    """ "`X` must never be edited": the subject before the modal is what is forbidden."""
    for index, part in enumerate(parts[1:], start=1):
        before = parts[index - 1]
        if part.role is Role.FORBIDS and _PASSIVE.match(part.text) and before.role is Role.ASKS:
            first = words(before.text)[:1]
            if not first or first[0] not in IMPERATIVES:
                parts[index - 1] = Part(Role.FORBIDS, before.text)
    return parts
