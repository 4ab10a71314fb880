"""Credentials in shapes no provider pattern names, and in text made to hide them.

A password is only a secret where something takes it as one: after ``mysql -p``, in
``curl -u user:PASS``, after ``password is``. The same words are everywhere in honest
rules ("never pass mysql -p with the password inline"), so each shape looks at the value
in that place and lets placeholders, variables, paths and plain words through. Where the
value sits in its own argument (``sshpass -p X``), prose can follow the flag too, so that
value must also look made up (a letter with a digit or a symbol).

Text can also hide a credential from every pattern: zero-width or other format
characters inside it, full-width letters, spaces between its pieces, base64 around it.
``normalised`` gives the text as a reader sees it, and ``all_spans`` also looks at it with
split pieces joined and base64 runs decoded, for detection and masking alike.

Every scan is linear in the text: tokens are found once, regular expressions only start
where a run of their characters starts, and every repeat that could backtrack is bounded.
Nothing here runs on the hook's hot path: capture, validate and, when it is on, telemetry
use it.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re
import unicodedata
from collections.abc import Iterator
from typing import NamedTuple


class Span(NamedTuple):
    start: int
    end: int
    kind: str


# Provider tokens; these prefixes and lengths are the providers' own formats. Each is a
# lead (where a token may start) and a body: split pieces are joined without the lead.
# Lengths are bounded, so that trying a body at a position costs at most ~560 steps.
# GitHub's prefixes are distinctive enough to take 20 characters of the 36: a token cut
# short (the first words of a command, as a call's identity keeps) is still one.
_RUN = "(?<![A-Za-z0-9_-])"
_TOKEN_FORMS = (
    (r"\b", r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])"),
    (r"\b", r"(?:gh[pousr]_[A-Za-z0-9]{20,500}|github_pat_[A-Za-z0-9_]{20,500})"),
    (_RUN, r"(?:glpat|glptt|gldt)-[A-Za-z0-9_-]{20,500}"),
    (_RUN, r"sk-(?:ant-(?:api|admin)\d\d-|proj-)[A-Za-z0-9_-]{20,500}"),
    (_RUN, r"sk-[A-Za-z0-9]{32,500}"),
    (_RUN, r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,500}"),
    (_RUN, r"xox[abposr]-[A-Za-z0-9-]{10,500}"),
    (r"\b", r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    (_RUN, r"pypi-[A-Za-z0-9_-]{50,500}"),
    (r"\b", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"),
    (r"\b", r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
    (_RUN, r"eyJ[A-Za-z0-9_-]{8,500}\.eyJ[A-Za-z0-9_-]{4,500}\.[A-Za-z0-9_-]{8,500}"),
    ("", r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----"),
)
TOKENS = re.compile("|".join(lead + body for lead, body in _TOKEN_FORMS))
_TOKEN_BODIES = re.compile("|".join(body for _lead, body in _TOKEN_FORMS))
TOKEN_KIND = "provider token"

# The names under which a value is a credential: a word of the name (``DB_PASSWORD``,
# ``clientSecret``, ``AccountKey``), or its end (``PGPASSWORD``, ``accesstoken``).
_NAME_WORDS = frozenset(
    {"password", "passwd", "pwd", "pass", "passphrase", "secret", "token", "apikey", "pw"}
    | {"credential", "credentials", "sig", "signature", "accountkey", "sharedaccesskey"}
)
_NAME_ENDS = ("password", "passwd", "pwd", "secret", "token", "apikey")
_KEY_OWNERS = frozenset(
    {"api", "access", "account", "private", "secret", "shared", "signing", "master"}
    | {"encryption", "client", "license", "service"}
)
_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def is_secret_name(name: str) -> bool:
    """True when a value named ``name`` is a credential."""
    words = [word.lower() for word in _NAME_PART.findall(name)]
    for number, word in enumerate(words):
        if word in _NAME_WORDS or word.endswith(_NAME_ENDS):
            return True
        if word == "key" and number and words[number - 1] in _KEY_OWNERS:
            return True
    return False


# NAME=VALUE or NAME: VALUE (also ``Password=x;`` in connection strings).
# The value is read in a lookahead, so that a match never swallows the next assignment
# (``sv=2022-11-02&sig=SECRET``, ``jdbc:mysql://db/app?user=app&password=SECRET``).
_ASSIGNMENT = re.compile(
    r"(?<![\w.-])([A-Za-z_][\w.-]{0,80})['\"]?[ \t]{0,3}(?:=|:(?!//))"
    r"(?=[ \t]{0,3}(['\"`]?)([^\s'\"`;,&]{1,200}))"
)
# "the staging password is X"
_SAID = re.compile(
    r"(?i)\b(?:password|passphrase|passwd|pwd|secret|token|api key|access key)"
    r"[ \t]{1,3}(?:is|was|=|:)[ \t]{1,3}(?:set[ \t]to[ \t])?(['\"`]?)([^\s'\"`]{1,400})"
)
# scheme://user:PASS@host
_URL_CREDENTIALS = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}://[^/\s:@]{0,200}:([^@\s/]{1,400})@"
)
_AUTH_HEADER = re.compile(r"(?i)\b(bearer|basic)[ \t]{1,3}([A-Za-z0-9._~+/=-]{12,400})")

# Words a value may be without being one: placeholders and descriptions.
_PLACEHOLDER = re.compile(
    r"(?i)(?:your|my|the|some|a|an|db|user|admin|root|app|new|old|real|actual)?[-_]?"
    r"(?:pass(?:wd|word|phrase)?|pwd|pw|secret|token|key|api[-_]?key|credentials?|"
    r"value|string|x+|redacted|changeme|example|placeholder|dummy|hidden|masked)s?\d?"
)
_SHELL_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_PUNCTUATION = "'\"`.,;:!?)(]["
# Tech words that end in digits and are no password ("sha256", "base64", "python3").
_TECH_WORD = re.compile(
    r"(?i)(?:sha|md|base|utf|python|py|node|oauth|https?|ipv|x86_?|arm|es|int|uint|float|"
    r"aes|rsa|ed|tls|ssl|v|ecma|win|k8s|s3|ec2|h|mp|ogg|gpt|llama|claude|gemini)\d+\w{0,3}"
)


# A version or an amount with its unit: ``2.0.1-beta``, ``v1.4``, ``86400s``, ``10GB``.
_QUANTITY = re.compile(
    r"(?i)v?\d{1,20}(?:[.:_-]\d{1,20}){0,5}(?:[a-z]{1,4}|[-.+][a-z]{1,10}\d{0,5})?"
)


def is_placeholder(value: str) -> bool:
    """True for what stands for a credential without being one: a variable (``$PASS``,
    ``${TOKEN}``, ``%PASSWORD%``, ``$(pass show db)``), a placeholder (``<password>``,
    ``PASSWORD``, ``your-token``, ``***``), a path (``~/.pgpass``) or nothing at all."""
    if not value or value[0] in "$%<{[*~/\\" or value.startswith("./"):
        return True
    if "..." in value or set(value) <= set("xX*•.-_#"):
        return True
    if _PLACEHOLDER.fullmatch(value):
        return True
    return bool(_SHELL_NAME.fullmatch(value) and is_secret_name(value))


def looks_made_up(value: str) -> bool:
    """True for a value that reads like a password rather than a word: at least six
    characters, a letter, and a digit or a symbol (``hunter2``, ``Tr0ub4dor&3``), and
    not a tech word, a version or a quantity (``sha256``, ``1.2.3-rc1``, ``86400s``)."""
    if len(value) < 6 or not any(c.isalpha() for c in value):
        return False
    if _TECH_WORD.fullmatch(value) or _QUANTITY.fullmatch(value):
        return False
    return any(c.isdigit() for c in value) or any(c in "!@#$%^&*+=?~|" for c in value)


def _literal(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span of the credential in ``text[start:end]`` once quotes and trailing prose
    punctuation are off, or None when it is a placeholder."""
    while start < end and text[start] in "'\"`(":
        start += 1
    while end > start and text[end - 1] in _PUNCTUATION:
        end -= 1
    if end - start < 3 or is_placeholder(text[start:end]):
        return None
    return start, end


