"""``lessons doctor``'s checks of the scopes beside the project: the personal store (where
it is, whether it is on, whether it is private) and each pack the config names."""

from __future__ import annotations

import os
from collections.abc import Mapping

from lessons_cli.checks import FAIL, OK, WARN, Check
from lessons_cli.output import counted
from lessons_core.errors import LessonsError
from lessons_core.store.config import load_config
from lessons_core.store.files import load_graph
from lessons_core.store.layout import Layout
from lessons_core.store.sources import (
    SWITCH,
    pack_store,
    personal_folder,
    personal_off_reason,
    personal_store,
    user_config_path,
)


def personal_check(layout: Layout, env: Mapping[str, str]) -> Check:
    """Where the personal store is, and whether this repository's hooks read it."""
    folder = personal_folder(env)
    if folder is None:
        return Check("personal", WARN, "no personal store: HOME is not set", "set HOME")
    off = personal_off_reason(layout.top, env)
    if off is not None:
        return Check("personal", OK, f"{folder}: off here ({off})")
    try:
        store = personal_store(layout.top, env)
    except LessonsError as err:
        return Check("personal", FAIL, str(err), "replace the link with a folder of its own")
    if store is None or not os.path.isdir(store.under("lessons")):
        detail = f"{folder}: none yet (lessons add --personal ... keeps one there)"
        return Check("personal", OK, detail)
    try:
        graph = load_graph(store)
    except OSError as err:
        fix = f"make {folder} readable by you (chmod 700)"
        return Check("personal", FAIL, f"{folder} cannot be read ({err.strerror})", fix)
    detail = (
        f"{folder}: {counted(len(graph.active()), 'active lesson')}, read in every repository "
        f'(off: {SWITCH}=0, or "personal": false in {user_config_path(env)})'
    )
    if os.stat(folder).st_mode & 0o077:
        return Check("personal", WARN, detail + "; others can read it", f"chmod 700 {folder}")
    if graph.broken:
        fix = "lessons validate --personal  (each error names its fix)"
        return Check(
            "personal", WARN, f"{detail}; {counted(len(graph.broken), 'broken file')}", fix
        )
    return Check("personal", OK, detail)


def pack_checks(layout: Layout) -> list[Check]:
    """Each pack the committed config names: there, inside the repo, with lessons."""
    checks = []
    for path in load_config(layout.config_file).packs:
        try:
            store = pack_store(layout, path)
        except LessonsError as err:
            checks.append(Check("pack", FAIL, str(err), 'fix "packs" in .lessons/config.json'))
            continue
        if not os.path.isdir(store.under("lessons")):
            detail = f"{path}: no lessons/ folder (a submodule not checked out?)"
            checks.append(Check("pack", WARN, detail, "git submodule update --init"))
            continue
        count = len(load_graph(store).active())
        checks.append(Check("pack", OK, f"{path}: {counted(count, 'active lesson')}"))
    return checks
