"""``python -m lessons_cli``, and ``python -I -S .../lessons_cli/__main__.py``: the form
``.lessons/run`` uses, which skips runpy's imports and site's setup (a few ms a hook).

Run by its path, Python puts this file's folder first on ``sys.path``, where the package's
own modules would pass for top-level ones: it is taken off. The folder above it holds
lessons_cli and, in an install (site-packages, a user site), lessons_core too; in a
checkout (an editable install) lessons_cli lives in ``cli/`` and lessons_core beside that
folder. They go last, when not already there, so isolated mode (``-I``, no user site)
still finds a ``pip install --user`` and nothing in them shadows the standard library.

Without site (``-S``), ``sys.path`` is the standard library and that folder: all a
regular install needs, its dependencies beside it. A module found nowhere there (a
dependency of an editable install, one a ``.pth`` file adds) makes ``_SiteOnMiss`` run
site's setup after all, as a plain start would have, and look for it again: the hook
pays for site only when it needs it.

A hook allocates its modules' objects once and exits: the cyclic collector's passes over
them while they are imported (about fifteen on an edit) free nothing. For a
hook, the first generation's threshold is raised so that they do not run; a long call (a
rebuild of a large store) still collects, every ``HOOK_GC_THRESHOLD`` allocations. At
exit the objects are frozen, so that the interpreter's shutdown does not walk them all
again to free memory the process gives back anyway.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

HOOK_GC_THRESHOLD = 100_000

if sys.argv[1:2] == ["hook"]:
    gc.set_threshold(HOOK_GC_THRESHOLD)
    atexit.register(gc.freeze)

if not __package__:
    del sys.path[0]
    _above = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    _folders = [_above]
    if not os.path.isdir(os.path.join(_above, "lessons_core")):  # a checkout's cli/
        _folders.append(os.path.dirname(_above))
    for _folder in _folders:
        if _folder not in sys.path:
            sys.path.append(_folder)

    class _SiteOnMiss:
        """The last finder on ``sys.meta_path`` while site has not run: the first
        top-level module outside the standard library that no other finder has runs
        ``site.main()`` (the paths and ``.pth``
        files a start without ``-S`` would have added), then asks the finders again."""

        @staticmethod
        def find_spec(
            name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
        ) -> ModuleSpec | None:
            # A submodule: site adds no package folders. A standard module found nowhere
            # is one the standard library probes for and does without (ntpath's
            # `_winapi`, as pathlib loads): site would not bring it, and running site then, inside
            # that import, would run .pth files against a half-imported pathlib.
            if path is not None or name in sys.stdlib_module_names:
                return None
            sys.meta_path.remove(_SiteOnMiss)
            import site  # noqa: PLC0415 (site runs on a miss only)

            site.main()
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                spec: ModuleSpec | None = find(name, path, target) if find else None
                if spec is not None:
                    return spec
            return None

    if sys.flags.no_site:
        sys.meta_path.append(_SiteOnMiss)

from lessons_cli.main import main  # noqa: E402 (once sys.path and the finder are set)

main()
