"""Lessons from outside ``.lessons/``: the user's personal store and the project's packs.

Three scopes hold lessons, each in the same one-file-per-lesson format:

- the project: ``.lessons/lessons/`` (``Layout``), committed with the repo;
- a pack: a folder inside the repo named in the committed config (``"packs"``), holding
  ``lessons/*.json``: a git submodule, a subtree or a vendored copy a team shares across
  repositories. lessons reads it and never writes into it; its index lives under
  ``.lessons/local/packs/<name>/``;
- personal: ``$XDG_DATA_HOME/lessons`` (default ``~/.local/share/lessons``), the user's
  own folder (0700, files 0600), with ``lessons/`` and its own ``local/``. Its lessons
  speak in every repository wired with lessons, only where a trigger of theirs matches.

A ``SourceStore`` is a ``Layout`` whose folders lie elsewhere, so the store's reads,
writes, locks and the cached index work on it unchanged. A lesson from a pack or the
personal store is named ``SOURCE:ID`` wherever a project id would be (a block, a session's
shown set, the telemetry log), so ids never collide across scopes.

Imported by every hook: ``os`` and the small core modules only.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lessons_core.containment import leaving_part
from lessons_core.errors import LessonsError
from lessons_core.fsutil import read_store_file
from lessons_core.store.config import parse_json
from lessons_core.store.layout import LOCAL, Layout

if TYPE_CHECKING:
    from collections.abc import Mapping

    from lessons_core.errors import StrPath

PERSONAL = "personal"
# Where each pack's index and lock live: ``.lessons/local/packs/<name>/``.
PACKS = "packs"
SEPARATOR = ":"
# The switch in a harness's (or a shell's) environment: 0 turns personal lessons off.
SWITCH = "LESSONS_PERSONAL"
_OFF = frozenset({"0", "false", "no", "off"})
# The user's own settings (never the repository's, which speak for the team).
USER_CONFIG = ("lessons", "config.json")
PRIVATE_FOLDER = 0o700
PRIVATE_FILE = 0o600


class SourceStore(Layout):
    """A store whose ``lessons/`` lie in ``folder`` and whose state (index cache, locks)
    lies in ``state``; ``top`` stays the repository its triggers are judged against.

    ``name`` labels its lessons (``personal``, or the pack's folder name); ``path`` is how
    a message names it (the pack's path in the repo, the personal folder).
    """

    __slots__ = ("folder", "name", "path", "state")

    def __init__(self, root: StrPath, folder: str, state: str, name: str, path: str) -> None:
        super().__init__(root)
        self.folder, self.state, self.name, self.path = folder, state, name, path

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SourceStore) and (self.folder, self.top) == (
            other.folder,
            other.top,
        )

    def __hash__(self) -> int:
        return hash((self.folder, self.top))

    def __repr__(self) -> str:
        return f"SourceStore({self.name!r}, {self.folder!r})"

    def under(self, *parts: str) -> str:
        if parts[:1] == (LOCAL,):
            return os.path.join(self.state, *parts[1:])
        return os.path.join(self.folder, *parts)

    @property
    def personal(self) -> bool:
        return self.name == PERSONAL

    @property
    def file_mode(self) -> int | None:  # type: ignore[override]
        return PRIVATE_FILE if self.personal else None

    @property
    def label(self) -> str:
        """How a block labels its lessons: ``personal``, ``pack NAME``."""
        return PERSONAL if self.personal else f"pack {self.name}"

    def qualified(self, lesson_id: str) -> str:
        """``lesson_id`` as it is named outside this store: ``personal:ID``."""
        return f"{self.name}{SEPARATOR}{lesson_id}"


class LeavesStore(LessonsError):
    """A folder of a store that is a link leading out of it, or a pack path out of the repo."""

    def __init__(self, part: str, target: str, where: str, fix: str) -> None:
        self.part, self.target = part, target
        how = "is a symbolic link to" if os.path.islink(part) else "leads to"
        super().__init__(f"{part} {how} {target}, outside {where}; {fix}")


def split_qualified(key: str) -> tuple[str | None, str]:
    """``(source, id)`` of ``personal:ID`` or ``PACK:ID``; ``(None, key)`` for a plain id."""
    source, found, lesson_id = key.partition(SEPARATOR)
    return (source, lesson_id) if found else (None, key)


# The personal store.


def personal_folder(environ: Mapping[str, str] | None = None) -> str | None:
    """``$XDG_DATA_HOME/lessons`` (a relative value is ignored, as the XDG spec says),
    else ``~/.local/share/lessons``; None without an absolute ``HOME``."""
    return _xdg(environ, "XDG_DATA_HOME", (".local", "share"), ("lessons",))


def user_config_path(environ: Mapping[str, str] | None = None) -> str | None:
    """``$XDG_CONFIG_HOME/lessons/config.json`` (default ``~/.config/...``)."""
    return _xdg(environ, "XDG_CONFIG_HOME", (".config",), USER_CONFIG)


def _xdg(
    environ: Mapping[str, str] | None,
    variable: str,
    default: tuple[str, ...],
    parts: tuple[str, ...],
) -> str | None:
    """``parts`` under the XDG base folder ``variable`` names, or its ``default`` under
    the home folder."""
    env = os.environ if environ is None else environ
    base = env.get(variable, "")
    if not os.path.isabs(base):
        home = env.get("HOME", "")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, *default)
    return os.path.join(base, *parts)


def user_settings(environ: Mapping[str, str] | None = None) -> dict[str, object]:
    """The user's own settings; {} when there are none or they do not parse (``lessons
    doctor`` says which)."""

    path = user_config_path(environ)
    if path is None:
        return {}
    try:
        data = parse_json(read_store_file(path))
    except (OSError, LessonsError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def personal_off_reason(root: str, environ: Mapping[str, str] | None = None) -> str | None:
    """Why personal lessons are off in the repository at ``root``; None when they are on.

    ``LESSONS_PERSONAL=0`` in the environment, ``"personal": false`` in the user's config
    (everywhere), or ``root`` among its ``"personal_off"`` folders (this repository).
    """
    env = os.environ if environ is None else environ
    if env.get(SWITCH, "").strip().lower() in _OFF:
        return f"{SWITCH}={env[SWITCH]} in the environment"
    settings = user_settings(env)
    if not settings:
        return None
    where = user_config_path(env)
    if settings.get("personal") is False:
        return f'"personal": false in {where}'
    off = settings.get("personal_off")
    if isinstance(off, list) and off:
        here = os.path.realpath(root)
        for folder in off:
            if isinstance(folder, str) and os.path.realpath(os.path.expanduser(folder)) == here:
                return f'{root} is in "personal_off" in {where}'
    return None


def personal_store(root: StrPath, environ: Mapping[str, str] | None = None) -> SourceStore | None:
    """The personal store as seen from the repository at ``root`` (None without a home
    folder); its folders are checked for links that leave it (``LeavesStore``)."""
    folder = personal_folder(environ)
    if folder is None:
        return None
    store = SourceStore(root, folder, os.path.join(folder, LOCAL), PERSONAL, folder)
    return contained_store(store)


def contained_store(store: SourceStore) -> SourceStore:
    """``store``, once none of its folders is a link leading out of it."""
    folders = (store.under("lessons"), store.under(LOCAL), store.under(LOCAL, "sessions"))
    if any(os.path.islink(folder) for folder in folders):
        for folder in folders:
            found = leaving_part(folder, store.folder)
            if found is not None:
                fix = "replace the link with a folder of its own"
                raise LeavesStore(*found, where=f"the store {store.folder}", fix=fix)
    return store


def ensure_private(store: SourceStore) -> None:
    """Create the personal store's folders 0700 (and make existing ones private)."""
    for folder in (store.folder, store.under("lessons"), store.under(LOCAL)):
        os.makedirs(folder, mode=PRIVATE_FOLDER, exist_ok=True)
        if os.stat(folder).st_mode & 0o077:
            os.chmod(folder, PRIVATE_FOLDER)


# Packs.


def pack_stores(layout: Layout, packs: tuple[str, ...]) -> list[SourceStore]:
    """The packs ``packs`` (the config's ``"packs"``) names, in order; a path that leaves
    the repository, through ``..``, an absolute path or a link, is refused by name
    (``LeavesStore``), as is a name two packs share."""
    found: list[SourceStore] = []
    for path in packs:
        store = pack_store(layout, path)
        if store.name == PERSONAL or any(other.name == store.name for other in found):
            raise LessonsError(
                f"pack '{path}' in {layout.config_file} is named '{store.name}', as "
                f"{'personal lessons are' if store.name == PERSONAL else 'another pack is'}; "
                "rename its folder (a pack is named by its folder)"
            )
        found.append(store)
    return found


def pack_store(layout: Layout, path: str) -> SourceStore:
    """The pack at ``path`` (repo-relative) of the project at ``layout``."""
    top = os.path.normpath(os.path.abspath(layout.top))
    relative = path.replace("\\", "/").strip()
    parts = [part for part in relative.split("/") if part not in ("", ".")]
    where = f"the repository {top}"
    fix = f'name a folder inside the repository in "packs" of {layout.config_file}'
    if not parts:
        raise LessonsError(
            f"pack '{path}' in {layout.config_file} names no folder (the repository's top "
            "is the project's own store); name a folder inside the repository"
        )
    if os.path.isabs(relative) or ".." in parts:
        raise LeavesStore(path, os.path.normpath(os.path.join(top, relative)), where, fix)
    folder = os.path.join(top, *parts)
    leaving = leaving_part(os.path.join(folder, "lessons"), top)
    if leaving is not None:
        raise LeavesStore(*leaving, where=where, fix=fix)
    name = parts[-1]
    if SEPARATOR in name or not name.isprintable():
        raise LessonsError(
            f"pack '{path}' in {layout.config_file}: its folder name cannot name lessons "
            f"(no '{SEPARATOR}', no control characters); rename the folder"
        )
    state = layout.under(LOCAL, PACKS, name)
    return SourceStore(top, folder, state, name, "/".join(parts))
