"""``python -m lessons_cli``, and ``python -I .../lessons_cli/__main__.py``: the form
``.lessons/run`` uses, which skips runpy's imports (a few ms a hook).

Run by its path, Python puts this file's folder first on ``sys.path``, where the package's
own modules would pass for top-level ones: it is taken off. The folder above it
(site-packages, a user site, or the checkout of an editable install) holds lessons_cli
and lessons_core; it goes last, when not already there, so isolated mode (``-I``, no user
site) still finds a ``pip install --user`` and nothing in that folder shadows the
standard library.
"""

import os
import sys

if not __package__:
    del sys.path[0]
    _above = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if _above not in sys.path:
        sys.path.append(_above)

from lessons_cli.main import main

main()
