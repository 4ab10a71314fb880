"""The one table of programs: which files a shell command reads and writes, named in
the command itself, and which commands only read (``only_reads``).

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
``bash -c 'SCRIPT'`` (``bash -lc``) and ``bash <<EOF`` are read as the script they run
(``shell_command`` parses it with the command).

A ``cd`` inside a subshell (``(cd x && ...)``) ends with it. Everything is read from
the command's one parse (``shell_command``); nothing here raises or hangs.
"""

# Annotations are evaluated, not postponed (no ``from __future__ import annotations``):
# a NamedTuple compiles each string annotation of its fields when its class is made.
import posixpath
from collections.abc import Callable, Sequence
from typing import NamedTuple

from lessons_core.matching.patch_paths import (
    apply_patch_paths,
    is_patch,
    patch_added,
    patch_text_paths,
)
from lessons_core.matching.shell_command import (
    OPEN,
    Segment,
    ShellCommand,
    is_assignment,
    parsed,
)


class ShellFiles(NamedTuple):
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    # (file, text the command writes into it, as the command spells it out): a
    # here-document or here-string given to ``cat``/``tee``, ``echo``/``printf``'s words,
    # redirected into the file or ``tee``'d; a patch's added lines (``patch_added``).
    added: tuple[tuple[str, str], ...] = ()


# PATH_MAX: no longer path names a file.
MAX_PATH_CHARS = 4096


def _options(text: str) -> frozenset[str]:
    return frozenset(text.split())


class _Reader(NamedTuple):
    """How a reading program's operands are laid out: its options that take a value, and
    whether its first operand is a pattern or program rather than a file (unless one of
    ``given`` supplies it); and whether it only reads (``awk`` can write files too)."""

    valued: frozenset[str] = frozenset()
    pattern_first: bool = False
    given: frozenset[str] = frozenset()
    pure: bool = True


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
    "awk": _Reader(_options("-F -v -f"), pattern_first=True, given=_options("-f"), pure=False),
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
# Programs that only look without naming a file they read: pure reads too (``only_reads``).
_LOOKERS = frozenset(
    """
    ls ll tree pwd which type du df yq basename dirname realpath readlink date whoami id
    uname hostname printenv echo printf true false test [ column fd cd pushd popd sleep
    """.split()
)
# git's sub-commands that only read.
_GIT_READS = frozenset(
    """
    status log diff show blame rev-parse ls-files ls-tree grep describe shortlog cat-file
    rev-list whatchanged
    """.split()
)
_FIND_WRITES = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fls"})
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


def shell_file_effects(command: str | ShellCommand) -> ShellFiles:
    """The files ``command`` reads and writes (see the module docstring)."""
    reads: dict[str, None] = {}
    writes: dict[str, None] = {}
    added: list[tuple[str, str]] = []
    _effects(parsed(command), "", reads, writes, added)
    return ShellFiles(tuple(reads), tuple(writes), tuple(added))


class _Effects(NamedTuple):
    reads: list[str]
    writes: list[str]
    cd: str | None = None  # the folder a cd moved to ("": unknown), None: no cd
    added: tuple[tuple[str, str], ...] = ()  # see ``ShellFiles.added``


def _effects(
    command: ShellCommand,
    cwd: str | None,
    reads: dict[str, None],
    writes: dict[str, None],
    added: list[tuple[str, str]],
) -> None:
    """Add what ``command`` reads and writes, run in ``cwd`` (None: not known), to the two."""
    scopes: list[str | None] = [cwd]
    previous: Segment | None = None
    moved: str | None = None  # where the last command's cd went, once no pipe follows it
    for item in command.items:
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
        found = _simple(item, previous, here, reads, writes, added)
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
    command: Segment,
    previous: Segment | None,
    cwd: str | None,
    reads: dict[str, None],
    writes: dict[str, None],
    added: list[tuple[str, str]],
) -> _Effects:
    words = command.runs
    program = words[0].rsplit("/", 1)[-1] if words else ""
    args = list(words[1:])
    found = _Effects([], [])
    if program in ("cd", "pushd", "popd"):
        found = _Effects([], [], _cd_target(program, args))
    elif command.script is not None:  # parsed with the command, a few levels deep
        _effects(command.script, cwd, reads, writes, added)
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
    program: str, args: list[str], command: Segment, previous: Segment | None
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
        words = previous.runs
        head = words[0].rsplit("/", 1)[-1] if words else ""
        return _literal_output(head, list(words[1:]), previous, None) if head != "tee" else ""
    return ""


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
        operands = [word for word in operands if not is_assignment(word)]
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


def _stdin_text(command: Segment, previous: Segment | None) -> str:
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


def only_reads(runs: Sequence[str]) -> bool:
    """Whether a simple command that runs ``runs`` (``Segment.runs``: keywords and
    wrappers such as ``sudo`` looked past) only reads: a program of the table that writes
    no file with these arguments (``sed`` without ``-i``, ``sort`` without ``-o``), a
    program that only looks, git's reading sub-commands, ``find`` without ``-delete`` or
    ``-exec``."""
    if not runs:
        return True  # a keyword, an assignment, ``command -v``: nothing runs
    program = runs[0].rsplit("/", 1)[-1]
    args = list(runs[1:])
    if program == "git":
        return _git_reads(args)
    if program == "find":
        return _FIND_WRITES.isdisjoint(args)
    reader = _READERS.get(program)
    if program not in _LOOKERS and (reader is None or not reader.pure):
        return False
    effects = _PROGRAMS.get(program)
    return effects is None or not effects(args, "").writes


def _git_reads(args: list[str]) -> bool:
    """``git [-C dir] [--no-pager] SUBCOMMAND``: only the listed sub-commands read."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        index += 2 if args[index] in {"-C", "-c"} else 1
    return index < len(args) and args[index] in _GIT_READS


def writes_nothing(operator: str, target: str) -> bool:
    """Whether a redirection leaves every file alone: it reads, duplicates a descriptor
    (``2>&1``) or discards output (``>/dev/null``, ``&> /dev/null``)."""
    operator = operator.lstrip("0123456789")
    if operator in ("<", "<<", "<<-", "<<<", "<&"):
        return True
    if operator == ">&" and (target.isdigit() or target == "-"):
        return True
    return operator in (">", ">>", "&>", "&>>", ">|", ">&") and target == "/dev/null"
