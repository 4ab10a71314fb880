"""The tokens of a shell command: words, operators and here-document bodies.

``shell_command.parse`` builds its one parse of a command from them. ``shlex`` does not
do: it keeps no operators (``cat a>b`` is one word, ``grep '>' f`` reads as a redirect
once the quotes are gone), it parses a here-document's body as shell text, and it is
quadratic in a word's length. So this is one pass over the text, operators kept apart
from the words (a quoted ``>`` stays a word), here-document bodies cut out by line,
never parsed; each token keeps where it stands, so a simple command's text can be cut
out as written.

Linear in the text: quoted strings and bodies are skipped with ``str.find``, and only the
first ``MAX_SHELL_CHARS`` are read. Malformed shell (an unterminated quote, a body with no
closing delimiter) is read as far as it goes; nothing here raises on any text.

``$(...)``, ``<(...)`` and backticks are kept inside the word they belong to: their
value is only known when the shell runs them, and ``shell_files`` leaves such words
out. Where a command substitution's text stands is noted (``scan``), so the commands in
it can be parsed too.
"""

# Annotations are evaluated, not postponed (no ``from __future__ import annotations``):
# a NamedTuple compiles each string annotation of its fields when its class is made.
from typing import NamedTuple

# The most of a command that is read; a generated script or a patch is longer, and what it
# names past this point is not looked for.
MAX_SHELL_CHARS = 65_536
# And at most this many tokens of it: a command is a few dozen, a long script a few
# thousand; each costs a few microseconds more after it (a simple command, a cd to join).
MAX_TOKENS = 8192

# Token kinds.
WORD, OPERATOR, BODY = "word", "op", "body"
# What ends a word outside quotes.
_BREAKS = frozenset(" \t\r\n;&|<>()'\"\\`$#")
_BLANK = frozenset(" \t\r")
# Operators of more than one character (one of ``;&|()<>`` alone is one too).
_REDIRECTS = frozenset({"<<<", "<<-", "<<", "<>", "<&", ">>", ">|", ">&"})
_CONTROLS = frozenset({"&&", "||", "|&", ";;", "&>>", "&>"})


class Token(NamedTuple):
    """A word (quotes removed), an operator (a newline is one) or a here-document's body,
    with where it stands in the text: a body stands where its delimiter word does."""

    kind: str
    text: str
    start: int
    end: int


def tokens(text: str) -> list[Token]:
    """``text`` as tokens: words with their quotes removed, operators, and each
    here-document's body where its delimiter word stood."""
    return scan(text)[0]


def scan(text: str) -> tuple[list[Token], list[tuple[int, int]]]:
    """``tokens``, and where the text of each command substitution (``$(...)`` or a
    backtick, outside double quotes) stands: (start, end)."""
    scanner = _Scanner(text[:MAX_SHELL_CHARS])
    return scanner.run(), scanner.substitutions


