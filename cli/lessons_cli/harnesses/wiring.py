"""Adding and removing the ``lessons hook`` entries in each harness's settings file
(what to write is each harness module's ``WIRING``).

Every harness keeps hooks in a JSON file that other tools and people edit too, so the
merge touches nothing but our own entries: they are recognised by their command (it runs
``lessons`` ... ``hook HARNESS``), replaced on re-run and dropped on removal; anything
else in the file keeps its place and value. A file that does not parse is never
rewritten.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from lessons_cli.harnesses import plugin_files
from lessons_cli.harnesses.spec import HookEvent, Wiring
from lessons_core.errors import LessonsError
from lessons_core.fsutil import atomic_write, write_target

# `sh "$X/.lessons/run" hook H || true` (the launcher), or the older `PY -I -m lessons_cli
# hook H` and `lessons hook H`: entries of ours in any form, so re-runs replace them.
_OURS = re.compile(r"\blessons(?:_cli)?\b.*\shook\s+[a-z-]+(?:\s*\|\|\s*true)?\s*$")


def is_ours(entry: Any, key: str = "command") -> bool:
    """A hook handler or flat entry whose command (under ``key``) runs
    ``lessons ... hook HARNESS``."""
    return isinstance(entry, dict) and bool(_OURS.search(str(entry.get(key, ""))))


def install(root: Path, wiring: Wiring, command: str) -> bool:
    """Put our entries in ``wiring.settings``; True if the file changed.

    An entry of ours already there is replaced where it stands, so re-running changes
    nothing and never reorders what other tools put around it.
    """
    plugin = plugin_files.PLUGIN_FILES.get(wiring.harness)
    if plugin is not None:  # a file of ours, not entries (Pi, Cline, OpenCode, Kilo)
        return plugin_files.install(root, plugin, command)
    path = write_target(root / wiring.settings, root)
    settings = read_settings(path)
    before = orjson.dumps(settings)
    for key, value in (wiring.top_level or {}).items():
        settings.setdefault(key, value)
    hooks = _hooks_object(settings, path)
    wanted = {event.name: _entry(wiring, event, command) for event in wiring.events}
    _merge(hooks, wiring, wanted)
    for name, entry in wanted.items():
        entries = hooks.setdefault(name, [])
        if not isinstance(entries, list):
            raise _shape_error(path, f"hooks.{name}")
        if entry not in entries:
            entries.append(entry)
    return _write_if_changed(path, settings, before)


def uninstall(root: Path, wiring: Wiring) -> bool:
    """Remove our entries from ``wiring.settings``; True if the file changed."""
    plugin = plugin_files.PLUGIN_FILES.get(wiring.harness)
    if plugin is not None:
        return plugin_files.uninstall(root, plugin)
    path = write_target(root / wiring.settings, root)
    if not path.exists():
        return False
    settings = read_settings(path)
    before = orjson.dumps(settings)
    hooks = _hooks_object(settings, path)
    _merge(hooks, wiring, {})
    if not hooks:
        del settings["hooks"]
    # Left holding nothing but what ``install`` put there (``{}``, or Copilot's and
    # Cursor's ``{"version": 1}``): nothing of anyone else's is in it, so it goes.
    if orjson.dumps(settings) != before and _only_defaults(settings, wiring):
        path.unlink()
        return True
    return _write_if_changed(path, settings, before)


def installed(root: Path, wiring: Wiring) -> bool:
    """True when the settings file holds at least one of our entries."""
    plugin = plugin_files.PLUGIN_FILES.get(wiring.harness)
    if plugin is not None:
        return plugin_files.installed(root, plugin)
    path = root / wiring.settings
    if not path.exists():
        return False
    return bool(_ours(read_settings(path), wiring))


def our_commands(settings: dict[str, Any], wiring: Wiring) -> list[str]:
    """The commands of our entries in parsed ``settings``, in file order."""
    return [str(handler[wiring.command_key]) for _event, handler in _ours(settings, wiring)]


def our_events(settings: dict[str, Any], wiring: Wiring) -> set[str]:
    """The events under which ``settings`` holds an entry of ours."""
    return {event for event, _handler in _ours(settings, wiring)}


def our_matchers(settings: dict[str, Any], wiring: Wiring) -> dict[str, str | None]:
    """The matcher of our first entry under each event in parsed ``settings`` (None: an
    entry without one)."""
    hooks = settings.get("hooks")
    found: dict[str, str | None] = {}
    if not isinstance(hooks, dict):
        return found
    for event, entries in hooks.items():
        for entry in entries if isinstance(entries, list) else []:
            if event not in found and any(
                is_ours(h, wiring.command_key) for h in _handlers(wiring, entry)
            ):
                matcher = entry.get("matcher") if isinstance(entry, dict) else None
                found[event] = matcher if isinstance(matcher, str) else None
    return found


def _ours(settings: dict[str, Any], wiring: Wiring) -> list[tuple[str, dict[str, Any]]]:
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    return [
        (event, handler)
        for event, entries in hooks.items()
        if isinstance(entries, list)
        for entry in entries
        for handler in _handlers(wiring, entry)
        if is_ours(handler, wiring.command_key)
    ]


def _only_defaults(settings: dict[str, Any], wiring: Wiring) -> bool:
    """Nothing in ``settings`` but what ``install`` put at the top level."""
    defaults = wiring.top_level or {}
    return all(key in defaults and defaults[key] == value for key, value in settings.items())


def read_settings(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    raw = path.read_bytes()
    if not raw.strip():
        return {}
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        raise LessonsError(
            f"{path}: not valid JSON ({err}); fix it by hand and re-run, "
            "lessons never rewrites a file it cannot read"
        ) from None
    if not isinstance(data, dict):
        raise _shape_error(path, "the top level")
    return data


def _entry(wiring: Wiring, event: HookEvent, command: str) -> dict[str, Any]:
    if not wiring.nested:
        flat: dict[str, Any] = {**(wiring.handler_extra or {}), wiring.command_key: command}
        if event.matcher:
            flat["matcher"] = event.matcher
        return flat
    group: dict[str, Any] = {}
    if event.matcher:
        group["matcher"] = event.matcher
    group["hooks"] = [{"type": "command", "command": command, **(wiring.handler_extra or {})}]
    return group


def _handlers(wiring: Wiring, entry: Any) -> list[Any]:
    if not wiring.nested:
        return [entry]
    inner = entry.get("hooks") if isinstance(entry, dict) else None
    return inner if isinstance(inner, list) else []


def _merge(hooks: dict[str, Any], wiring: Wiring, wanted: dict[str, Any]) -> None:
    """Replace the first entry of ours under each wanted event, drop every other one.

    Handlers of ours that someone moved into a shared group are taken out of it; groups
    and events left empty by that alone are removed.
    """
    for name in list(hooks):
        entries = hooks[name]
        if not isinstance(entries, list):
            continue
        kept: list[Any] = []
        for entry in entries:
            handlers = _handlers(wiring, entry)
            remaining = [h for h in handlers if not is_ours(h, wiring.command_key)]
            if len(remaining) == len(handlers):
                kept.append(entry)
            elif remaining and wiring.nested:
                kept.append({**entry, "hooks": remaining})
            elif name in wanted and wanted[name] not in kept:
                kept.append(wanted[name])
        if kept:
            hooks[name] = kept
        else:
            del hooks[name]


def _hooks_object(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise _shape_error(path, "hooks")
    return hooks


def _write_if_changed(path: Path, settings: dict[str, Any], before: bytes) -> bool:
    if orjson.dumps(settings) == before:
        return False
    atomic_write(path, orjson.dumps(settings, option=orjson.OPT_INDENT_2) + b"\n")
    return True


def _shape_error(path: Path, key: str) -> LessonsError:
    return LessonsError(
        f"{path}: {key} is not shaped the way this harness documents (an object of event "
        "lists); fix it by hand and re-run"
    )