# Commands that take a password. For each: options whose value is the password when
# attached (``-pSECRET``, ``--password=SECRET``), and options whose value may be the next
# argument. ``*`` stands for every command.
_ATTACHED: dict[str, tuple[str, ...]] = {
    "mysql": ("-p", "--password="),
    "sshpass": ("-p",),
    "login": ("-p", "--password="),
    "redis-cli": ("-a", "--pass="),
    "*": (
        "--password=",
        "--passwd=",
        "--pass=",
        "--token=",
        "--api-key=",
        "--apikey=",
        "--secret=",
        "--client-secret=",
        "--http-password=",
        "--ftp-password=",
        "--proxy-password=",
        "--access-key=",
        "--secret-key=",
        "--auth-token=",
    ),
}
_SEPARATE: dict[str, tuple[str, ...]] = {
    "sshpass": ("-p",),
    "login": ("-p", "--password"),
    "redis-cli": ("-a", "--pass"),
    "ldap": ("-w",),
    "sqlcmd": ("-P",),
    "*": (
        "--password",
        "--passwd",
        "--token",
        "--api-key",
        "--secret",
        "--client-secret",
        "--auth-token",
        "--secret-key",
    ),
}
# ``-u user:PASS``: the password after the first colon.
_USER_PASS: dict[str, tuple[str, ...]] = {
    "curl": ("-u", "--user", "--proxy-user", "-U"),
    "wget": ("--user",),
}
_FAMILIES = {
    "mysql": "mysql",
    "mysqldump": "mysql",
    "mysqladmin": "mysql",
    "mysqlimport": "mysql",
    "mysqlcheck": "mysql",
    "mysqlsh": "mysql",
    "mariadb": "mysql",
    "mariadb-dump": "mysql",
    "sshpass": "sshpass",
    "redis-cli": "redis-cli",
    "ldapsearch": "ldap",
    "ldapmodify": "ldap",
    "ldapadd": "ldap",
    "ldapdelete": "ldap",
    "ldapwhoami": "ldap",
    "sqlcmd": "sqlcmd",
    "bcp": "sqlcmd",
    "curl": "curl",
    "wget": "wget",
}
# ``docker login``, ``helm registry login``, ``podman login``: the word before ``login``.
_LOGIN_TOOLS = frozenset({"docker", "podman", "nerdctl", "buildah", "skopeo", "registry", "oras"})
_SHELL_BREAK = frozenset({";", "&&", "||", "|", "&"})
_COMMAND_REACH = 40  # options of one command are looked for this many words on
_TOKEN = re.compile(r"\S{1,4000}")
_NAME_STRIP = "'\"`($"


