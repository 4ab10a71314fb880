"""A lesson named in any scope, for the commands that read or change one.

``ID`` is the project's lesson; ``personal:ID`` (or ``--personal ID``) the user's own;
``PACK:ID`` a pack's, which can be read but not changed here: a pack is edited where it
lives, and git brings the change (``lessons_core.store.sources``).
"""

from __future__ import annotations

from pathlib import Path

from lessons_core.errors import LessonsError
from lessons_core.git import top_level
from lessons_core.store.config import load_config
from lessons_core.store.files import find_lesson
from lessons_core.store.layout import Layout, find_layout, find_root
from lessons_core.store.model import Lesson
from lessons_core.store.sources import (
    PERSONAL,
    SourceStore,
    ensure_private,
    pack_stores,
    personal_folder,
    personal_store,
    split_qualified,
)


def personal_layout(start: Path | None = None, *, create: bool = False) -> SourceStore:
    """The personal store, its triggers judged against the repository above ``start``
    (the working directory); outside any repository against the store's own folder,
    never a walk of whatever folder (a home) the command ran in. ``create`` makes its
    folders (0700)."""
    here = start or Path.cwd()
    root = find_root(here) or top_level(here) or personal_folder()
    store = personal_store(root) if root is not None else None
    if store is None:
        raise LessonsError(
            "no personal store: neither XDG_DATA_HOME nor HOME is an absolute path; set one"
        )
    if create:
        ensure_private(store)
    return store


def packs_of(layout: Layout) -> list[SourceStore]:
    """The packs the project's committed config names (``pack_stores``)."""
    return pack_stores(layout, load_config(layout.config_file).packs)


def scope_of(key: str, personal: bool = False, start: Path | None = None) -> tuple[Layout, str]:
    """The store ``key`` names a lesson of, and the id in it, as seen from ``start`` (the
    working directory)."""
    source, lesson_id = split_qualified(key)
    if personal or source == PERSONAL:
        return personal_layout(start), lesson_id
    if source is None:
        return find_layout(start), lesson_id
    layout = find_layout(start)
    packs = packs_of(layout)
    for pack in packs:
        if pack.name == source:
            return pack, lesson_id
    known = ", ".join([PERSONAL, *(pack.name for pack in packs)])
    raise LessonsError(f"no scope named '{source}' for '{key}'; known: {known}")


def find_scoped(
    key: str, personal: bool = False, start: Path | None = None
) -> tuple[Layout, Lesson]:
    """The lesson ``key`` names (``lessons show``), and its store."""
    store, lesson_id = scope_of(key, personal, start)
    return store, find_lesson(store, lesson_id)


def writable_scope(key: str, personal: bool = False) -> tuple[Layout, str]:
    """``scope_of``, refusing a pack's lesson: lessons never writes into a pack."""
    store, lesson_id = scope_of(key, personal)
    if isinstance(store, SourceStore) and not store.personal:
        raise LessonsError(
            f"lesson '{lesson_id}' belongs to the pack '{store.name}' ({store.path}), which "
            "lessons never changes: edit it where the pack lives, then update the pack here "
            "(a submodule bump, a subtree pull)"
        )
    return store, lesson_id


def shown_id(store: Layout, lesson_id: str) -> str:
    """How a lesson of ``store`` is named outside it: ``personal:ID``, or the plain id."""
    return store.qualified(lesson_id) if isinstance(store, SourceStore) else lesson_id
