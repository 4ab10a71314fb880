"""What a rule says for or against: its stances, read lexically, for contradiction checks.

A stance is a polarity and the object it is about: "Never push tags" is *against*
{push, tags}; "Always push tags", "Push tags after a release." are *for* their words.
Two rules contradict when one is for exactly the object the other is against. The object
is compared as a set of words, so word order (German "Nie npm verwenden") and a code span
in either language ("Never use `npm`" / "`npm` immer verwenden") compare alike, and
nothing looser counts: "never push to main" is about {push, main}, "always push tags"
about {push, tags}, and they do not meet. Precision first, so:

- A clause is read on its own (split at ``. ; : ,``, dashes, brackets, CJK marks). Its
  reason ("... because X", "... — X") is cut off; a clause that opens with a condition
  ("if CI is red, never push") carries its words into the next clause's object, so a
  conditional rule never meets an unconditional one.
- Negations are counted: an odd number is *against*, an even number *for* ("don't forget
  to run X" is for running X).
- Preference forms give two stances: "use A instead of B", "prefer A over B", "A rather
  than B", and their equivalents ("A statt B", "A au lieu de B", "A en lugar de B", "A em
  vez de B", "A вместо B", "用A而不是B", "BではなくA", "B 말고 A") are for A and against B.
- Words that carry no object (articles, modals, "always", "use" and its translations) are
  dropped; an object left with only common English words is no object at all.

Languages: those the correction cues cover (``lessons_core.feedback.corrections``):
English, German, French, Spanish, Portuguese, Russian, Chinese, Japanese, Korean.
Opposite stances that name the same code (a flag, a path, an identifier) in otherwise
different words are the same object too (``same_object``): "Always run npm install with
--legacy-peer-deps" / "Never pass --legacy-peer-deps to npm install".

Limits: antonyms ("never skip tests" / "don't run tests", "keep X out of" / "put X in"),
a narrower rewording ("always push" / "never auto-push") and an object named two ways in
plain words are not seen; those cost recall, never precision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from lessons_core.matching.words import COMMON_WORDS, fold


class Stance(NamedTuple):
    """For (``positive``) or against the words of ``key``; ``text`` is the clause."""

    positive: bool
    key: frozenset[str]
    text: str


_SENTENCE_SPLIT = re.compile(r"[.!?](?=\s|$)|[;\n。！？；]")
_CLAUSE_SPLIT = re.compile(r":(?=\s|$)|,(?=\s)|[，、]|\s[—–-]{1,2}\s|[—–]")
# An aside in brackets says nothing the rule stands for: "(pnpm test:coverage)".
_ASIDE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]|（[^（）]*）")
# A word that makes a clause an instruction for something, wherever in a sentence.
_AFFIRMATIONS = frozenset(
    """always must should prefer immer toujours siempre sempre всегда""".split()
)
_WORD = re.compile(r"[^\s,;()\[\]{}\"“”«»„<>*]+")
_EDGE = "'\"`‘’“”«».,:!?"
# Words with these inside are code (a path, a flag, an identifier): kept whole.
_CODE_CHARS = frozenset("/._:=@$-")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+")
_HANGUL_SUFFIXES = (
    "하십시오", "하세요", "해주세요", "해요", "해라", "하라", "합니다", "하기",
    "에서", "으로", "을", "를", "이", "가", "은", "는", "에", "로", "와", "과", "도",
)  # fmt: skip
_JAPANESE_PARTICLES = re.compile(r"[をはがにでのとへも]")

# Counted negations (tokens, after "n't" became " not").
_NEGATIONS = frozenset(
    """never not no nor avoid forget nie niemals nicht kein keine keinen keiner keinem nichts
    jamais pas nunca jamás jamas não nao не никогда нельзя""".split()
)
# Negations that stack without cancelling (negative concord).
_CONCORD = frozenset("no nunca jamás jamas não nao jamais pas не никогда нельзя ни".split())
# Negations written inside CJK text, removed before the words are read.
_CJK_NEGATIONS = re.compile(
    r"不要|不能|不可以|不可|禁止|勿|[别別]|しないで(?:ください|下さい)?|ないで(?:ください|下さい)?"
    r"|(?:하)?지\s*마(?:세요|십시오|라|요)?|하지\s*말(?:고|아요|아라)?|금지"
)
_CJK_AFFIRMATIONS = re.compile(
    r"总是|總是|始终|始終|一定要|务必|務必|必须|必須|应该|應該|请|請|いつも|必ず|常に"
    r"|してください|して下さい|ください|항상|반드시|꼭"
)
_USE = frozenset(
    """use uses used using prefer prefers preferred choose verwende verwenden benutze
    benutzen nutze nutzen bevorzuge utilise utiliser utilisez utilisez préfère préférez
    usa usar usá utiliza utilizar utilice utilize utilizem prefiere prefira prefiera
    используй используйте использовать применяй применяйте 用 使用 改用 使用する 使う 使って
    使わ 使用して 使用し 사용 써""".split()
)
_CJK_USE = tuple(sorted((verb for verb in _USE if not verb.isascii()), key=len, reverse=True))
_NOT_WORD = re.compile(r"[^\w]+")
_DROPPED = _NEGATIONS | frozenset(
    """a an the to of in on at for with by from into onto this that these those it its is are
    be been do does did done must should shall will would can could may might always ever
    please just only also really directly explicitly you your we our they their them then
    ca wo n t
    der die das den dem des ein eine einen einem zu mit auf im für von bitte immer ist sind
    soll sollte muss musst
    le la les l un une des de du d à au aux en pour avec sur toujours ne est il faut
    el los las una del con para por al siempre es debe
    o os as um uma do da dos das em no na com sempre deve
    в на с для по к всегда это надо нужно""".split()
)
_CONDITIONS = frozenset(
    """if when whenever unless before after once while until during wenn falls bevor
    nachdem während si quand lorsque avant après pendant cuando antes después mientras
    quando se depois enquanto если когда перед после пока""".split()
)
_REASONS = re.compile(
    r"\s(?:because|since|otherwise|so that|as it|weil|sonst|car|parce que|sinon|porque"
    r"|pois|потому что|так как|иначе)\s|因为|因為|否则|否則|ので|때문에",
    re.IGNORECASE,
)
# Preference markers: "A instead of B" is for the side before the marker; in Japanese and
# Korean ("BではなくA", "B 말고 A") for the side after it.
_PAIRS = re.compile(
    r"\s(?:instead of|rather than|anstatt|anstelle von|statt|au lieu d[e']|plutôt que"
    r"|en lugar de|en vez de|em vez de|ao invés de|вместо)\s|而不是|而非"
)
_PAIRS_REVERSED = re.compile(r"ではなく|じゃなく|の代わりに|\s?말고\s|\s?대신에?\s")
_PREFER_OVER = re.compile(r"^\s*(?:prefer|always prefer)\s+(.+?)\s+(?:over|to)\s+(.+)$")
# Where a qualifier starts on a side of a preference ("npm ci in CI", "vitest for a file").
_QUALIFIER = re.compile(
    r"\s(?:in|on|for|when|with|at|during|inside|under|before|after|while|if|unless|within"
    r"|across|im|bei|für|beim|wenn|dans|pour|lors|avec|en|para|cuando|con|no|na|при|для|в)\s"
)
_OR = re.compile(r"\s(?:or|nor|oder|ou|o|или)\s")


@lru_cache(maxsize=65536)  # validate asks for each rule in several checks
def stances(rule: str) -> tuple[Stance, ...]:
    """Every stance of ``rule``, clause by clause (see the module docstring). A clause
    that neither opens its sentence nor holds a cue ("never", "always", "use", a
    preference) is description, not instruction ("..., input length, and trigger
    count"): it is for nothing."""
    text = _ASIDE.sub(" ", rule.replace("’", "'").replace("`", " ").replace("**", " "))
    found: list[Stance] = []
    for sentence in _SENTENCE_SPLIT.split(text):
        carried: list[str] = []
        opening = True
        for raw in _CLAUSE_SPLIT.split(sentence):
            clause = _without_reason(raw).strip()
            if not clause:
                continue
            words = _words(clause)
            if words and words[0] in _CONDITIONS:
                carried = _object(words)
                continue
            found += _clause_stances(clause, words, carried, opening)
            carried = []
            opening = False
    return tuple(found)


def _without_reason(clause: str) -> str:
    cut = _REASONS.search(clause)
    return clause[: cut.start()] if cut else clause


def _clause_stances(
    clause: str, words: list[str], carried: list[str], opening: bool
) -> list[Stance]:
    folded = fold(clause)
    preferred = _PREFER_OVER.match(folded)
    if preferred:
        return _pair(preferred.group(1), preferred.group(2), clause, carried)
    pair = _PAIRS.search(folded)
    if pair:
        return _pair(folded[: pair.start()], folded[pair.end() :], clause, carried)
    reverse = _PAIRS_REVERSED.search(folded)
    if reverse:
        # Japanese and Korean put the verb last: none leads the chosen side.
        return _pair(folded[reverse.end() :], folded[: reverse.start()], clause, carried, False)
    negations = _negations(words)
    positive = negations % 2 == 0
    if positive and not (opening or negations or _affirmed(folded, words)):
        return []
    if positive or not _OR.search(folded):
        objects = [_object(words)]
    else:
        objects = [_object(_words(part)) for part in _OR.split(folded)]
    verb = _leading_verb(objects[0], objects[1:])
    out = []
    for number, part in enumerate(objects):
        words = [verb, *part] if number and verb else part
        stance = _stance(positive, carried + words, clause)
        if stance:
            out.append(stance)
    return out


def _affirmed(folded: str, words: list[str]) -> bool:
    """Whether the clause says outright to do something: "always", "must", "use", ..."""
    return bool(_CJK_AFFIRMATIONS.search(folded)) or any(
        word in _AFFIRMATIONS or word in _USE for word in words
    )


def _negations(words: list[str]) -> int:
    """How many times ``words`` negate: the words of a language with negative concord
    ("никогда не", "no ... nunca", "ne ... jamais") count once together."""
    # "no" opens a clause to negate it ("No uses npm", "no yarn"); inside one it is as
    # often Portuguese "in the" ("no código").
    counted = [word for n, word in enumerate(words) if word != "no" or n == 0]
    plain = sum(1 for word in counted if word in _NEGATIONS and word not in _CONCORD)
    return plain + any(word in _CONCORD for word in counted)


def _pair(
    chosen: str, rejected: str, clause: str, carried: list[str], verb_first: bool = True
) -> list[Stance]:
    """For ``chosen``, against ``rejected``. A verb leading the chosen side ("run pnpm
    install instead of npm install") also leads the rejected one, and a qualifier of
    either ("... for a single file") applies to both."""
    (good, good_tail), (bad, bad_tail) = _qualified(chosen), _qualified(rejected)
    verb = _leading_verb(good, [bad]) if verb_first else None
    if verb:
        bad = [verb, *bad]
    tail = good_tail + bad_tail
    return [
        stance
        for stance in (
            _stance(True, carried + good + tail, clause),
            _stance(False, carried + bad + tail, clause),
        )
        if stance
    ]


def _qualified(side: str) -> tuple[list[str], list[str]]:
    """A side of a preference as its object and the qualifier after it."""
    cut = _QUALIFIER.search(side)
    if cut is None:
        return _object(_words(side)), []
    return _object(_words(side[: cut.start()])), _object(_words(side[cut.start() :]))


def _leading_verb(first: list[str], others: list[list[str]]) -> str | None:
    """The first word of ``first`` when the others lack it and are shorter: the verb
    they share ("never run npm install or yarn install")."""
    if not others or not first:
        return None
    head = first[0]
    if all(other and head not in other and len(other) < len(first) for other in others):
        return head
    return None


def _stance(positive: bool, words: list[str], clause: str) -> Stance | None:
    key = frozenset(words)
    if not any(word not in COMMON_WORDS for word in key):
        return None
    return Stance(positive, key, " ".join(clause.split()))


def _words(text: str) -> list[str]:
    """Folded words; code (paths, flags, identifiers) kept whole, CJK runs split at their
    cue words and particles, Korean particles and verb endings cut off."""
    text = fold(text).replace("n't", " not")
    plain = text.isascii()  # nearly every rule: no script but Latin to look for
    if not plain:
        text = _CJK_NEGATIONS.sub(" 不要 ", text)  # one counted negation, whatever the script
        text = _CJK_AFFIRMATIONS.sub(" ", text)
    out: list[str] = []
    for raw in _WORD.findall(text):
        word = raw.strip(_EDGE)
        if not word:
            continue
        if word.isalnum() and (plain or word.isascii()):
            out.append(word)
        elif plain or word.isascii():
            if _CODE_CHARS & set(word.strip("-")) or word.startswith("-"):
                out.append(word)
            else:
                out += [part for part in _NOT_WORD.split(word) if part]
        elif word == "不要":
            out.append("not")
        elif _CJK.search(word):
            out += _cjk_words(word)
        elif "\uac00" <= word[-1] <= "\ud7a3":
            if word not in _HANGUL_SUFFIXES:  # a particle of the word before ("`npm`을")
                out.append(_hangul(word))
        else:
            out += [part for part in _NOT_WORD.split(word) if part]
    return out


def _cjk_words(word: str) -> list[str]:
    out: list[str] = []
    for piece in re.split(r"([\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+)", word):
        if not piece:
            continue
        if _CJK.fullmatch(piece):
            for part in _JAPANESE_PARTICLES.split(piece):
                bare = _strip_use(part)
                if bare:
                    out.append(bare)
        else:
            out.append(piece.strip(_EDGE))
    return [word for word in out if word]


def _strip_use(text: str) -> str:
    """A CJK run without a leading or trailing verb of using (用npm, npmを使って)."""
    for verb in _CJK_USE:
        if text.startswith(verb):
            text = text[len(verb) :]
        if text.endswith(verb):
            text = text[: -len(verb)]
    return text


def _hangul(word: str) -> str:
    for suffix in _HANGUL_SUFFIXES:
        if word.endswith(suffix) and len(word) > len(suffix):
            return word[: -len(suffix)]
    return word


def _object(words: list[str]) -> list[str]:
    return [word for word in words if word not in _DROPPED and word not in _USE]


# A word written in camel case names code (``readFileSafe``), as a path or a flag does.
_CAMEL = re.compile(r"\b[a-z]+[A-Z][A-Za-z0-9]*\b")


@lru_cache(maxsize=65536)
def anchors(stance: Stance) -> frozenset[str]:
    """The code a stance names: flags, paths, dotted or joined identifiers
    (``--legacy-peer-deps``, ``pnpm-lock.yaml``, ``process.exit()``) and camel-case names
    (``readFileSafe``). Two stances naming the same one are about the same object however
    the rest is worded ("run npm install with X" / "pass X to npm install")."""
    # A dash inside a word joins English as often as code ("hand-adding"): not enough.
    code = {word for word in stance.key if word.startswith("-") or _CODE_MARKS & set(word)}
    code.update(fold(name) for name in _CAMEL.findall(stance.text))
    # A bit of punctuation (``*/``, ``..``, ``.md``) names no one thing, nor does the last
    # folder of a longer path (``/src`` of ``../src`` and of ``@trpc/*/src``).
    return frozenset(
        word
        for word in code & stance.key
        if len(_NOT_WORD.sub("", word)) >= 3 and not _PATH_TAIL.fullmatch(word)
    )


_CODE_MARKS = _CODE_CHARS - {"-"}
_PATH_TAIL = re.compile(r"/[\w.-]+")
# A clause longer than this describes; it is not one instruction about one object.
MAX_OBJECT_WORDS = 10


@lru_cache(maxsize=65536)  # a graph repeats its stances: each pair is judged once
def same_object(positive: Stance, negative: Stance) -> bool:
    """Whether two stances of opposite polarity are about the same object though their
    words differ: clauses of at most ``MAX_OBJECT_WORDS`` words that name the same code
    (``anchors``), and besides it share at least half the words of the shorter one (which
    must say something besides the code). "Always run npm install with --legacy-peer-deps"
    and "Never pass --legacy-peer-deps to npm install" meet on the flag and on npm
    install; "never push --force to main" and "always use --force-with-lease" do not,
    nor do two stances that each name code the other does not ("never run seed with
    --force" / "run audit with --force", seed and audit being commands)."""
    if max(len(positive.key), len(negative.key)) > MAX_OBJECT_WORDS:
        return False
    mine, theirs = anchors(positive), anchors(negative)
    shared = mine & theirs
    if not shared or (mine - shared and theirs - shared):
        return False
    # Besides the code, at least half the words of the shorter one are in the other.
    small, large = sorted(
        (_words_of(positive.key - shared), _words_of(negative.key - shared)), key=len
    )
    return bool(small) and 2 * len(small & large) >= len(small)


def _words_of(key: frozenset[str]) -> frozenset[str]:
    """The words of a stance's key, without bare punctuation (``$``)."""
    return frozenset(word for word in key if _NOT_WORD.sub("", word))


def opposed(first: Sequence[Stance], second: Sequence[Stance]) -> tuple[Stance, Stance] | None:
    """The first pair of opposite stances about the same object, one from each list."""
    held = {(stance.key, stance.positive): stance for stance in reversed(second)}
    for stance in first:
        other = held.get((stance.key, not stance.positive))
        if other is not None:
            return stance, other
    return None
