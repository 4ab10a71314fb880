"""Entry point of the ``lessons`` console script."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    from lessons_cli.app import run

    run(args)


if __name__ == "__main__":
    main()
