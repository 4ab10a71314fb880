"""Which failures a later call fixed in a way worth a lesson, and which fixes are only the
agent's ordinary work.

A lesson is worth keeping when the session found out something about the project, not
when the agent debugged its own change:

- a *changed* command of the same program or intent that succeeds right after a failure
  (``related``): ``make deploy-prod`` fails, ``make deploy ENV=prod`` works; bare
  ``pytest`` fails, ``uv run pytest`` works; ``mycheck`` is not found, ``python3 -m
  mycheck`` runs;
- the *same* command passing again counts only when it failed with an environment error
  (``environmental``: command not found, a missing module, permission, a wrong
  directory): "the tests fail, the code is edited, they pass" is the ordinary loop and
  teaches nothing the project would want repeated;
- an edit tool's own failure (its old text not found, the file not read first) is the
  agent's slip, never evidence, unless the file system refused it (``environmental``).

The stop-time request (``feedback.stop_capture`` through ``session.evidence``) and
``lessons harvest`` (``harvest.detect``) both decide with these; ``stop_capture.fix_rule``
drafts the rule a changed form suggests for both. Only string operations:
the pre-tool hook calls ``related`` (and loads this module only when the command before
the call failed).
"""

from __future__ import annotations

# Runners whose next words are the program they run: ``uv run pytest`` runs ``pytest``.
_WRAPPERS = (
    ("uv", "run"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("pdm", "run"),
    ("hatch", "run"),
    ("npx",),
    ("bunx",),
    ("pnpx",),
    ("pnpm", "exec"),
    ("yarn", "exec"),
    ("bundle", "exec"),
)
# ``python -m pytest`` runs ``pytest``.
_MODULE_RUNNERS = frozenset({"python", "python3", "py"})
# Package managers whose ``run`` is implied: ``npm test`` and ``npm run test`` are one.
_SCRIPT_RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun"})
# A target's family is its first piece: ``deploy-prod``, ``deploy:prod``, ``deploy_prod``.
_FAMILY_SEPARATORS = ("-", ":", "_", ".")

# Error names (``feedback.failures``' vocabulary) that say the environment, not the code,
# was wrong: the program or module is not there, the file system refused, the folder is
# not the one the command expects.
ENVIRONMENT_ERRORS = frozenset(
    {
        "command not found",
        "No module named",
        "ModuleNotFoundError",
        "ImportError",
        "Cannot find module",
        "ERR_MODULE_NOT_FOUND",
        "Permission denied",
        "Operation not permitted",
        "PermissionError",
        "EACCES",
        "EPERM",
        "No such file or directory",
        "FileNotFoundError",
        "ENOENT",
        "Not a directory",
        "ENOTDIR",
        "not a git repository",
    }
)
# Exit codes a shell gives a program it could not find (127) or not run (126).
_ENVIRONMENT_EXITS = frozenset({"exit 126", "exit 127"})
# Phrases that say a flag or sub-command is not the tool's (``feedback.failures`` reads
# them into an error class).
WRONG_CALL_PHRASES = (
    "No such option",
    "unrecognized arguments",
    "unrecognized option",
    "unknown option",
    "invalid option",
    "unknown flag",
    "unknown command",
    "is not a git command",
)
# Error names that say the call itself was wrong: a flag, a sub-command, a target or a
# script the tool does not have, a path git does not know.
WRONG_CALL_ERRORS = frozenset(
    {
        *WRONG_CALL_PHRASES,
        "No rule to make target",
        "Missing script",
        "ERR_PNPM_NO_SCRIPT",
        "did not match any file(s) known to git",
    }
)


def environmental(error_class: str) -> bool:
    """Whether a failure of ``error_class`` (``exit 127: command not found``) says the
    environment was wrong."""
    head, _, name = error_class.partition(": ")
    return name in ENVIRONMENT_ERRORS or head in _ENVIRONMENT_EXITS


def preventable(error_class: str) -> bool:
    """Whether a failure of ``error_class`` is one a lesson could prevent: a wrong
    command, flag, path, tool or environment (``environmental``). A test that fails, a
    type error, a plain ``exit 1`` is the work itself: the code is edited and the call
    made again."""
    return environmental(error_class) or error_class.partition(": ")[2] in WRONG_CALL_ERRORS


def related(failed: list[str], worked: list[str]) -> bool:
    """Whether the command named by ``worked`` (``matching.command_words``) is a changed
    form of the one named by ``failed``: not the same words, but the same program under
    a wrapper or not, and the same sub-command or target family (or one of them names
    none)."""
    if not failed or not worked or failed == worked:
        return False
    first, second = _core(failed), _core(worked)
    if not first or not second or first[0] != second[0]:
        return False
    if len(first) == 1 or len(second) == 1:
        return True
    return _family(first[1]) == _family(second[1])


def _core(words: list[str]) -> list[str]:
    """The program and sub-commands without a wrapper in front or an implied ``run``."""
    for wrapper in _WRAPPERS:
        if len(words) > len(wrapper) and tuple(words[: len(wrapper)]) == wrapper:
            words = words[len(wrapper) :]
            break
    program = words[0].rsplit("/", 1)[-1]
    if program in _MODULE_RUNNERS and len(words) > 2 and words[1] == "-m":
        words = words[2:]
        program = words[0]
    rest = words[1:]
    if program in _SCRIPT_RUNNERS and rest[:1] == ["run"]:
        rest = rest[1:]
    return [program, *rest]


def _family(word: str) -> str:
    for separator in _FAMILY_SEPARATORS:
        word = word.split(separator, 1)[0]
    return word
