"""lessons: project-specific rules for AI coding agents, recalled at the moment they apply.

This package is the library. It never imports click; the command line lives in
``lessons_cli`` and only parses arguments before calling in here.
"""

__version__ = "0.1.0"
