"""The click application: registers every command and maps errors to exit codes once.

Exit codes: 0 success, 1 a problem the user can fix (the message says how), 2 a usage
error (click's own), 3 a bug in lessons (the traceback is printed for a report).
"""

from __future__ import annotations

import errno
import sys
import traceback
from importlib import import_module
from typing import Any

import click

from lessons_core import __version__
from lessons_core.errors import LessonsError
from lessons_core.platforms import unsupported_platform

EXIT_USER_ERROR = 1
EXIT_BUG = 3

# (module under lessons_cli.commands, attribute): one module per command.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("init", "init_command"),
    ("add", "add_command"),
    ("listing", "list_command"),
    ("listing", "show_command"),
    ("listing", "topics_command"),
    ("query", "query_command"),
    ("status", "deprecate_command"),
    ("status", "supersede_command"),
    ("status", "rm_command"),
    ("status", "touch_command"),
    ("promote", "promote_command"),
    ("importing", "import_group"),
    ("export", "export_command"),
    ("evaluate", "eval_command"),
    ("replay", "replay_command"),
    ("harvest", "harvest_command"),
    ("hook", "hook_command"),
    ("mcp", "mcp_command"),
    ("validate", "validate_command"),
    ("doctor", "doctor_command"),
    ("stats", "stats_command"),
    ("review", "review_command"),
    ("check", "check_command"),
    ("report", "report_command"),
)


class UserError(click.ClickException):
    """A ``LessonsError`` on its way out: printed as ``error: ...``, exit code 1."""

    exit_code = EXIT_USER_ERROR

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.message}", err=True)


class LessonsGroup(click.Group):
    """Maps the library's user errors to exit code 1 for every command, in one place."""

    def invoke(self, ctx: click.Context) -> Any:
        problem = unsupported_platform()
        if problem is not None:
            raise UserError(problem)
        try:
            return super().invoke(ctx)
        except LessonsError as err:
            raise UserError(str(err)) from err
        except OSError as err:
            problem = disk_problem(err)
            if problem is None:
                raise
            raise UserError(problem) from err


# What the user can do about a file that cannot be written, by errno: not a bug of lessons.
_DISK_FIXES = {
    errno.ENOSPC: "free some space on that disk, then run the command again",
    errno.EDQUOT: "free some of your disk quota, then run the command again",
    errno.EROFS: "the file system is read-only; run lessons in a writable checkout",
    errno.EACCES: "you lack permission to write there; fix its owner or mode",
    errno.EPERM: "you lack permission to write there; fix its owner or mode",
}


def disk_problem(err: OSError) -> str | None:
    """The message for a file the disk refused (full, read-only, no permission), naming
    the file and the errno; None for any other error."""
    fix = _DISK_FIXES.get(err.errno or 0)
    if fix is None:
        return None
    where = f"{err.filename}: " if err.filename else ""
    return f"{where}{err.strerror} ({errno.errorcode[err.errno or 0]}); {fix}"


@click.group(
    cls=LessonsGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "--version", prog_name="lessons")
def cli() -> None:
    """Project-specific rules for AI coding agents, recalled right before they act.

    \b
    Example:
      lessons init
      lessons add "Never split('/') a filesystem path; use basename()." \\
          --topic paths --trigger-file 'src/**/*.py'
      lessons query --file src/util/paths.py
    """


for _module, _attribute in COMMANDS:
    cli.add_command(getattr(import_module(f"lessons_cli.commands.{_module}"), _attribute))


def run(args: list[str]) -> None:
    try:
        cli.main(args=args, prog_name="lessons", standalone_mode=False)
    except click.exceptions.Exit as done:
        raise SystemExit(done.exit_code) from None
    except click.ClickException as err:
        err.show()
        raise SystemExit(err.exit_code) from None
    except click.Abort:
        click.echo("Aborted.", err=True)
        raise SystemExit(EXIT_USER_ERROR) from None
    except BrokenPipeError:
        raise SystemExit(0) from None
    except Exception:
        click.echo("lessons hit a bug; please report it with this traceback:", err=True)
        traceback.print_exc(file=sys.stderr)
        raise SystemExit(EXIT_BUG) from None
