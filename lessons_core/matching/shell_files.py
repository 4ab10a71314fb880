"""Which files a shell command reads and writes, named in the command itself.

``shell_file_effects("cd web && sed -i 's/a/b/' src/x.ts > /dev/null")`` is
``ShellFiles(reads=(), writes=("web/src/x.ts",))``: the paths as written, quotes removed,
joined to the folder of a ``cd`` before them; the caller makes them repo-relative.

Writes are every file the command changes: a redirection (``>``, ``>>``, ``&>``, ``>|``,
``2>``...; never ``/dev/*``), ``tee``, ``sed -i``, ``perl -i``, the destination of ``cp``,
``mv`` (its sources too: they are gone), ``install`` and ``ln``, ``touch``, ``truncate``,
``dd of=``, ``sort -o``, ``uniq IN OUT``, ``curl -o``, ``wget -O``,
``rm``/``rmdir``/``unlink`` (a deletion is a change), ``git mv``/``rm``/
``restore``/``checkout -- PATH``, and a patch: ``patch FILE``, and the files a patch
names when its text is in the command (a here-document given to ``patch``, ``git apply``
or ``apply_patch``, or ``apply_patch``'s argument).

Reads are pure looks at a named file: ``cat``, ``nl``, ``head``, ``tail``, ``less``,
``more``, ``bat``, ``wc``, ``sed`` without ``-i``, ``grep``/``rg``/``ag``/``ack`` past
their pattern, ``awk`` past its program, ``jq`` past its filter, ``diff``, ``cmp``,
``sort``, ``file``, ``stat`` and the like, and ``< FILE`` given to one of them. Only
explicit file operands: a search of ``.`` or of ``src/`` (a trailing slash) names no file,
and another operand that is a folder on disk is the caller's to drop (it can look).

Left out, because the command alone does not say: a word whose value the shell computes
(``$VAR``, ``$(...)``, a backtick, ``~``), a relative path after a ``cd`` whose target is
not a literal, what ``python - <<EOF`` or ``make`` writes, and a patch read from a file.
``bash -c 'SCRIPT'`` (Codex's ``bash -lc``) is read as the script it runs.

A ``cd`` inside a subshell (``(cd x && ...)``) ends with it. Nothing here raises or
hangs: see ``shell_syntax``.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, NamedTuple

from lessons_core.matching.patch_paths import (
    apply_patch_paths,
    is_patch,
    patch_added,
    patch_text_paths,
)
from lessons_core.matching.shell_syntax import OPEN, SimpleCommand, structure

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


class ShellFiles(NamedTuple):
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    # (file, text the command writes into it, as the command spells it out): a
    # here-document or here-string given to ``cat``/``tee``, ``echo``/``printf``'s words,
    # redirected into the file or ``tee``'d; a patch's added lines (``patch_added``).
    added: tuple[tuple[str, str], ...] = ()


# How deep ``bash -c`` inside ``bash -c`` is followed.
MAX_NESTED_SHELLS = 3
# PATH_MAX: no longer path names a file.
MAX_PATH_CHARS = 4096

_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
# Programs that run the next program: (program, its options that take a value).
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-h", "-p", "-U", "-r", "-t", "-D", "--user"}),
    "env": frozenset({"-u", "-S", "--unset", "--split-string"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "-o"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
}
# Shell words that come before a command: ``if``, ``then``, ``!`` ...
_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}"})
_SKIPPED = frozenset({"fi", "done", "esac", "for", "case", "select", "function"})


def _options(text: str) -> frozenset[str]:
    return frozenset(text.split())


class _Reader(NamedTuple):
    """How a reading program's operands are laid out: its options that take a value, and
    whether its first operand is a pattern or program rather than a file (unless one of
    ``given`` supplies it)."""

    valued: frozenset[str] = frozenset()
    pattern_first: bool = False
    given: frozenset[str] = frozenset()


_GREP = _Reader(
    _options(
        "-e -f -m -A -B -C -d -D --regexp --file --max-count --after-context "
        "--before-context --context --include --exclude --exclude-dir --label --binary-files "
        "--devices --directories"
    ),
    pattern_first=True,
    given=_options("-e -f --regexp --file"),
)
_RG = _Reader(
    _options(
        "-e -f -g -t -T -m -A -B -C -M -j -r -E -d --regexp --file --glob --iglob --type "
        "--type-not --max-count --after-context --before-context --context --max-columns "
        "--replace --encoding --threads --sort --sortr --max-depth --pre --pre-glob "
        "--type-add --engine --max-filesize --ignore-file --context-separator "
        "--field-match-separator --path-separator --colors --color"
    ),
    pattern_first=True,
    given=_options("-e -f --regexp --file --files --type-list"),
)
_READERS: dict[str, _Reader] = {
    "cat": _Reader(),
    "tac": _Reader(),
    "nl": _Reader(_options("-b -d -f -h -i -l -n -s -v -w")),
    "head": _Reader(_options("-n -c --lines --bytes")),
    "tail": _Reader(_options("-n -c -s --lines --bytes --pid --sleep-interval")),
    "less": _Reader(_options("-b -h -j -k -o -O -p -P -t -T -x -y -z")),
    "more": _Reader(_options("-n")),
    "bat": _Reader(
        _options(
            "-l -r -H -m --language --line-range --highlight-line --style --theme "
            "--map-syntax --tabs --wrap --terminal-width --color --decorations --paging"
        )
    ),
    "wc": _Reader(),
    "file": _Reader(_options("-m -f -F -e -P")),
    "stat": _Reader(_options("-c -f --format --printf")),
    "diff": _Reader(_options("-x -X -I -F -L --label --exclude --from-file --to-file")),
    "cmp": _Reader(_options("-i -n --ignore-initial --bytes")),
    "sort": _Reader(_options("-k -t -S -T -o --key --field-separator --buffer-size --output")),
    "uniq": _Reader(_options("-f -s -w")),
    "cut": _Reader(_options("-b -c -d -f --bytes --characters --delimiter --fields")),
    "od": _Reader(_options("-A -j -N -t -w")),
    "xxd": _Reader(_options("-c -g -l -o -s")),
    "hexdump": _Reader(_options("-e -f -n -s")),
    "strings": _Reader(_options("-n -t -e")),
    "md5sum": _Reader(),
    "sha1sum": _Reader(),
    "sha256sum": _Reader(),
    "shasum": _Reader(_options("-a")),
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": _RG,
    "ag": _Reader(_options("-A -B -C -G -m --ignore --file-search-regex"), pattern_first=True),
    "ack": _Reader(_options("-A -B -C -m --type"), pattern_first=True),
    "awk": _Reader(_options("-F -v -f"), pattern_first=True, given=_options("-f")),
    "sed": _Reader(
        _options("-e -f -l --expression --file --line-length"),
        pattern_first=True,
        given=_options("-e -f --expression --file"),
    ),
    "jq": _Reader(
        _options("-f -L --from-file --indent"),
        pattern_first=True,
        given=_options("-f --from-file"),
    ),
}
for _alias, _same in (("batcat", "bat"), ("gawk", "awk"), ("mawk", "awk"), ("zcat", "cat")):
    _READERS[_alias] = _READERS[_same]
# jq options that take two values (a name and a value or file).
_JQ_PAIRS = _options("--arg --argjson --slurpfile --rawfile")
_JQ_REST = _options("--args --jsonargs")  # the operands after these are values, not files

# Programs whose operands are all changed files, with their options that take a value.
_CHANGERS: dict[str, frozenset[str]] = {
    "tee": frozenset(),
    "touch": _options("-d -t -r --date --reference"),
    "truncate": _options("-s -r --size --reference"),
    "rm": frozenset(),
    "rmdir": frozenset(),
    "unlink": frozenset(),
    "shred": _options("-n -s --iterations --size"),
}
_COPY_VALUED = _options(
    "-t -S -m -o -g --target-directory --suffix --mode --owner --group --strip-program"
)
_PATCH_VALUED = _options(
    "-p -i -o -d -r -B -D -F -V -z -g -Y --strip --input --output --directory "
    "--reject-file --prefix --suffix --ifdef --fuzz --version-control --basename-prefix --get"
)
_GIT_APPLY_VALUED = _options("-p -C --directory --exclude --include --whitespace")
_GIT_APPLY_DRY = _options("--check --stat --numstat --summary")


def shell_file_effects(command: str) -> ShellFiles:
    """The files ``command`` reads and writes (see the module docstring)."""
    reads: dict[str, None] = {}
    writes: dict[str, None] = {}
    added: list[tuple[str, str]] = []
    _effects(command, "", reads, writes, 0, added)
    return ShellFiles(tuple(reads), tuple(writes), tuple(added))


class _Effects(NamedTuple):
    reads: list[str]
    writes: list[str]
    cd: str | None = None  # the folder a cd moved to ("": unknown), None: no cd
    added: tuple[tuple[str, str], ...] = ()  # see ``ShellFiles.added``


def _effects(
    command: str,
    cwd: str | None,
    reads: dict[str, None],
    writes: dict[str, None],
    depth: int,
    added: list[tuple[str, str]],
) -> None:
    """Add what ``command`` reads and writes, run in ``cwd`` (None: not known), to the two."""
    scopes: list[str | None] = [cwd]
    previous: SimpleCommand | None = None
    moved: str | None = None  # where the last command's cd went, once no pipe follows it
    for item in structure(command):
        piped = not isinstance(item, str) and item.piped
        if moved is not None and not piped:  # a cd in a pipeline runs in a subshell
            scopes[-1] = _joined(scopes[-1], moved) if moved else None
        moved = None
        if isinstance(item, str):  # a subshell opens (its cd ends with it) or closes
            if item == OPEN:
                scopes.append(scopes[-1])
            elif len(scopes) > 1:
                scopes.pop()
            continue
        here = scopes[-1]
        found = _simple(item, previous, here, reads, writes, depth, added)
        previous = item
        if not piped:
            moved = found.cd
        for path in found.reads:
            _add(reads, here, path)
        for path in found.writes:
            _add(writes, here, path)
        for path, text in found.added:
            joined = None if _computed(path) else _joined(here, path)
            if joined:
                added.append((joined, text))


def _add(into: dict[str, None], cwd: str | None, path: str) -> None:
    if not path or _computed(path):
        return
    joined = _joined(cwd, path)
    if joined:
        into.setdefault(joined, None)


def _joined(cwd: str | None, path: str) -> str | None:
    """``path`` in the folder ``cwd``; None when that is not known, or when the two make a
    path longer than any system takes (a chain of thousands of ``cd``)."""
    if cwd is None and not posixpath.isabs(path):
        return None
    if not cwd:
        return path
    if len(cwd) + len(path) >= MAX_PATH_CHARS:
        return None
    return posixpath.normpath(posixpath.join(cwd, path))


def _computed(word: str) -> bool:
    """A word whose value the shell computes when it runs: it names no known file."""
    return "$" in word or "`" in word or word.startswith(("~", "<(", ">("))


def _simple(
    command: SimpleCommand,
    previous: SimpleCommand | None,
    cwd: str | None,
    reads: dict[str, None],
    writes: dict[str, None],
    depth: int,
    added: list[tuple[str, str]],
) -> _Effects:
    words = _program_words(list(command.words))
    program = words[0].rsplit("/", 1)[-1] if words else ""
    args = words[1:]
    found = _Effects([], [])
    if program in ("cd", "pushd", "popd"):
        found = _Effects([], [], _cd_target(program, args))
    elif program in _SHELLS:
        script = _shell_script(args)
        if script is not None and depth < MAX_NESTED_SHELLS:
            _effects(script, cwd, reads, writes, depth + 1, added)
    elif program in _PROGRAMS:
        found = _PROGRAMS[program](args, _stdin_text(command, previous))
    elif program in _READERS:
        found = _Effects(_read_operands(program, args), [])
    elif program in _CHANGERS:
        found = _Effects([], _operands(args, _CHANGERS[program]))
    redirected = len(found.writes)
    for operator, target in command.redirects:
        _redirect(operator, target, program, found)
    text = _literal_output(program, args, command, previous)
    if text:  # into the files it redirects to, and those tee writes
        into = found.writes if program == "tee" else found.writes[redirected:]
        found = found._replace(added=(*found.added, *((path, text) for path in into)))
    return found


def _literal_output(
    program: str, args: list[str], command: SimpleCommand, previous: SimpleCommand | None
) -> str:
    """What a command prints when the command itself spells it out: ``echo``/``printf``'s
    words, the here-document or here-string ``cat`` (without a file) or ``tee`` reads, or
    the text ``cat <<EOF``/``echo`` pipes to it; "" when that is not known."""
    if program in ("echo", "printf"):
        if any(_computed(word) for word in args):
            return ""  # the shell computes part of it
        return " ".join(word for word in args if word not in ("-n", "-e", "-E"))
    if program not in ("cat", "tee") or (program == "cat" and args):
        return ""
    for operator, target in command.redirects:
        if operator in ("<<", "<<-", "<<<"):
            return target
    if command.piped and previous is not None:
        words = _program_words(list(previous.words))
        head = words[0].rsplit("/", 1)[-1] if words else ""
        return _literal_output(head, words[1:], previous, None) if head != "tee" else ""
    return ""


def _program_words(words: list[str]) -> list[str]:
    """The words from the program on: assignments, keywords and wrappers dropped."""
    index = 0
    while index < len(words):
        word = words[index]
        if word in _KEYWORDS or _assignment(word):
            index += 1
        elif word in _SKIPPED:
            return []
        elif word in _WRAPPERS:
            index = _past_options(words, index + 1, _WRAPPERS[word])
            if word == "timeout" and index < len(words):
                index += 1  # its duration
            if word == "command" and index > 0 and words[index - 1] in ("-v", "-V"):
                return []  # looks a program up, runs nothing
        else:
            return words[index:]
    return []


def _assignment(word: str) -> bool:
    name, equals, _value = word.partition("=")
    return bool(equals) and name.replace("_", "a").isalnum() and not name[:1].isdigit()


def _past_options(words: list[str], index: int, valued: frozenset[str]) -> int:
    """The index of the first word at or after ``index`` that is not an option (or an
    option's value, or an ``env`` assignment)."""
    while index < len(words):
        word = words[index]
        if word == "--":
            return index + 1
        if _assignment(word):
            index += 1
        elif word.startswith("-") and len(word) > 1:
            index += 2 if word in valued else 1
        else:
            return index
    return index


def _operands(args: Sequence[str], valued: frozenset[str]) -> list[str]:
    """The operands of ``args``: not options, nor the values of those in ``valued``
    (``-n 5``, ``--lines 5``; ``-n5`` and ``--lines=5`` carry theirs). A short option
    that takes a value ends its cluster: ``-bA 3`` takes 3 for ``-A``."""
    out: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if word == "--":
            out.extend(args[index:])
            break
        if word.startswith("--"):
            if "=" not in word and word in valued:
                index += 1
        elif word.startswith("-") and len(word) > 1 and not word[1:].isdigit():
            for at in range(1, len(word)):
                if "-" + word[at] in valued:
                    index += 1 if at == len(word) - 1 else 0
                    break
        elif not (word.startswith("-") and len(word) > 1):
            out.append(word)
    return out


def _given(
    args: Sequence[str], options: frozenset[str], valued: frozenset[str] = frozenset()
) -> bool:
    """Whether one of ``options`` is among ``args``; a short one also inside a cluster
    (``-ne``), up to an option of ``valued``, whose value the rest of the cluster is."""
    for word in args:
        if word == "--":
            return False
        if word.split("=", 1)[0] in options:
            return True
        if word[:1] == "-" and word[1:2] != "-":
            for letter in word[1:]:
                if "-" + letter in options:
                    return True
                if "-" + letter in valued:
                    break
    return False


def _read_operands(program: str, args: list[str]) -> list[str]:
    reader = _READERS[program]
    if program == "jq":
        args = _jq_args(args)
    operands = _operands(args, reader.valued)
    if reader.pattern_first and not _given(args, reader.given, reader.valued):
        operands = operands[1:]
    if program in ("awk", "gawk", "mawk"):
        operands = [word for word in operands if not _assignment(word)]
    # A search of a folder names no file of its own.
    return [word for word in operands if word not in (".", "..", "-") and not word.endswith("/")]


def _jq_args(args: list[str]) -> list[str]:
    """jq's arguments with ``--arg NAME VALUE`` pairs and what follows ``--args`` removed."""
    kept: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        if word in _JQ_REST:
            break
        if word in _JQ_PAIRS:
            index += 3
            continue
        kept.append(word)
        index += 1
    return kept


def _in_place(args: Sequence[str]) -> bool:
    """Whether sed's arguments edit in place: ``-i``, ``-i.bak``, ``-Ei``, ``--in-place``."""
    return any(
        word.startswith("--in-place")
        or (word[:1] == "-" and word[1:2] != "-" and "i" in word[1:].split("e")[0])
        for word in args
        if word != "--"
    )


def _sed(args: list[str], _stdin: str) -> _Effects:
    if not _in_place(args):
        return _Effects(_read_operands("sed", args), [])
    kept: list[str] = []
    index = 0
    while index < len(args):  # -i's suffix, attached or (BSD) given apart as ''
        word = args[index]
        index += 1
        if word in ("-i", "-I") and index < len(args) and args[index] == "":
            index += 1
        kept.append(word if not word.startswith("-i") else "-i")
    operands = _operands(kept, _READERS["sed"].valued)
    if not _given(kept, _READERS["sed"].given, _READERS["sed"].valued):
        operands = operands[1:]
    return _Effects([], operands)


def _perl(args: list[str], _stdin: str) -> _Effects:
    """``perl -i[SUFFIX] -pe CODE FILES``: the files, edited in place."""
    in_place = code = False
    files: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if word == "--":
            files.extend(args[index:])
            break
        if word.startswith("-") and len(word) > 1:
            for at in range(1, len(word)):
                letter = word[at]
                if letter == "i":
                    in_place = True
                    break  # the rest of the cluster is the backup suffix
                if letter in "eE":
                    code = True
                    index += 1 if at == len(word) - 1 else 0
                    break
                if letter in "IMmxCd0l":
                    break  # the rest of the cluster is this option's value
        elif not code:
            code = True  # the script's file
        else:
            files.append(word)
    return _Effects([], files if in_place else [])


def _copy(program: str) -> Callable[[list[str], str], _Effects]:
    """``cp``/``mv``/``install``/``ln``: the destination (and ``mv``'s sources)."""

    def effects(args: list[str], _stdin: str) -> _Effects:
        if program == "install" and _given(args, _options("-d --directory")):
            return _Effects([], [])
        target = _value_of(args, ("-t", "--target-directory"))
        operands = _operands(args, _COPY_VALUED)
        if program == "ln" and target is None and len(operands) == 1:
            target = "."
        if target is not None:
            sources, into = operands, target
        elif len(operands) >= 2:
            sources, into = operands[:-1], operands[-1]
            if len(operands) == 2 and not into.endswith("/") and into not in (".", ".."):
                return _Effects([], [*(sources if program == "mv" else ()), into])
        else:
            return _Effects([], [])
        names = [posixpath.basename(source.rstrip("/")) for source in sources]
        placed = [posixpath.normpath(posixpath.join(into, name)) for name in names if name]
        return _Effects([], [*(sources if program == "mv" else ()), *placed])

    return effects


def _value_of(args: Sequence[str], names: tuple[str, ...]) -> str | None:
    """The value given to the option ``names`` (``-t DIR``, ``-tDIR``, ``--x=DIR``)."""
    short, long = names
    for index, word in enumerate(args):
        if word == "--":
            return None
        if word in names:
            return args[index + 1] if index + 1 < len(args) else None
        if word.startswith(long + "="):
            return word[len(long) + 1 :]
        if word.startswith(short) and not word.startswith("--") and len(word) > len(short):
            return word[len(short) :]
    return None


def _dd(args: list[str], _stdin: str) -> _Effects:
    return _Effects([], [word[3:] for word in args if word.startswith("of=")])


def _sort(args: list[str], _stdin: str) -> _Effects:
    """``sort [-o OUT] FILES``: reads the files, writes ``OUT``."""
    output = _value_of(args, ("-o", "--output"))
    return _Effects(_read_operands("sort", args), [output] if output else [])


def _uniq(args: list[str], _stdin: str) -> _Effects:
    """``uniq [IN [OUT]]``: the second operand is where it writes."""
    operands = _read_operands("uniq", args)
    return _Effects(operands[:1], operands[1:2])


def _download(option: tuple[str, str]) -> Callable[[list[str], str], _Effects]:
    """``curl -o FILE`` and ``wget -O FILE`` write the file the option names."""

    def effects(args: list[str], _stdin: str) -> _Effects:
        output = _value_of(args, option)
        return _Effects([], [output] if output and output != "-" else [])

    return effects


def _patch(args: list[str], stdin: str) -> _Effects:
    """``patch [-pN] [-d DIR] [-o OUT] [FILE [PATCHFILE]]``."""
    if _given(args, _options("--dry-run")):
        return _Effects([], [])
    output = _value_of(args, ("-o", "--output"))
    if output is not None:
        return _Effects([], [output])
    operands = _operands(args, _PATCH_VALUED)
    if operands:
        return _Effects([], operands[:1])
    if _value_of(args, ("-i", "--input")) is not None:
        return _Effects([], [])  # the patch is in a file: what it names is not known here
    strip = _strip(_value_of(args, ("-p", "--strip")))
    folder = _value_of(args, ("-d", "--directory")) or ""
    return _patched(folder, patch_text_paths(stdin, strip), patch_added(stdin, strip))


def _git_apply(args: list[str], stdin: str) -> _Effects:
    if _given(args, _GIT_APPLY_DRY) and "--apply" not in args:
        return _Effects([], [])
    operands = [word for word in _operands(args, _GIT_APPLY_VALUED) if word != "-"]
    if operands:
        return _Effects([], [])  # the patch is in a file
    strip = _strip(_value_of(args, ("-p", "--strip")), default=1)
    folder = _value_of(args, ("--directory", "--directory")) or ""
    return _patched(folder, patch_text_paths(stdin, strip), patch_added(stdin, strip))


def _patched(folder: str, paths: list[str], added: list[tuple[str, str]]) -> _Effects:
    """A patch's effects: the files it names and the lines it adds to them, in ``folder``."""
    return _Effects(
        [],
        _in_folder(folder, paths),
        added=tuple((_in_folder(folder, [path])[0], text) for path, text in added),
    )


def _apply_patch(args: list[str], stdin: str) -> _Effects:
    """Codex's ``apply_patch``: the patch as its argument or on its input."""
    text = next((word for word in args if is_patch(word)), stdin)
    return _Effects([], apply_patch_paths(text), added=tuple(patch_added(text)))


def _git(args: list[str], stdin: str) -> _Effects:
    """``git [-C DIR] SUBCOMMAND``: the sub-commands that change files."""
    folder = ""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        if args[index] == "-C" and index + 1 < len(args):
            folder = posixpath.join(folder, args[index + 1])
        index += 2 if args[index] in ("-C", "-c") else 1
    if index >= len(args):
        return _Effects([], [])
    sub, rest = args[index], args[index + 1 :]
    if sub == "apply":
        found = _git_apply(rest, stdin)
    elif sub == "mv":
        found = _copy("mv")(rest, stdin)
    elif sub == "rm":
        found = _Effects([], _operands(rest, _options("--pathspec-from-file")))
    elif sub == "restore":
        found = _Effects([], _operands(rest, _options("-s --source --pathspec-from-file")))
    elif sub == "checkout" and "--" in rest:
        found = _Effects([], rest[rest.index("--") + 1 :])
    else:
        return _Effects([], [])
    if _computed(folder):
        return _Effects([], [])  # where git runs is not known
    added = tuple((_in_folder(folder, [path])[0], text) for path, text in found.added)
    return _Effects(_in_folder(folder, found.reads), _in_folder(folder, found.writes), added=added)


_PROGRAMS: dict[str, Callable[[list[str], str], _Effects]] = {
    "sed": _sed,
    "perl": _perl,
    "cp": _copy("cp"),
    "mv": _copy("mv"),
    "install": _copy("install"),
    "ln": _copy("ln"),
    "dd": _dd,
    "sort": _sort,
    "uniq": _uniq,
    "curl": _download(("-o", "--output")),
    "wget": _download(("-O", "--output-document")),
    "patch": _patch,
    "apply_patch": _apply_patch,
    "applypatch": _apply_patch,
    "git": _git,
}


def _in_folder(folder: str, paths: Sequence[str]) -> list[str]:
    return [_joined(folder, path) or path for path in paths] if folder else list(paths)


def _strip(value: str | None, default: int | None = None) -> int | None:
    if value is not None and value.isdigit():
        return int(value)
    return default


def _stdin_text(command: SimpleCommand, previous: SimpleCommand | None) -> str:
    """The here-document a command reads, or one ``cat`` pipes to it (``cat <<EOF | patch``)."""
    for source in (command, previous if command.piped else None):
        if source is None:
            continue
        if source is previous and (not source.words or source.words[0] != "cat"):
            continue
        for operator, target in source.redirects:
            if operator in ("<<", "<<-"):
                return target
    return ""


def _shell_script(args: list[str]) -> str | None:
    """The script of ``bash -c SCRIPT`` (``-lc``, ``-ec``...), None without ``-c``."""
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if word in ("-o", "+o", "-O", "+O"):
            index += 1  # an option's name: -o pipefail
        elif not word.startswith(("-", "+")) or word == "--":
            return None
        elif word[1:2] != "-" and "c" in word[1:]:
            rest = [w for w in args[index:] if not w.startswith("-")]
            return rest[0] if rest else None
    return None


def _cd_target(program: str, args: list[str]) -> str:
    """Where ``cd``/``pushd`` go: a literal folder, or "" when the command does not say."""
    if program == "popd":
        return ""
    operands = [word for word in args if not (word.startswith("-") and len(word) > 1)]
    if len(operands) != 1 or operands[0] == "-" or _computed(operands[0]):
        return ""
    return operands[0]


def _redirect(operator: str, target: str, program: str, found: _Effects) -> None:
    """Record what one redirection does to a file."""
    operator = operator.lstrip("0123456789")
    if operator in ("<<", "<<-", "<<<", "<&") or not target:
        return
    if target.startswith("/dev/"):
        return
    if operator == "<":
        if program in _READERS or not program:
            found.reads.append(target)
        return
    if operator == ">&" and (target.isdigit() or target == "-"):
        return  # duplicates a descriptor
    found.writes.append(target)
