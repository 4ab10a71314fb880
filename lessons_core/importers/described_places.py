"""Places a rule names by description rather than by path: "test files", "snapshot
files", "the `generated` subdirectories", "GitHub Actions workflows", "Markdown prose".

A rule that names no file or command may still say where its mistake is made, in
words: "Never edit snapshot files by hand" is about ``**/*.snap``, "Avoid editing
`generated` subdirectories" about ``**/generated/**``. Each description becomes the
globs of the repo's files of that kind, and only those that match some files of the
repo without matching most of them (``glob_problem``, as for a path a rule names).

Tests are named by a word ("tests", "mocks", "fixtures") in the rule or in the heading
above it ("Writing Tests", "Mocking"): the rule is then about the project's test
sources, found by their names (``*.test.ts``, ``*_test.go``, ``tests/**/*.py``). A rule
that asks for something new ("Add tests for code changes") or asks for a command ("Run
the narrowest tests first") is not: no edit of a test file shows its mistake.

A file below the root applies to its folder: its descriptions name the files of that
folder only.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter

from lessons_core.importers.languages import folder_language
from lessons_core.importers.markdown_text import outside_code
from lessons_core.importers.mentions import Mentions
from lessons_core.importers.normative import Role, after_label, main_clause, stance
from lessons_core.importers.rule_triggers import RUNNING_TESTS, asks_to_read
from lessons_core.markdown_fences import outside_fences
from lessons_core.matching.globs import compile_glob
from lessons_core.matching.thresholds import BROAD_GLOB_SHARE
from lessons_core.matching.trigger_checks import glob_problem

_SPAN = re.compile(r"`([^`\n]+)`")
# A path, not "async/await": a folder ("x/"), two slashes, or a file name after one.
_PATH_LIKE = re.compile(r"^[^\s/]+/(?:$|[^\s/]*/|[^\s/]*\.\w+$)")
# "`generated` subdirectories", "any `fixtures` directories", "`__fixtures__` subfolders".
_NAMED_FOLDER = re.compile(r"`([\w.-]+)/?`\s+(?:sub)?(?:director(?:y|ies)|folders?)\b", re.I)
# Snapshots as files; "Re-snapshot" is a verb, and inline snapshots live in the test.
_SNAPSHOTS = re.compile(r"(?<![\w-])(?<!inline )snapshot(?:s|\s+files?|\s+bod(?:y|ies))?\b", re.I)
_WORKFLOWS = re.compile(
    r"\b(?:github\s+actions?|ci)\s+workflows?\b|\bworkflow\s+files?\b|\bgithub\s+actions\b",
    re.I,
)
_MARKDOWN = re.compile(
    r"\b(?:markdown|mdx)\s+(?:files?|prose|docs?|documents?|pages?)\b|\bmarkdown\s*/\s*mdx\b",
    re.I,
)
# Changesets, the release notes a JavaScript monorepo keeps in `.changeset/`: "needs a
# changeset", "minor/major changesets"; not a skill or a label called "changeset".
_CHANGESETS = re.compile(r"\b(?:a|the|any|every|each|no|new)\s+changeset\b|\bchangesets\b", re.I)
# The lock file a package manager writes: "never update all dependencies in the lockfile".
_LOCKFILE = re.compile(r"\block[ -]?files?\b", re.I)
# The lock files of each language's package managers; a repo's lockfile is that of its
# main language (a Rust project's `uv.lock` pins its docs tooling, not its crates).
_LOCK_FILES = {
    "rust": ("Cargo.lock",),
    "go": ("go.sum",),
    "python": ("uv.lock", "poetry.lock", "pdm.lock", "Pipfile.lock"),
    "javascript": ("pnpm-lock.yaml", "package-lock.json", "yarn.lock", "bun.lock"),
}
# Tests as a noun: "tests", "test files", "mocks"; not "test failures" or "test binaries".
_TESTS = re.compile(
    r"\b(?:sub)?tests\b|\btest\s+(?:files?|cases?|suites?|modules?|functions?|classes|code|helpers?)\b"
    r"|\btesting\b|\bmock(?:s|ing|ed)?\b|\bspy(?:ing)?\b|\bspies\b|\bfixtures?\b",
    re.I,
)
# Tests of React components ("React Component Testing", "Mock complex child
# components"): the JSX and TSX test files, where a component is rendered.
_COMPONENTS = re.compile(r"\breact\b|\bcomponents?\b|\bjsx\b", re.I)
# Unit tests, where the project keeps them apart ("When writing unit tests, ..." in a
# repo with `packages/x/test/units/`): that folder, not every test file.
_UNIT = re.compile(r"\bunit[- ]test(?:s|ing)?\b", re.I)
_UNIT_FOLDERS = ("**/test/units/**", "**/test/unit/**", "**/tests/units/**", "**/tests/unit/**")
# A test framework's name says as much: "Testify Suite Correctness".
_TEST_HEADING = re.compile(
    r"\b(?:sub)?tests?\b|\btesting\b|\bmock(?:s|ing)?\b|\b(?:testify|pytest|jest|vitest|mocha)\b",
    re.I,
)
# Where an instruction file says its tests are kept: "Test files are located in
# `packages/*/test/`", "Tests live in `tests/` folder"; not one kind of them ("Type-level
# tests are in `typetest/`") nor some ("Tests are organized by provider under ...").
_TEST_HOME_SAID = re.compile(
    r"(?:^|[.:]\s+|^\s*[-*]\s+)(?:All\s+)?(?:the\s+)?(?:test\s+files|tests)\s+"
    r"(?:are\s+(?:located|kept|stored)\s+in|are\s+in|live\s+in)\s+`([^`\n]+/)`",
    re.I | re.M,
)
# Tests named beside the rest of the code: "No log statements in tests or production
# code", "Remove code that doesn't add value to tests or implementation".
_ALL_CODE = re.compile(
    r"\btests?\s+(?:or|and)\s+(?:production|source|implementation|library|application)\b"
    r"|\b(?:production|source|implementation|library)\s+(?:code\s+)?(?:or|and)\s+tests?\b",
    re.I,
)
# A heading about running things ("Running Tests") is about commands, not test sources.
_RUNNING = re.compile(r"\brun(?:s|ning)?\b|\bcommands?\b", re.I)
# The test sources of each language, by name; a repo's are those of its main language
# (Rust tests have no name of their own: they live in the modules they test).
_TEST_GLOBS = {
    "javascript": (
        "**/*.test.ts",
        "**/*.test.tsx",
        "**/*.test.js",
        "**/*.test.jsx",
        "**/*.test.mjs",
        "**/*.spec.ts",
        "**/*.spec.tsx",
        "**/*.spec.js",
    ),
    "go": ("**/*_test.go",),
}
# Rust's unit tests live in the modules they test, its integration tests in `tests/`
# folders: a rule on tests in a Rust repo may mean either, one on "Rust tests" beside other
# languages' tests means the latter.
_NAMED_TEST_GLOBS = {**_TEST_GLOBS, "rust": ("**/tests/**/*.rs",)}
# A language a rule or its heading names ("Use `googletest` for new Rust tests", under
# "Rust Testing"): its tests are that language's, whatever the repo's manifests say. "Go"
# only capitalised: "go to", "go ahead" are no language.
_LANGUAGES = (
    (re.compile(r"\brust\b", re.I), "rust"),
    (re.compile(r"\bGo\b|\b[Gg]olang\b"), "go"),
    (re.compile(r"\bpython\b|\bpytest\b", re.I), "python"),
    (re.compile(r"\b(?:typescript|javascript|vitest|jest)\b", re.I), "javascript"),
)
_PYTHON_TEST_FOLDERS = ("tests", "test")
# How many times more test sources the repo's test folder must hold than a package's own
# for the package's tests to be the ones kept there.
_MIRRORED = 10
# A folder that holds nearly all of a repo's test sources is where its tests live, and one
# holding nearly all of a folder's code is where that code is: the few elsewhere (an
# example's tests, a task program) are not what a rule on "tests" or the code speaks of.
_HOME_SHARE = 0.9
_TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec", "specs"})
# How many files must lie below a folder other than a test folder for it to be their home.
_PATHS_TO_PLACE = 10
# What a documentation site's pages hold: a rule of a folder of mostly Markdown pages
# speaking of them ("in the heading", "a sample that fails") is about its pages, not its
# site configuration and scripts.
_PAGE_CONTENT = re.compile(
    r"\b(?:headings?|code\s+(?:samples?|blocks?)|samples?|frontmatter|anchors?)\b", re.I
)
_PAGE_KINDS = frozenset({".md", ".mdx"})
_PAGES = tuple(f"**/*{kind}" for kind in sorted(_PAGE_KINDS))
# A manifest named in plain words ("in package.json scripts"): each copy of that file.
_MANIFEST_NAMES = re.compile(
    r"(?<![\w./-])(package\.json|Cargo\.toml|pyproject\.toml|go\.mod|tsconfig\.json)(?![\w/-])"
)
# The extensions of source code. A folder's own instruction file speaks of its code
# ("Avoid type assertions", "Keep comments minimal"), not of its fonts, styles and data,
# when code is most of what the folder holds; an extension with under a twentieth of
# its code files (a TypeScript app's few Python helpers) is not its code.
_CODE = frozenset(
    ".py .pyi .ts .tsx .mts .cts .js .jsx .mjs .cjs .go .rs .java .kt .kts .scala .rb .php "
    ".c .h .cc .cpp .hpp .cs .swift .vue .svelte .dart .ex .exs .lua .zig .nu".split()
)
_CODE_SHARE = 0.5
_MINOR_KIND = 0.05
# Asking for tests: "add or update tests", "extend tests", "writing unit tests", "have
# comprehensive tests", "must include a regression test".
_WRITES_TESTS = re.compile(
    r"\b(?:add(?:s|ing)?|writ(?:e|es|ing)|extend(?:s|ing)?|augment(?:s|ing)?|updat(?:e|es|ing)"
    r"|creat(?:e|es|ing)|ha(?:ve|s|ving)|includ(?:e|es|ing)|needs?)\s+"
    r"(?:(?:or|and|a|an|new|more|the|relevant|unit|integration|regression|missing|"
    r"comprehensive|corresponding|"
    r"add|update|write|extend)\s+)*tests?\b|\btest\s+coverage\b",
    re.I,
)
# A rule asking for something new, or for a command: its mistake is no edit of a test.
_NOT_ABOUT_EDITS = frozenset({"add", "write", "run", "execute"})


def stated_test_home(mentions: Mentions, text: str, folder: str) -> str | None:
    """The folder glob an instruction file (``text``, read in ``folder``) says its tests
    are kept in ("Test files are located in `packages/*/test/`", "Tests live in `tests/`
    folder"), or None when it says none, or several."""
    homes = {
        glob
        for span in _TEST_HOME_SAID.findall(outside_fences(text))
        for glob in mentions.triggers(f"`{span}`", folder).files
        if glob.endswith("/**")
    }
    return homes.pop() if len(homes) == 1 else None


def described_files(
    mentions: Mentions, rule: str, heading: str, folder: str, tests_home: str | None = None
) -> tuple[str, ...]:
    """The globs of the files ``rule`` (under ``heading``, read in ``folder``) names by
    description, or () when it names none; its tests are those in ``tests_home`` when
    its file says where they are kept (``stated_test_home``)."""
    base = f"{folder}/" if folder else ""
    if asks_to_read(rule):
        return ()  # "Make sure to read the tests in the `tests/` directory": context
    # "No `process.env` - except in test files": the files it excepts are where it holds
    # least, never its place
    said = "".join(part.text for part in stance(rule) if not _EXCEPTION.match(part.text))
    plain = outside_code(said)
    globs = [f"{base}**/{name}/**" for name in _NAMED_FOLDER.findall(said)]
    mistake = _where_made(rule)
    if mentions.triggers(mistake, folder).commands:
        return ()  # a rule naming a command is about running it: its words are no place
    unresolved = [
        span
        for span in _SPAN.findall(rule)
        if _PATH_LIKE.search(span)
        and ("<" in span or "{" in span or mentions.triggers(f"`{span}`", folder).is_empty())
    ]
    if unresolved:
        return ()  # it names its place as a path no file has as written: never guess
    unasked = "".join(part.text for part in stance(rule) if part.role is not Role.ASKS)
    # "Prefer `insta` snapshots over substring assertions": what it asks for is no place
    if _SNAPSHOTS.search(outside_code(unasked)):
        globs += [f"{base}**/*.snap", f"{base}**/__snapshots__/**"]
    if _WORKFLOWS.search(plain) and not folder:
        globs.append(".github/workflows/**")
    if _MARKDOWN.search(plain):
        globs += [f"{base}**/*.md", f"{base}**/*.mdx"]
    if _CHANGESETS.search(plain):
        globs.append(".changeset/**")
    if base and _PAGE_CONTENT.search(plain) and _mostly_pages(mentions, base):
        globs += [f"{base}{glob}" for glob in _PAGES]
    globs += [f"{base}**/{name}" for name in _MANIFEST_NAMES.findall(outside_code(unasked))]
    if _LOCKFILE.search(outside_code(mistake)):
        language = folder_language(mentions.files.paths, base) or ""
        globs += [f"{base}{name}" for name in _LOCK_FILES.get(language, ())]
    found = _kept(mentions, globs)
    if found or not _about_tests(plain, heading) or RUNNING_TESTS.search(plain):
        return found
    if _ALL_CODE.search(plain):
        return ()  # "in tests or production code": all of it, no kind of file
    clause = main_clause(after_label(rule) or rule)
    if (clause and clause[0] in _NOT_ABOUT_EDITS) or _asks_for_tests(rule):
        return ()
    named = _named_language(f"{plain} {heading}")
    # "Do not use `expect` from Vitest" names the folder's own language: its tests are
    # where the file says they are kept
    if tests_home and named in (None, folder_language(mentions.files.paths, base)):
        return _kept(mentions, _sources_in(mentions, tests_home))
    globs = test_globs(mentions, base, named)
    if _COMPONENTS.search(plain) or _COMPONENTS.search(heading):
        globs = [glob for glob in globs if glob.endswith("x")] or globs  # .tsx, .jsx
    if _UNIT.search(plain) or _UNIT.search(heading):
        folders = _kept(mentions, [f"{base}{glob}" for glob in _UNIT_FOLDERS])
        # Where `*.test.ts` and `*.spec.ts` both exist, the specs are the browser tests
        globs = list(folders) or _without_specs(mentions, globs)
    return _kept(mentions, globs)


def _sources_in(mentions: Mentions, folder_glob: str) -> list[str]:
    """The globs of the source code in ``folder_glob`` ("tests/**"): its code's files
    when it holds other files too (snapshots, data), else the folder."""
    found = mentions.files.matching(compile_glob(folder_glob))
    kinds = code_kinds(Counter(posixpath.splitext(path)[1] for path in found))
    return [f"{folder_glob}/*{kind}" for kind in kinds] or [folder_glob]


def heading_place(
    mentions: Mentions, heading: str, described: tuple[str, ...], folder: str
) -> tuple[str, ...]:
    """The place of a rule that names none, under ``heading`` (read in ``folder``):
    the one path the heading names ("### `tests/unit`", "### Main Model
    (`model/ui.go`)"), or what the rule ``described`` when that lies inside it (the test
    sources, `tests/**/*.py`, under "### `tests/`"); ``described`` when the heading names
    no one path."""
    named = mentions.triggers(heading, folder)
    if len(named.files) != 1 or named.commands:
        return described
    (place,) = named.files
    inside = place.removesuffix("**")
    if described and inside != place and all(glob.startswith(inside) for glob in described):
        return described
    return (place,)


def about_components(rule: str) -> bool:
    """Whether ``rule`` speaks of React components or JSX ("Prefer function components",
    "Use JSX runtime"), in its words rather than its code."""
    return bool(_COMPONENTS.search(outside_code(rule)))


def _count(mentions: Mentions, globs: list[str]) -> int:
    return sum(mentions.files.count(compile_glob(glob)) for glob in globs)


def _without_specs(mentions: Mentions, globs: list[str]) -> list[str]:
    """``globs`` less those of ``*.spec.*`` files when some ``*.test.*`` glob matches
    files too: a project with both keeps its unit tests in the ``*.test.*`` ones."""
    if not _count(mentions, [glob for glob in globs if ".test." in glob]):
        return globs
    return [glob for glob in globs if ".spec." not in glob]


def code_kinds(kinds: Counter[str]) -> list[str]:
    """The extensions of a folder's source code, commonest first, given how many of its
    files have each extension; [] when code is not most of what it holds, or all of it
    (then the folder itself says as much)."""
    return _main_kinds(kinds, _CODE)


def content_kinds(kinds: Counter[str]) -> list[str]:
    """The extensions of what a folder is for: its code (``code_kinds``), or, in a folder
    of documentation pages beside their images and next to no code, its pages (".mdx");
    a site with its configuration in code is more than its pages ("Keep the navigation
    short")."""
    code = sum(count for ext, count in kinds.items() if ext in _CODE)
    if code >= _MINOR_KIND * sum(kinds.values()):
        return code_kinds(kinds)
    return _main_kinds(kinds, _PAGE_KINDS)


def _main_kinds(kinds: Counter[str], wanted: frozenset[str]) -> list[str]:
    """The extensions of ``wanted`` a folder holding ``kinds`` is mostly made of,
    commonest first, less those of a twentieth of them; [] when they are not most of
    it, or all of it."""
    code = {ext: count for ext, count in kinds.items() if ext in wanted}
    total = sum(code.values())
    if not total or total < _CODE_SHARE * sum(kinds.values()) or total == sum(kinds.values()):
        return []
    ordered = sorted(code.items(), key=lambda item: (-item[1], item[0]))
    return [ext for ext, count in ordered if count >= _MINOR_KIND * total]


def _asks_for_tests(rule: str) -> bool:
    """Whether ``rule`` asks for tests to be written ("Implement changes and add or
    update tests", "ensure checks pass and extend tests"): no edit of a test file shows
    that mistake. "When writing tests, ..." and "Adding a test: give the module a marker"
    are about the tests being written."""
    return any(
        part.role is Role.ASKS and _WRITES_TESTS.search(outside_code(part.text))
        for part in stance(after_label(rule) or rule)
    )


def _mostly_pages(mentions: Mentions, base: str) -> bool:
    """Whether most files below ``base`` ("docs/") are Markdown pages."""
    inside = [path for path in mentions.files.paths if path.startswith(base)]
    pages = [path for path in inside if path.endswith((".md", ".mdx"))]
    return bool(inside) and 2 * len(pages) > len(inside)


_EXCEPTION = re.compile(r"^\W*(?:except|other than|outside)\b", re.I)


def _where_made(rule: str) -> str:
    """The parts of ``rule`` that name its mistake when it forbids something ("never
    update all dependencies in the lockfile"), without the alternative it asks for ("and
    always use `cargo update --precise`"); the whole rule otherwise."""
    parts = stance(rule)
    if not any(part.role is Role.FORBIDS for part in parts):
        return rule
    return "".join(part.text for part in parts if part.role in (Role.FORBIDS, Role.WHEN))


def _about_tests(plain: str, heading: str) -> bool:
    """Whether the rule's words, or the heading above it, speak of tests as sources."""
    if _TESTS.search(plain):
        return True
    return bool(_TEST_HEADING.search(heading)) and not _RUNNING.search(heading)


def _named_language(text: str) -> str | None:
    """The one language ``text`` names, or None when it names none or several."""
    named = {language for pattern, language in _LANGUAGES if pattern.search(text)}
    return named.pop() if len(named) == 1 else None


def test_globs(mentions: Mentions, base: str, named: str | None) -> list[str]:
    """The globs of the test sources below ``base`` ("" or "pkg/"), in the ``named``
    language, else in the language of that folder (``folder_language``)."""
    language = named or folder_language(mentions.files.paths, base)
    if language == "python":
        folders = [
            f"{base}{name}/**/*.py"
            for name in _PYTHON_TEST_FOLDERS
            if mentions.files.is_folder(f"{base}{name}")
        ]
        own = [f"{base}**/test_*.py", f"{base}**/*_test.py"]
        if folders or not base:
            return folders or own
        # A package's tests in the repo's own test folder, mirroring it ("Tests live in
        # `tests/`, mirroring `pkg/`"): a few smoke tests in the package are not where
        # its rules on tests are kept.
        root = test_globs(mentions, "", None)
        if _count(mentions, root) > _MIRRORED * _count(mentions, own):
            return root
        return own
    kinds = (_NAMED_TEST_GLOBS if named else _TEST_GLOBS).get(language or "", ())
    return [f"{base}{_test_home(mentions, base, kinds)}{glob}" for glob in kinds]


def _test_home(mentions: Mentions, base: str, named: tuple[str, ...]) -> str:
    """The folder below ``base`` where the files ``named`` (test source globs) match are
    kept (``home_below``), or "" when they are spread over the repo."""
    tests = [path for glob in named for path in mentions.files.matching(compile_glob(base + glob))]
    return home_below(tests, base)


def home_below(paths: list[str], base: str) -> str:
    """The deepest folder below ``base`` ("" or "pnpm/") holding nearly all of ``paths``
    ("packages/zod/src/" of zod's tests, "crates/" of pnpm's Rust), relative to it and
    ending in "/", or "" when they are spread over it. A test folder ends the search
    ("test/", whatever folders of it hold the tests today); any other takes enough paths
    to say so (one test in `pkg/` says nothing of where the next will go)."""
    home = ""
    while paths:
        below = Counter(
            path[len(base + home) :].split("/", 1)[0]
            for path in paths
            if "/" in path[len(base + home) :]
        )
        if not below:
            break
        folder, count = below.most_common(1)[0]
        if count < _HOME_SHARE * len(paths):
            break
        if folder not in _TEST_FOLDERS and len(paths) < _PATHS_TO_PLACE:
            break
        home += f"{folder}/"
        if folder in _TEST_FOLDERS:
            break
    return home


def _kept(mentions: Mentions, globs: list[str]) -> tuple[str, ...]:
    """``globs`` that match some of the repo's files without matching most of them."""
    kept = [
        glob
        for glob in dict.fromkeys(globs)
        if glob_problem(glob, mentions.root, mentions.files, BROAD_GLOB_SHARE) is None
    ]
    return tuple(kept)
