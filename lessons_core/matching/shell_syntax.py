"""A shell command's simple commands: their words, redirections and here-documents.

``commands.shell_words`` (``shlex``) is enough to read a program's name, but not to tell
which files a command touches (``shell_files``): it keeps no operators (``cat a>b`` is
one word, ``grep '>' f`` reads as a redirect once the quotes are gone), it parses a
here-document's body as shell text, and it is quadratic in a word's length. So this is
the tokenizer for that question: one pass over the text, operators kept apart from the
words (a quoted ``>`` stays a word), here-document bodies cut out by line, never parsed.

Linear in the text: quoted strings and bodies are skipped with ``str.find``, and only the
first ``MAX_SHELL_CHARS`` are read. Malformed shell (an unterminated quote, a body with no
closing delimiter) is read as far as it goes; nothing here raises on any text.

``$(...)``, ``<(...)`` and backticks are kept inside the word they belong to, unparsed:
their value is only known when the shell runs them, and ``shell_files`` leaves such
words out.
"""

from __future__ import annotations

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
# Operators that end a simple command (a newline too).
_ENDS = frozenset({"&&", "||", "|&", ";;", "&", "|", ";", "\n"})


class SimpleCommand(NamedTuple):
    """One simple command: its words (quotes removed), its redirections as (operator,
    target) pairs, a here-document's target being its body, and whether its input is the
    previous command's output (``|``)."""

    words: tuple[str, ...]
    redirects: tuple[tuple[str, str], ...]
    piped: bool = False


# What ``structure`` yields: a simple command, or "(" and ")" around a subshell.
OPEN, CLOSE = "(", ")"


def tokens(text: str) -> list[tuple[str, str]]:
    """``text`` as (kind, text) tokens: words with their quotes removed, operators (a
    newline is one), and each here-document's body where its delimiter word stood."""
    return _Scanner(text[:MAX_SHELL_CHARS]).run()


def structure(text: str) -> list[SimpleCommand | str]:
    """The simple commands of ``text`` in order, with ``OPEN``/``CLOSE`` around subshells."""
    out: list[SimpleCommand | str] = []
    words: list[str] = []
    redirects: list[tuple[str, str]] = []
    piped = next_piped = False
    items = tokens(text)
    index = 0

    def end() -> None:
        nonlocal words, redirects, piped
        if words or redirects:
            out.append(SimpleCommand(tuple(words), tuple(redirects), piped))
        words, redirects = [], []
        piped = next_piped

    while index < len(items):
        kind, value = items[index]
        index += 1
        if kind != OPERATOR:
            words.append(value)
        elif value in _ENDS:
            next_piped = value in ("|", "|&")
            end()
            next_piped = False
        elif value in (OPEN, CLOSE):
            next_piped = False
            end()
            out.append(value)
        else:  # a redirection: its target is the next word or body, if any
            target = ""
            if index < len(items) and items[index][0] != OPERATOR:
                target = items[index][1]
                index += 1
            redirects.append((value, target))
    end()
    return out


class _Scanner:
    """One left-to-right pass; see ``tokens``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.out: list[tuple[str, str]] = []
        self.word: list[str] = []
        self.in_word = False
        self.quoted = False
        # Here-documents whose bodies start after the next newline: (token index, the
        # delimiter, whether leading tabs are stripped).
        self.pending: list[tuple[int, str, bool]] = []
        self.delimiter_next: bool | None = None  # after << (True: <<-)

    def run(self) -> list[tuple[str, str]]:
        text, size, at = self.text, len(self.text), 0
        while at < size and len(self.out) < MAX_TOKENS:
            char = text[at]
            if char in _BLANK:
                self.flush()
                at += 1
            elif char == "\n":
                self.flush()
                self.out.append((OPERATOR, "\n"))
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
                self.out.append((OPERATOR, operator))
                at += len(operator)
            else:
                end = at + 1
                while end < size and text[end] not in _BREAKS:
                    end += 1
                self.add(text[at:end])
                at = end
        self.flush()
        self.bodies(size)
        return self.out

    def add(self, piece: str, quoted: bool = False) -> None:
        self.word.append(piece)
        self.in_word = True
        self.quoted = self.quoted or quoted

    def flush(self) -> None:
        if not self.in_word:
            return
        word = "".join(self.word)
        self.word, self.in_word, self.quoted = [], False, False
        if self.delimiter_next is not None:
            self.pending.append((len(self.out), word, self.delimiter_next))
            self.delimiter_next = None
            self.out.append((BODY, ""))
        else:
            self.out.append((WORD, word))

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
        if number.isdigit():
            self.word, self.in_word = [], False
        else:
            number = ""
            self.flush()
        operator = _longest(self.text, at, _REDIRECTS)
        self.out.append((OPERATOR, number + operator))
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
                    self.out[index] = (BODY, text[start:at])
                    at = end + 1
                    break
                at = end + 1
            else:  # no closing delimiter: the rest of the text is the body
                self.out[index] = (BODY, text[start:size])
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