def _words(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in _TOKEN.finditer(text)]


def _command_spans(text: str, strict: bool) -> Iterator[Span]:
    """Passwords given to a command on its command line: its options are looked for up
    to the next command this module knows, or ``_COMMAND_REACH`` words on."""
    words = _words(text)
    families: list[str | None] = []
    for index, (start, end) in enumerate(words):
        name = text[start:end].lstrip(_NAME_STRIP).rsplit("/", 1)[-1].lower()
        family = _FAMILIES.get(name)
        if name == "login" and index and _word(text, words[index - 1]) in _LOGIN_TOOLS:
            family = "login"
        families.append(family)
    following = len(words)
    for index in range(len(words) - 1, -1, -1):
        family = families[index]
        if family is not None:
            reach = words[index + 1 : min(following, index + 1 + _COMMAND_REACH)]
            yield from _option_spans(text, reach, family, strict)
            following = index
    yield from _option_spans(text, words, "*", strict)


def _word(text: str, span: tuple[int, int]) -> str:
    return text[span[0] : span[1]].lstrip(_NAME_STRIP).lower()


def _option_spans(
    text: str, words: list[tuple[int, int]], family: str, strict: bool
) -> Iterator[Span]:
    """Passwords given to ``family``'s options among ``words`` (up to the command's end)."""
    attached = _ATTACHED.get(family, ())
    separate = _SEPARATE.get(family, ())
    user_pass = _USER_PASS.get(family, ())
    for index, (start, end) in enumerate(words):
        word = text[start:end].lstrip("`'\"(")
        begin = end - len(word)
        if family != "*" and word in _SHELL_BREAK:
            return
        if not word.startswith("-"):  # every option does; most words are not one
            if family != "*" and word.endswith((";", "|")):
                return
            continue
        following = words[index + 1] if index + 1 < len(words) else None
        for option in user_pass:
            value = _value_after(word, begin, option, following)
            colon = -1 if value is None else text.find(":", *value)
            found = None if value is None or colon < 0 else _literal(text, colon + 1, value[1])
            if found:
                yield Span(*found, _ON_COMMAND_LINE)
        for option in attached:
            if _attached(word, option):
                found = _literal(text, begin + len(option), end)
                if found:
                    yield Span(*found, _ON_COMMAND_LINE)
        if following is not None and word in separate:
            found = _literal(text, *following)
            if found and (
                not strict or _quoted(text, following) or looks_made_up(text[slice(*found)])
            ):
                yield Span(*found, _ON_COMMAND_LINE)
        if family != "*" and word.endswith((";", "|")):
            return


