"""Recall across scopes: the project's own lessons, its packs', and the user's personal ones.

Each scope keeps an index of its own (``lessons_core.index.cache`` over a
``lessons_core.store.sources.SourceStore``: checked fresh on every use, like the
project's), is ranked by the same rules, and its candidates join the project's before the
caps, so one budget holds them all and a session shows each once. At equal rank the
project's lesson comes first (``rank.with_sources``), then the packs' in the order
the config names them, then personal ones.

Personal lessons come from outside the repository: they speak only where a trigger of
theirs matches (a file, a command, a keyword), never by the prompt's wording alone, so
a rule from one project cannot drift into another through a word they share.

A scope that cannot be read (a pack path leaving the repo, a personal store whose folder
links elsewhere, files that do not parse, a folder this user cannot open) is left out and
noted for the hook's log: it never silences the project's lessons.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lessons_core.errors import LessonsError
from lessons_core.fsutil import note
from lessons_core.index.cache import cached_index, rebuilt_index
from lessons_core.store import sources

if TYPE_CHECKING:
    from lessons_core.index.entries import RecallIndex
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout
    from lessons_core.store.sources import SourceStore


def other_sources(layout: Layout, config: Config) -> list[SourceStore]:
    """The packs the config names, then the personal store when it is on and holds a
    ``lessons/`` folder; a scope that cannot be used is noted and left out."""
    found: list[SourceStore] = []
    for path in config.packs:
        try:
            store = sources.pack_store(layout, path)
        except LessonsError as err:
            note(err)
            continue
        if store.name != sources.PERSONAL and all(s.name != store.name for s in found):
            found.append(store)
    folder = sources.personal_folder()
    if folder is None or not os.path.isdir(os.path.join(folder, "lessons")):
        return found
    if sources.personal_off_reason(layout.top) is not None:
        return found
    try:
        personal = sources.personal_store(layout.top)
    except LessonsError as err:
        note(err)
        return found
    if personal is not None:
        found.append(personal)
    return found


def source_index(store: SourceStore, *, rebuild: bool = False) -> RecallIndex:
    """The index of ``store``'s lessons: its cache when fresh, else rebuilt (always with
    ``rebuild``: a damaged part surfaced on first use). Its state folder is made first."""
    if not os.path.isdir(store.state):
        os.makedirs(store.state, mode=sources.PRIVATE_FOLDER, exist_ok=True)
    return (rebuilt_index(store) if rebuild else cached_index(store))[0]