class _Scanner:
    """One left-to-right pass; see ``tokens``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.out: list[Token] = []
        self.word: list[str] = []
        self.in_word = False
        self.quoted = False
        self.at = 0  # where the character being read stands
        self.word_start = 0
        # Here-documents whose bodies start after the next newline: (token index, the
        # delimiter, whether leading tabs are stripped).
        self.pending: list[tuple[int, str, bool]] = []
        self.delimiter_next: bool | None = None  # after << (True: <<-)
        # Where the text of each ``$(...)`` and backtick outside double quotes stands.
        self.substitutions: list[tuple[int, int]] = []

    def run(self) -> list[Token]:
        text, size, at = self.text, len(self.text), 0
        while at < size and len(self.out) < MAX_TOKENS:
            char = text[at]
            self.at = at
            if char in _BLANK:
                self.flush()
                at += 1
            elif char == "\n":
                self.flush()
                self.out.append(Token(OPERATOR, "\n", at, at + 1))
                at = self.bodies(at + 1)
            elif char == "\\":
                if text[at + 1 : at + 2] != "\n":  # a backslash-newline joins two lines
                    self.add(text[at + 1 : at + 2], quoted=True)
                at += 2
            elif char == "'":
                at = self.single(at + 1)
            elif char == '"':
                at = self.double(at + 1)
            elif char == "$":
                at = self.dollar(at)
            elif char == "`":
                end = _closing_backtick(text, at + 1)
                self.substitutions.append((at + 1, end - (text[end - 1 : end] == "`")))
                self.add(text[at:end])
                at = end
            elif char == "#" and not self.in_word:
                newline = text.find("\n", at)
                at = size if newline < 0 else newline
            elif char in "<>" and text[at + 1 : at + 2] == "(":  # process substitution
                end = _closing_paren(text, at + 2)
                self.add(text[at:end])
                at = end
            elif char in "<>":
                at = self.redirect(at)
            elif char in ";&|()":
                self.flush()
                operator = _longest(text, at, _CONTROLS)
                self.out.append(Token(OPERATOR, operator, at, at + len(operator)))
                at += len(operator)
            else:
                end = at + 1
                while end < size and text[end] not in _BREAKS:
                    end += 1
                self.add(text[at:end])
                at = end
        self.at = min(at, size)
        self.flush()
        self.bodies(size)
        return self.out

    def add(self, piece: str, quoted: bool = False) -> None:
        if not self.in_word:
            self.word_start = self.at
        self.word.append(piece)
        self.in_word = True
        self.quoted = self.quoted or quoted

    def flush(self) -> None:
        if not self.in_word:
            return
        word = "".join(self.word)
        self.word, self.in_word, self.quoted = [], False, False
        span = (self.word_start, self.at)
        if self.delimiter_next is not None:
            self.pending.append((len(self.out), word, self.delimiter_next))
            self.delimiter_next = None
            self.out.append(Token(BODY, "", *span))
        else:
            self.out.append(Token(WORD, word, *span))

    def single(self, at: int) -> int:
        end = self.text.find("'", at)
        end = len(self.text) if end < 0 else end
        self.add(self.text[at:end], quoted=True)
        return end + 1

    def double(self, at: int) -> int:
        """A double-quoted string: a backslash escapes only ``$ ` " \\`` and a newline."""
        text, pieces = self.text, []
        while True:
            quote, slash = text.find('"', at), text.find("\\", at)
            if quote < 0:
                pieces.append(text[at:])
                at = len(text)
                break
            if slash < 0 or quote < slash:
                pieces.append(text[at:quote])
                at = quote + 1
                break
            pieces.append(text[at:slash])
            escaped = text[slash + 1 : slash + 2]
            pieces.append(
                escaped if escaped in '$`"\\' else "" if escaped == "\n" else "\\" + escaped
            )
            at = slash + 2
        self.add("".join(pieces), quoted=True)
        return at

    def dollar(self, at: int) -> int:
        text = self.text
        following = text[at + 1 : at + 2]
        if following == "'":  # $'...': C escapes, read as a plain quoted string
            return self.single(at + 2)
        if following == "(":
            end = _closing_paren(text, at + 2)
            self.substitutions.append((at + 2, end - (text[end - 1 : end] == ")")))
        elif following == "{":
            close = text.find("}", at + 2)
            end = len(text) if close < 0 else close + 1
        else:
            end = at + 1
        self.add(text[at:end] if end > at + 1 else "$")
        return end

    def redirect(self, at: int) -> int:
        # A word of digits right before the operator is the descriptor it redirects.
        number = "".join(self.word) if self.in_word and not self.quoted else ""
        start = at
        if number.isdigit():
            self.word, self.in_word, start = [], False, self.word_start
        else:
            number = ""
            self.flush()
        operator = _longest(self.text, at, _REDIRECTS)
        self.out.append(Token(OPERATOR, number + operator, start, at + len(operator)))
        if operator in ("<<", "<<-"):
            self.delimiter_next = operator == "<<-"
        return at + len(operator)

    def bodies(self, at: int) -> int:
        """Cut out the bodies of the here-documents begun on the line that just ended."""
        text, size = self.text, len(self.text)
        for index, delimiter, strip_tabs in self.pending:
            start = at
            while at < size:
                newline = text.find("\n", at)
                end = size if newline < 0 else newline
                line = text[at:end].rstrip("\r")
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    self.out[index] = self.out[index]._replace(text=text[start:at])
                    at = end + 1
                    break
                at = end + 1
            else:  # no closing delimiter: the rest of the text is the body
                self.out[index] = self.out[index]._replace(text=text[start:size])
                at = size
        self.pending = []
        return min(at, size)


def _longest(text: str, at: int, operators: frozenset[str]) -> str:
    """The longest of ``operators`` at ``at`` (each is at most three characters)."""
    for size in (3, 2):
        if text[at : at + size] in operators:
            return text[at : at + size]
    return text[at]


def _closing_paren(text: str, at: int) -> int:
    """Just past the ``)`` closing the ``(`` before ``at``, skipping quoted text."""
    depth, size = 1, len(text)
    while at < size:
        char = text[at]
        if char == "'":
            close = text.find("'", at + 1)
            at = size if close < 0 else close + 1
            continue
        if char == "\\":
            at += 2
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return at + 1
        at += 1
    return size


def _closing_backtick(text: str, at: int) -> int:
    size = len(text)
    while at < size:
        close = text.find("`", at)
        if close < 0:
            return size
        if text[close - 1] != "\\":
            return close + 1
        at = close + 1
    return size
