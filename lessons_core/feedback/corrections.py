"""Whether a prompt a person typed corrects the agent: cheap lexical cues, several languages.

"No, use the staging config", "never run that against prod", "you should have read the
README first", "nein, stattdessen pnpm", "不要改这个文件": a correction is a negation or an
imperative aimed at what the agent just did. ``find_correction`` looks for such cues and
returns the ones it found, with the clause that holds the first (unmasked: a caller that
shows or stores it masks secrets first).

Precision first, since a false correction asks the agent to write a rule nobody gave:

- Cues that are ordinary words elsewhere count only at the start of a clause (the text's
  start, or after ``. ! ? ; : ,`` or a line break, past fillers such as "please", "ok",
  "but"): "never run it on prod" is a correction, "I have never seen this" is not; "always
  use pnpm" is one, "now add always-on support" is not. A bare "no" counts only when a
  punctuation mark or the end follows it ("No, add tests"), so "no rush, add tests" and
  "no need to" do not.
- Set phrases that only look like cues are blanked before matching: "no worries", "never
  mind", "don't worry", "what's wrong", "always-on", "immer noch", "不用急", ...
- Fenced and inline code is dropped (a quoted ``never`` in a snippet is no correction),
  and only the first ``MAX_SCANNED_CHARS`` characters of what is left are read: a
  correction comes first; a long prompt further on is a new task or pasted output.

Limits: lexical, so irony, a correction phrased as a question ("could you use pnpm?"),
or a language without cues here (English, German, French, Spanish, Portuguese, Russian,
Chinese, Japanese and Korean have some) are missed; a request that happens to open with
"never"/"always" or contain "instead" ("use a set instead of a list") counts, unless it
opens with praise or a next step ("Good. Next, keep them in a dict instead of a list."),
with no negation in the sentence holding "instead". Callers
therefore only take a correction as evidence when it follows an action of the agent.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import re

MAX_SCANNED_CHARS = 600
MAX_EXCERPT_CHARS = 160

_CODE = r"```.*?(?:```|\Z)|`[^`\n]*`"

# Where a clause starts, and the fillers that may open it before the cue.
_BOUNDARY = r"(?:^|(?<=[.!?;:,\n。！？；：，、…—–(\"“«]))\s*"
_FILLERS = (
    r"(?:(?:please|pls|ok|okay|oh|hmm|wait|but|and|so|also|actually|just|again|"
    r"bitte|aber|und|doch|mais|et|alors|pero|y|por favor|mas|e|но|и|а|пожалуйста)"
    r"\s*,?\s+)*"
)
_START = _BOUNDARY + _FILLERS
_END = r"(?=\s*(?:[,.!;:—–]|$))"  # a bare word standing as its own clause

# Set phrases that are not corrections although they hold a cue; blanked before matching.
_NOT_CUES = (
    r"\bno[- ](?:rush|hurry|need|worries|worry|problem|pressure|idea|op)\b"
    r"|\bno (?:big )?deal\b|\bnever ?mind\b|\bdon'?t (?:worry|hesitate|mind)\b"
    r"|\bdo not (?:worry|hesitate)\b"
    r"|\b(?:what|something|anything|nothing)(?:'s| is| was| went| goes)? wrong\b"
    r"|\b(?:always|never|no)-\w+"
    r"|\bkeine? (?:eile|sorge|sorgen|problem|stress)\b|\bimmer noch\b"
    r"|\bpas de (?:souci|soucis|problème|stress)\b|\btoujours pas\b"
    r"|\bno (?:hay|pasa|te preocupes)\b|\bnão (?:há|tem) (?:pressa|problema)\b"
    r"|\bне (?:спеши|торопись|волнуйся|беспокойся)\b"
    r"|不用急|不着急|没关系|别急|別急|急がなくて"
)

# (cue, pattern): the cue is what a caller reports, in the language it was found in.
# (cue, anchors, pattern): the cue is what a caller reports, in the language it was found
# in; every text the pattern matches holds one of the anchors once lowercased, so a prompt
# holding none of a cue's anchors skips its pattern, and one holding no anchor at all never
# compiles a pattern (compiling them all costs a prompt hook more than the rest of it).
_CUES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    # English
    ("no", ("no", "nah"), _START + r"(?:no+|nope|nah)(?:" + _END + r"|(?=\s+no\b))"),
    ("don't", ("don", "do not", "never ever"), _START + r"(?:don'?t|do not|never ever)\b"),
    ("never", ("never",), _START + r"never\b"),
    ("always", ("always",), _START + r"always\b"),
    ("stop", ("stop",), _START + r"stop(?:" + _END + r"|(?=\s+\w+ing\b))"),
    ("undo", ("undo", "revert", "roll back"), _START + r"(?:undo|revert|roll back)\b"),
    ("instead", ("instead",), r"\binstead\b"),
    ("wrong", ("wrong",), r"\bwrong\b"),
    ("should have", ("should",), r"\b(?:should(?:'ve| have)|shouldn'?t have|should not have)\b"),
    (
        "you shouldn't",
        ("you ",),
        r"\byou (?:shouldn'?t|should not|must not|mustn'?t|were supposed to)\b",
    ),
    (
        "not what I asked",
        ("told you", "i said", "asked you", "not"),
        r"\b(?:i (?:told you|said|asked you)\b|not what i (?:asked|wanted|meant|said)\b"
        r"|that(?:'s| is) not (?:right|it|what)\b|not like that\b)",
    ),
    # German
    ("nein", ("nein",), _START + r"nein" + _END),
    ("nicht", ("nicht", "lass das", "hör"), _START + r"(?:nicht|lass das|hör auf|hör mal auf)\b"),
    ("nie", ("nie",), _START + r"(?:nie|niemals)\b"),
    ("immer", ("immer",), _START + r"immer\b"),
    ("stattdessen", ("statt", "anstelle"), r"\b(?:stattdessen|statt|anstatt|anstelle)\b"),
    ("falsch", ("falsch",), r"\bfalsch\b"),
    ("hättest ... sollen", ("hätt",), r"\b(?:hättest|hätten|hätte)\b[^.!?\n]{0,80}\bsollen\b"),
    # French
    ("non", ("non",), _START + r"non" + _END),
    ("ne ... pas", ("ne", "n'"), _START + r"(?:ne\s+|n')\w+\s+(?:pas|jamais|plus)\b"),
    ("jamais", ("jamais",), _START + r"jamais\b"),
    ("toujours", ("toujours",), _START + r"toujours\b"),
    ("arrête", ("arrête",), _START + r"arrêtez?\b"),
    ("au lieu de", ("au lieu d", "plutôt que"), r"\b(?:au lieu d[e']|plutôt que)"),
    ("faux", ("c'est", "pas c"), r"\b(?:c'est (?:faux|incorrect)|pas comme ça|pas ce que j)"),
    ("aurais dû", ("dû", "fallait"), r"\b(?:aurais|auriez|aurait) dû\b|\bil fallait\b"),
    # Spanish
    (
        "no ...",
        ("no",),
        _START + r"no\s+(?:uses|hagas|borres|toques|cambies|ejecutes|modifiques|elimines|"
        r"pongas|agregues|añadas|subas|instales|corras|escribas|edites|olvides|vuelvas)\b",
    ),
    ("nunca", ("nunca",), _START + r"nunca\b"),
    ("siempre", ("siempre",), _START + r"siempre\b"),
    ("en lugar de", ("en lugar de", "en vez de"), r"\b(?:en lugar de|en vez de)\b"),
    ("mal", ("mal", "incorrecto", "equivocaste"), r"\b(?:está mal|incorrecto|te equivocaste)\b"),
    (
        "deberías haber",
        ("deber", "debiste", "tenías"),
        r"\b(?:deberías haber|debiste|tenías que)\b",
    ),
    # Portuguese
    (
        "não",
        ("não",),
        _START + r"não(?:" + _END + r"|\s+(?:use|usa|faça|faz|mexa|apague|rode|execute|"
        r"altere|toque|mude|coloque|adicione|remova|esqueça)\b)",
    ),
    ("sempre", ("sempre",), _START + r"sempre\b"),
    ("em vez de", ("vez de", "invés de"), r"\b(?:em vez de|ao invés de)\b"),
    ("errado", ("errad",), r"\b(?:errado|errada)\b"),
    ("deveria ter", ("deveria", "devia"), r"\b(?:deveria ter|devia ter|você devia)\b"),
    # Russian
    ("нет", ("нет",), _START + r"нет" + _END),
    ("не ...", ("не",), _START + r"не\s+(?:надо|нужно|\w+(?:й|йте|и|ите))(?!\w)"),
    ("никогда", ("никогда",), _START + r"никогда(?!\w)"),
    ("всегда", ("всегда",), _START + r"всегда(?!\w)"),
    ("вместо", ("вместо",), r"(?<!\w)вместо(?!\w)"),
    (
        "неправильно",
        ("неправильно", "неверно", "не так"),
        r"(?<!\w)(?:неправильно|неверно|не так)(?!\w)",
    ),
    (
        "надо было",
        ("было", "следовало", "я же"),
        r"(?<!\w)(?:надо было|нужно было|следовало|я же (?:сказал|просил))(?!\w)",
    ),
    # Chinese
    (
        "不要",
        ("不要", "别", "別"),
        r"不要|(?:^|(?<=[。！？；，、\s]))[别別](?![人的])",
    ),
    (
        "不对",
        ("不对", "不對", "错了", "錯了", "不是这样", "不是這樣"),
        r"不对|不對|错了|錯了|不是这样|不是這樣",
    ),
    ("而不是", ("而不是", "改用", "应该用", "應該用"), r"而不是|改用|应该用|應該用"),
    # Japanese
    ("ないで", ("ないで",), r"ないで(?:ください|下さい)?"),
    ("ではなく", ("ではなく", "じゃなく", "代わりに"), r"ではなく|じゃなく|代わりに"),
    (
        "違う",
        ("違", "だめ", "ダメ", "やめて"),
        r"違う|違います|間違(?:い|って|え)|だめ|ダメ|やめて",
    ),
    # Korean
    ("하지 마", ("하지", "말고", "대신"), r"하지\s*마|말고|대신에?"),
    ("틀렸", ("틀렸", "아니"), r"틀렸|아니(?:야|요)?(?=\s*[,.!]|\s*$)"),
)

# A sentence ends at . ! ? before a space or the end (not inside "src/app.py"), at a
# line break, or at a full-width mark.
_CLAUSE_END = r"[.!?](?=\s|$)|[\n。！？]"


class Correction(NamedTuple):
    """The cues found, in the order of ``_CUES``, and the clause holding the first one."""

    cues: tuple[str, ...]
    excerpt: str


def find_correction(prompt: str) -> Correction | None:
    """The correction cues in ``prompt``, or None when it reads as no correction."""
    text = _scanned(prompt)
    if not text.strip() or text.lstrip().startswith("/"):  # a slash command, not prose
        return None
    lowered = text.lower()
    candidates = [
        (cue, pattern)
        for cue, anchors, pattern in _CUES
        if any(anchor in lowered for anchor in anchors)
    ]
    if not candidates:
        return None
    text = _re(_NOT_CUES, IGNORECASE).sub(lambda found: " " * len(found.group()), text)
    cues: list[str] = []
    first: int | None = None
    for cue, source in candidates:
        found = _re(source, IGNORECASE | MULTILINE).search(text)
        if found is None or (cue == "instead" and _requested(text, found.start())):
            continue
        cues.append(cue)
        if first is None or found.start() < first:
            first = found.start()
    if first is None:
        return None
    return Correction(tuple(cues), _excerpt(_scanned(prompt), first))


# A prompt or sentence opening with praise or a next step asks for more work: its
# "instead" is a request ("Good. Next, keep them in a dict instead of a list.").
_REQUEST_OPENER = (
    _START + r"(?:good|great|nice|perfect|cool|thanks|thank you|lgtm|looks good|well done|"
    r"next(?!\s+time\b)|now let's|let's)\b"
)
# A negation or a blame in the same sentence makes its "instead" a correction again.
_NEGATION = r"\b(?:not|no|never|don'?t|doesn'?t|didn'?t|isn'?t|wrong|n't)\b"


def _requested(text: str, at: int) -> bool:
    """Whether the "instead" at ``at`` is part of a request, not a correction: the prompt
    or its sentence opens with praise or a next step, and the sentence negates nothing."""
    clause_end = _re(_CLAUSE_END)
    start = max((m.end() for m in clause_end.finditer(text, 0, at)), default=0)
    end_found = clause_end.search(text, at)
    sentence = text[start : end_found.end() if end_found else len(text)]
    if _re(_NEGATION, IGNORECASE).search(sentence):
        return False
    opener = _re(_REQUEST_OPENER, IGNORECASE)
    return bool(opener.match(text) or opener.match(sentence))


def _scanned(prompt: str) -> str:
    """The prompt without code, typographic apostrophes made plain, cut to the scanned
    length; blanking keeps every offset, so an excerpt is cut from this same text."""
    text = prompt.replace("’", "'")
    if "`" in text:
        text = _re(_CODE, DOTALL).sub(" ", text)
    return text[:MAX_SCANNED_CHARS]


def _excerpt(text: str, at: int) -> str:
    """The sentence around offset ``at``, on one line, at most ``MAX_EXCERPT_CHARS``."""
    at += len(text[at:]) - len(text[at:].lstrip())  # a match may open on the boundary
    clause_end = _re(_CLAUSE_END)
    start = max((m.end() for m in clause_end.finditer(text, 0, at)), default=0)
    end_found = clause_end.search(text, at)
    end = end_found.end() if end_found else len(text)
    sentence = " ".join(text[start:end].split())
    if len(sentence) > MAX_EXCERPT_CHARS:
        sentence = sentence[: MAX_EXCERPT_CHARS - 1].rstrip() + "…"
    return sentence


# re's own flag values (stable since Python 3.6), so the module need not load re to name them.
IGNORECASE = 2
MULTILINE = 8
DOTALL = 16


def _re(source: str, flags: int = 0) -> re.Pattern[str]:
    """``source`` compiled, by re's own cache; ``re`` is loaded by the first prompt that
    holds an anchor, never by one that does not (most prompts)."""

    return re.compile(source, flags)
