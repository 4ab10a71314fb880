"""The commands a file runs, by line, for the kinds of file that hold them: shell scripts,
Makefiles and justfiles, ``package.json`` scripts, CI and task YAML (GitHub Actions
``run:``, GitLab and Bitbucket ``script:``, CircleCI, Azure Pipelines, Travis, Taskfile,
pre-commit ``entry:``), ``tox.ini`` ``commands``, ``noxfile.py`` ``session.run`` and
Dockerfile ``RUN``.

Each command comes with the lines it spans, so a review keeps those a diff adds to (any
line of a multi-line command). The file is read as text, line by line, never run or fully
parsed as YAML or Make: a reviewer needs the commands, and a file that does not parse
still has them. Shell text goes through ``lessons_core.matching.shell_syntax`` to find
here-documents (whose bodies are data, not commands of their own).
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from collections.abc import Callable
from typing import NamedTuple

from lessons_core.matching.shell_syntax import BODY, tokens


class ScriptCommand(NamedTuple):
    line: int  # where it starts (1-based)
    last: int  # the last line it spans
    command: str


SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh", ".bats")
_SHEBANG = re.compile(r"#!\s*\S*/(?:env\s+(?:-\S+\s+)*)?(?:ba|z|k|da|a)?sh\b")
# Words that only shape a script: a line of nothing else runs nothing.
_RESERVED = frozenset("fi done esac then do else elif { } ( ) ;; in".split())
_FUNCTION = re.compile(
    r"^(?:function\s+)?[\w.:-]+\s*\(\s*\)\s*\{?\s*$|^function\s+[\w.:-]+\s*\{?\s*$"
)
_CASE_LABEL = re.compile(r"^\(?[^\s()]+(?:\s*\|\s*[^\s()]+)*\)$")
# The shell syntax around a command on its line, which runs nothing itself: a case
# label before it (``linux)``), ``then``/``do``/``else`` before it, ``;;`` after it; the
# ``if``/``while`` and ``; then``/``; do`` around a condition on a line of its own; a
# ``case … in`` or ``for … in …; do`` header; a closing word with only a redirection
# after it (``done < list``). A one-line compound (``for …; do …; done``) stays whole.
_LABEL_PREFIX = re.compile(r"^\(?[^\s()$`]+(?:\s*\|\s*[^\s()]+)*\)\s+(?=\S)")
_LEAD = re.compile(r"^(?:then|do|else|\{)\s+(?=\S)")
_CONDITION = re.compile(r"^(?:if|elif|while|until)\s+([^;]+?)\s*(?:;?\s*\b(?:then|do))?$")
_CASE_END = re.compile(r"\s*;;$")
_HEADER = re.compile(r"^(?:case\s+\S.*\s+in|(?:for|select)\s+\w+(?:\s+in\b[^;]*)?(?:;?\s*do)?)$")
_CLOSER = re.compile(r"^(?:fi|done|esac|\}|\))\s*(?:[<>].*)?$")
_HEREDOC = re.compile(r"<<-?\s*\\?(['\"]?)([^\s'\"<>;&|()]+)\1")

# YAML files by path: the keys whose values are shell commands.
_GITHUB_KEYS = ("run",)
_YAML_FILES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"(?:^|/)\.github/workflows/[^/]+\.ya?ml$"), _GITHUB_KEYS),
    (re.compile(r"(?:^|/)action\.ya?ml$"), _GITHUB_KEYS),
    (
        re.compile(r"(?:^|/)(?:[^/]+\.)?\.?gitlab-ci\.ya?ml$"),
        ("script", "before_script", "after_script"),
    ),
    (re.compile(r"(?:^|/)\.circleci/config\.ya?ml$"), ("run", "command")),
    (re.compile(r"(?:^|/)azure-pipelines\.ya?ml$"), ("script", "bash")),
    (re.compile(r"(?:^|/)bitbucket-pipelines\.ya?ml$"), ("script",)),
    (
        re.compile(r"(?:^|/)\.travis\.ya?ml$"),
        ("script", "install", "before_install", "before_script", "after_success", "after_script"),
    ),
    (re.compile(r"(?:^|/)[Tt]askfile(?:\.dist)?\.ya?ml$"), ("cmds", "cmd")),
    (re.compile(r"(?:^|/)\.pre-commit-(?:config|hooks)\.ya?ml$"), ("entry",)),
)
_MAKEFILES = frozenset({"Makefile", "makefile", "GNUmakefile"})
_JUSTFILES = frozenset({"justfile", "Justfile", ".justfile"})
_DOCKERFILE = re.compile(
    r"^(?:Dockerfile|Containerfile)(?:\.[^/]+)?$|\.(?:dockerfile|containerfile)$", re.I
)


def extractor(path: str) -> Callable[[str], list[ScriptCommand]] | None:
    """How to read the commands of the file at ``path``, by its name; None when its name
    says nothing (an extensionless file may still be a script: ``may_be_script``)."""
    name = path.rsplit("/", 1)[-1]
    for pattern, keys in _YAML_FILES:
        if pattern.search(path):
            return lambda text: yaml_commands(text, keys)
    if name.endswith(SHELL_SUFFIXES) or name == ".envrc":
        return shell_file
    if name in _MAKEFILES or name.endswith(".mk"):
        return make_commands
    if name in _JUSTFILES or name.endswith(".just"):
        return just_commands
    if name == "package.json":
        return npm_commands
    if name == "tox.ini":
        return tox_commands
    if name == "noxfile.py":
        return nox_commands
    if _DOCKERFILE.search(name):
        return docker_commands
    return None


def may_be_script(path: str) -> bool:
    """A file whose name has no extension: a script if its first line is a shell shebang."""
    return "." not in path.rsplit("/", 1)[-1]


def commands_of(path: str, text: str) -> list[ScriptCommand]:
    """The commands in ``text``, the file at ``path`` (none for a file that holds none)."""
    read = extractor(path)
    if read is None:
        if not (may_be_script(path) and _SHEBANG.match(text)):
            return []
        read = shell_file
    return read(text)


def added(commands: list[ScriptCommand], lines: set[int]) -> list[tuple[int, str]]:
    """(first added line, command) for each of ``commands`` a line of which is in ``lines``."""
    found: list[tuple[int, str]] = []
    for item in commands:
        touched = [n for n in range(item.line, item.last + 1) if n in lines]
        if touched:
            found.append((touched[0], item.command))
    return found


def shell_file(text: str) -> list[ScriptCommand]:
    return shell_commands(text.split("\n"), 1)


def shell_commands(lines: list[str], first: int) -> list[ScriptCommand]:
    """Each logical line of shell (backslash continuations joined, a here-document's body
    kept with the command that reads it) that runs something; line ``first`` is
    ``lines[0]``."""
    found: list[ScriptCommand] = []
    at = 0
    while at < len(lines):
        start = at
        command = lines[at].rstrip("\r")
        at += 1
        while at < len(lines):
            if command.endswith("\\"):
                command = f"{command[:-1].rstrip()} {lines[at].strip()}"
            elif _open_quote(command):  # a quoted string goes on: its newline is the string's
                command = f"{command}\n{lines[at].rstrip()}"
            else:
                break
            at += 1
        command = _without_syntax(command.strip())
        if not _runs_something(command):
            continue
        delimiter = _heredoc(command)
        if delimiter is not None:
            body_start = at
            strip_tabs = "<<-" in command
            while at < len(lines):
                line = lines[at].rstrip("\r")
                at += 1
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
            command = "\n".join([command, *lines[body_start:at]])
        found.append(ScriptCommand(first + start, first + at - 1, command))
    return found


def _open_quote(text: str) -> bool:
    """Whether ``text`` ends inside a quoted string (a comment ends the scan)."""
    quote = ""
    at = 0
    while at < len(text):
        char = text[at]
        if quote == "'":
            quote = "" if char == "'" else quote
        elif char == "\\":
            at += 1
        elif quote == '"':
            quote = "" if char == '"' else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or text[at - 1] in " \t"):
            return False
        at += 1
    return bool(quote)


def _without_syntax(command: str) -> str:
    """``command`` without the shell syntax on its line that runs nothing (see
    ``_LABEL_PREFIX`` above): ``linux) apt-get install -y x ;;`` is ``apt-get install -y x``,
    ``if grep -q x f; then`` is ``grep -q x f``, and a ``case … in`` or ``for … do``
    header is nothing. A line that opens a here-document keeps its body as it is."""
    head, newline, body = command.partition("\n")
    if _HEADER.match(head) or _CLOSER.match(head):
        return ""
    before = None
    while before != head:
        before = head
        head = _LEAD.sub("", _LABEL_PREFIX.sub("", head, count=1), count=1)
        head = _CONDITION.sub(r"\1", _CASE_END.sub("", head)).strip()
    return head + newline + body if head else ""


def _runs_something(command: str) -> bool:
    if not command or command.startswith("#"):
        return False
    if _FUNCTION.match(command) or _CASE_LABEL.match(command):
        return False
    return not all(word in _RESERVED for word in command.replace(";", " ; ").split())


def _heredoc(command: str) -> str | None:
    """The delimiter of a here-document the line opens, if the shell reads one there
    (``shell_syntax`` decides: a quoted ``<<`` is no here-document)."""
    if "<<" not in command or not any(token.kind == BODY for token in tokens(command)):
        return None
    found = _HEREDOC.search(command)
    return found.group(2) if found else None


def make_commands(text: str) -> list[ScriptCommand]:
    """Recipe lines (a tab first), their ``@``, ``-`` and ``+`` prefixes removed."""
    return _indented(text.split("\n"), lambda line: line.startswith("\t"), "@-+")


def just_commands(text: str) -> list[ScriptCommand]:
    """Recipe lines (indented under a recipe), their ``@`` and ``-`` prefixes removed."""
    return _indented(text.split("\n"), lambda line: line[:1] in (" ", "\t"), "@-")


def _indented(
    lines: list[str], is_recipe: Callable[[str], bool], prefixes: str
) -> list[ScriptCommand]:
    """The shell lines of each recipe: a run of recipe lines (blank ones kept, so line
    numbers hold) read as shell, so a here-document's body and a ``case`` block's syntax
    are not commands of their own."""
    found: list[ScriptCommand] = []
    at = 0
    while at < len(lines):
        if not is_recipe(lines[at]) or not lines[at].strip():
            at += 1
            continue
        start = at
        while at < len(lines) and (is_recipe(lines[at]) or not lines[at].strip()):
            at += 1
        body = [_recipe_line(line, prefixes) for line in lines[start:at]]
        found += shell_commands(body, start + 1)
    return found


def _recipe_line(line: str, prefixes: str) -> str:
    """A recipe line as the shell gets it: its indent and make's or just's prefixes off."""
    return line.strip().lstrip(prefixes).strip()


_JSON_PAIR = re.compile(r'^\s*("(?:[^"\\]|\\.)*")\s*:\s*("(?:[^"\\]|\\.)*")\s*,?\s*$')


def package_scripts(text: str) -> dict[str, object]:
    """``package.json``'s ``scripts`` (name to command), empty when the text is not JSON
    or holds none."""
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return scripts if isinstance(scripts, dict) else {}


def npm_commands(text: str) -> list[ScriptCommand]:
    """Each entry of ``package.json``'s ``scripts``, at the line that holds it."""
    scripts = package_scripts(text)
    if not scripts:
        return []
    found: list[ScriptCommand] = []
    for number, line in enumerate(text.split("\n"), 1):
        pair = _JSON_PAIR.match(line)
        if pair is None:
            continue
        key, value = json.loads(pair.group(1)), json.loads(pair.group(2))
        if scripts.get(key) == value and value.strip():
            found.append(ScriptCommand(number, number, value))
    return found


