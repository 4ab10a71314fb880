"""Entry point of the ``lessons`` console script.

``lessons hook HARNESS`` runs on every tool call, so it is dispatched here, before the
click application (and click itself) is imported; everything else goes through click.
"""

from __future__ import annotations

import os
import sys

from lessons_cli.harnesses import HARNESSES
from lessons_cli.hook_runner import run_hook


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--launch-info"]:
        # For .lessons/run: the interpreter and entry file it runs from then on.

        print(sys.executable)
        print(os.path.join(os.path.dirname(os.path.abspath(__file__)), "__main__.py"))
        return
    if len(args) == 2 and args[0] == "hook" and args[1] in HARNESSES:
        raise SystemExit(run_hook(args[1]))
    from lessons_cli.app import run  # noqa: PLC0415 (heavy: click)

    run(args)


if __name__ == "__main__":
    main()