_ON_COMMAND_LINE = "password on a command line"


def _attached(word: str, option: str) -> bool:
    """``word`` is ``option`` with its value attached (``-pX``, ``--password=X``)."""
    if len(word) <= len(option) or not word.startswith(option):
        return False
    return option.endswith("=") or not word.startswith("--")


def _value_after(
    word: str, begin: int, option: str, following: tuple[int, int] | None
) -> tuple[int, int] | None:
    """Where the value of ``option`` is: in ``word`` (at ``begin``) or the next word."""
    if word == option:
        return following
    if word.startswith(option + "="):
        return begin + len(option) + 1, begin + len(word)
    if not option.startswith("--") and _attached(word, option):
        return begin + len(option), begin + len(word)
    return None


def _quoted(text: str, span: tuple[int, int]) -> bool:
    start, end = span
    return end - start >= 2 and text[start] in "'\"" and text[end - 1] == text[start]


def _regex_spans(text: str, strict: bool) -> Iterator[Span]:
    """Named values, said values, URL credentials, auth headers and provider tokens."""
    for match in TOKENS.finditer(text):
        yield Span(*match.span(), TOKEN_KIND)
    for match in _ASSIGNMENT.finditer(text):
        if not is_secret_name(match.group(1)):
            continue
        found = _literal(text, *match.span(3))
        if found and (not strict or looks_made_up(text[slice(*found)])):
            yield Span(*found, "password or key assignment")
    for match in _SAID.finditer(text):
        found = _literal(text, *match.span(2))
        if found and (not strict or looks_made_up(text[slice(*found)])):
            yield Span(*found, "password in words")
    for match in _URL_CREDENTIALS.finditer(text):
        found = _literal(text, *match.span(1))
        if found:
            yield Span(*found, "credentials in a URL")
    for match in _AUTH_HEADER.finditer(text):
        value = match.group(2)
        if not is_placeholder(value) and (
            not strict or any(c.isdigit() for c in value) or _decodes_to_pair(value)
        ):
            yield Span(*match.span(2), f"{match.group(1).lower()} credential")


def _decodes_to_pair(value: str) -> bool:
    decoded = _decoded(value)
    return decoded is not None and ":" in decoded


def spans(text: str, strict: bool = True) -> list[Span]:
    """Every credential found in ``text`` as it is. ``strict`` (detection) lets through a
    value in a place where prose could follow unless it looks made up; masking is not
    strict, since covering a word in a log costs nothing."""
    return [*_regex_spans(text, strict), *_command_spans(text, strict)]


# Format characters (zero-width space and joiners, soft hyphen, word joiner, BOM): they
# show as nothing, so a token with one inside reads the same and matches no pattern.
def _without_format_characters(text: str) -> str:
    if text.isascii():
        return text
    kept = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return unicodedata.normalize("NFKC", kept)


def normalised(text: str) -> str:
    """``text`` as it reads: format characters dropped, compatibility forms folded (NFKC:
    full-width letters become ASCII)."""
    return _without_format_characters(text)