def tox_commands(text: str) -> list[ScriptCommand]:
    """Each line of a ``commands``, ``commands_pre`` or ``commands_post`` value."""
    found: list[ScriptCommand] = []
    lines = text.split("\n")
    key = re.compile(r"^(?:commands|commands_pre|commands_post)\s*[=:]\s*(.*)$")
    at = 0
    while at < len(lines):
        head = key.match(lines[at])
        at += 1
        if head is None:
            continue
        values = [(at, head.group(1))]
        while at < len(lines) and lines[at][:1] in (" ", "\t"):
            values.append((at + 1, lines[at]))
            at += 1
        found.extend(
            ScriptCommand(number, number, value.strip().removeprefix("- ").strip())
            for number, value in values
            if value.strip() and not value.strip().startswith("#")
        )
    return found


def nox_commands(text: str) -> list[ScriptCommand]:
    """Each ``session.run(...)`` (``run_always``, ``run_install``) whose arguments are
    plain strings, as the shell line it runs."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    found: list[ScriptCommand] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in ("run", "run_always", "run_install"):
            continue
        words = [a.value for a in node.args if isinstance(a, ast.Constant)]
        if words and all(isinstance(word, str) for word in words):
            end = node.end_lineno or node.lineno
            found.append(ScriptCommand(node.lineno, end, shlex.join(map(str, words))))
    return sorted(found)


_RUN = re.compile(r"^\s*RUN\s+(.*)$", re.I)
_RUN_FLAG = re.compile(r"^(?:--[\w-]+(?:=\S*)?\s+)+")


def docker_commands(text: str) -> list[ScriptCommand]:
    """Each ``RUN`` instruction: shell form with its continuations, or exec form."""
    lines = text.split("\n")
    found: list[ScriptCommand] = []
    at = 0
    while at < len(lines):
        head = _RUN.match(lines[at])
        start = at
        at += 1
        if head is None:
            continue
        pieces = [head.group(1).rstrip()]
        continued = pieces[-1].endswith("\\")
        while continued and at < len(lines):
            pieces[-1] = pieces[-1].removesuffix("\\").rstrip()
            line = lines[at].strip()
            at += 1
            if not line.startswith("#"):  # Docker drops comment lines inside a RUN
                pieces.append(line)
                continued = line.endswith("\\")
        command = _RUN_FLAG.sub("", " ".join(p for p in pieces if p)).strip()
        if command.startswith("["):
            try:
                words = json.loads(command)
                command = shlex.join(str(word) for word in words)
            except (ValueError, TypeError):
                pass
        if command:
            found.append(ScriptCommand(start + 1, at, command))
    return found


_YAML_KEY = re.compile(r"^(\s*)(?:-\s+)?([\w-]+)\s*:(?:\s+(.*?))?\s*$")
_BLOCK = re.compile(r"^[|>][+-]?\d*[+-]?(?:\s+#.*)?$")


def yaml_commands(text: str, keys: tuple[str, ...]) -> list[ScriptCommand]:
    """The values of ``keys`` anywhere in a YAML file: a plain or quoted scalar, a block
    scalar (``|``: each shell line; ``>``: folded into one), or a list of those."""
    lines = text.split("\n")
    found: list[ScriptCommand] = []
    at = 0
    while at < len(lines):
        head = _YAML_KEY.match(lines[at].rstrip("\r"))
        at += 1
        if head is None or head.group(2) not in keys:
            continue
        column = len(lines[at - 1]) - len(lines[at - 1].lstrip(" -"))
        value = (head.group(3) or "").strip()
        if value:
            end, items = _yaml_value(lines, at, column, value, at)
            found.extend(items)
            at = end
            continue
        # A list under the key: "- item" lines at least as far in as the key itself.
        while at < len(lines):
            line = lines[at].rstrip("\r")
            stripped = line.strip()
            indent = len(line) - len(line.lstrip(" "))
            if not stripped or stripped.startswith("#"):
                at += 1
                continue
            if not stripped.startswith("- ") or indent < column:
                break
            at += 1
            at, items = _yaml_value(lines, at, indent, stripped[2:].strip(), at)
            found.extend(items)
    return found


def _yaml_value(
    lines: list[str], at: int, column: int, value: str, number: int
) -> tuple[int, list[ScriptCommand]]:
    """The commands of one scalar that starts on line ``number`` (``lines[at - 1]``) with
    ``value``; a block or continuation takes the following lines indented past
    ``column``. Returns the index after it."""
    block: list[str] = []
    while at + len(block) < len(lines):
        line = lines[at + len(block)].rstrip("\r")
        if line.strip() and len(line) - len(line.lstrip(" ")) <= column:
            break
        block.append(line)
    while block and not block[-1].strip():
        block.pop()
    end = at + len(block)
    if _BLOCK.match(value):
        if not block:
            return end, []
        margin = min(len(line) - len(line.lstrip(" ")) for line in block if line.strip())
        body = [line[margin:] for line in block]
        if value.startswith(">"):
            joined = " ".join(line.strip() for line in body if line.strip())
            return end, [ScriptCommand(number + 1, number + len(block), joined)]
        return end, shell_commands(body, number + 1)
    if value.startswith("[") or value.startswith("{"):
        return end, []  # a flow collection: not a command line
    text = " ".join([_unquoted(value), *(line.strip() for line in block)]).strip()
    return end, [ScriptCommand(number, number + len(block), text)] if text else []


def _unquoted(value: str) -> str:
    if len(value) > 1 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if len(value) > 1 and value[0] == value[-1] == '"':
        try:
            decoded = json.loads(value)
            return decoded if isinstance(decoded, str) else value
        except ValueError:
            return value[1:-1]
    comment = value.find(" #")
    return value[:comment].rstrip() if comment >= 0 else value
