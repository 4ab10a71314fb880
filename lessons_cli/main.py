"""Entry point of the ``lessons`` console script.

``lessons hook ...`` runs before every tool call of an agent, so it is dispatched here
without importing click or any command module; everything else goes through the click app.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 2 and args[0] == "hook" and not args[1].startswith("-"):
        from lessons_cli.hooks.dispatch import run_hook

        raise SystemExit(run_hook(args[1]))
    from lessons_cli.app import run

    run(args)


if __name__ == "__main__":
    main()