# Pieces of a token split by spaces: a run of words of token characters.
_PIECE = "[A-Za-z0-9_.+/=-]{1,200}"
_PIECES = re.compile(rf"(?<![A-Za-z0-9_.+/=-]){_PIECE}(?:[ \t]{{1,4}}{_PIECE}){{1,200}}")


def _is_fragment(word: str) -> bool:
    """A piece that reads as part of a random string, not as a word of prose."""
    if len(word) <= 2 or any(c.isdigit() for c in word) or word.isupper():
        return True
    return any(c.isupper() for c in word[1:]) and any(c.islower() for c in word)


def joined_spans(text: str) -> list[Span]:
    """Provider tokens split by spaces: the words of a run joined, where a token starts
    at a word, covers two or more, and every word after its first reads as a fragment,
    not as prose (so "use sk-proj keys only" is never joined into a key). A body is only
    tried where a word starts, so a run costs at most its words times ~560 steps."""
    found: list[Span] = []
    for run in _PIECES.finditer(text):
        pieces = [
            (run.start() + m.start(), run.start() + m.end()) for m in _TOKEN.finditer(run.group())
        ]
        fragment = [_is_fragment(text[slice(*piece)]) for piece in pieces]
        starts = [0]
        for start, end in pieces:
            starts.append(starts[-1] + end - start)
        joined = "".join(text[slice(*piece)] for piece in pieces)
        last = len(pieces) - 1
        for first in range(len(pieces) - 1, -1, -1):
            if first < len(pieces) - 1 and not fragment[first + 1]:
                last = first  # a token starting here may only take in fragments
            if last == first:
                continue
            match = _TOKEN_BODIES.match(joined, starts[first], starts[last + 1])
            if match is not None and match.end() > starts[first + 1]:
                found.append(
                    Span(
                        pieces[first][0], pieces[_piece_at(starts, match.end() - 1)][1], TOKEN_KIND
                    )
                )
    return found


def _piece_at(starts: list[int], position: int) -> int:
    return bisect.bisect_right(starts, position) - 1


_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,8000}={0,2}")


def _decoded(run: str) -> str | None:
    """A base64 (or base64url) run as the text it encodes; None when it encodes no text."""
    data = run.rstrip("=").replace("-", "+").replace("_", "/")
    data += "=" * (-len(data) % 4)
    try:
        decoded = base64.b64decode(data, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if not decoded or not all(c.isprintable() or c in "\n\t\r" for c in decoded):
        return None
    return decoded


def encoded_spans(text: str, depth: int = 2) -> list[Span]:
    """Base64 runs that decode to text holding a credential (checked ``depth`` deep)."""
    found: list[Span] = []
    for run in _BASE64_RUN.finditer(text):
        decoded = _decoded(run.group())
        if decoded is None:
            continue
        if all_spans(decoded, strict=True, depth=depth - 1):
            found.append(Span(*run.span(), "base64 of a credential"))
    return found


def all_spans(text: str, strict: bool = True, depth: int = 2) -> list[Span]:
    """Credentials in ``text`` as it is, split into pieces, or base64-encoded. Spans index
    ``text``; call it on ``normalised(text)`` to see through format characters."""
    found = spans(text, strict) + joined_spans(text)
    if depth > 0:
        found += encoded_spans(text, depth)
    return found


def kinds(text: str) -> list[str]:
    """The kinds of credential in ``text``, seen through format characters too."""
    found = all_spans(text)
    reading = normalised(text)
    if reading != text:
        found += all_spans(reading)
    return sorted({span.kind for span in found})


def mask(text: str, replacement: str = "[secret]") -> str:
    """``text`` as it reads (``normalised``) with every credential ``all_spans`` finds,
    not strictly, replaced."""
    text = normalised(text)
    found = sorted(all_spans(text, strict=False))
    out: list[str] = []
    position = 0
    for start, end, _kind in found:
        if end <= position:
            continue
        out.append(text[position : max(position, start)])
        out.append(replacement)
        position = end
    out.append(text[position:])
    return "".join(out)
