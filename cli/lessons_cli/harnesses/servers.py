"""Adding and removing the ``lessons mcp`` server in a harness's project file of MCP
servers (``Wiring.mcp_settings``: Claude Code's ``.mcp.json``, Gemini CLI's
``.gemini/settings.json``; Codex CLI's ``.codex/config.toml`` through ``toml_servers``),
for ``lessons init --mcp`` and ``--remove-hooks``.

Those files list servers by name under ``mcpServers`` and hold other tools' servers and
settings too: ours is the entry ``lessons`` whose command runs ``lessons ... mcp``; it is
replaced on re-run and dropped on removal, and nothing else in the file changes. A server
of someone else's already called ``lessons`` is never overwritten. A file left empty by the
removal is deleted.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from lessons_cli.harnesses import toml_servers
from lessons_cli.harnesses.wiring import read_settings
from lessons_core.errors import LessonsError
from lessons_core.fsutil import atomic_write, write_target

NAME = "lessons"
_OURS = re.compile(r"\blessons(?:_cli)?\b.*\smcp\s*$")


def server_entry(command: str) -> dict[str, Any]:
    """A stdio server started through ``sh -c COMMAND`` (the launcher's way, as the hooks)."""
    return {"command": "sh", "args": ["-c", command]}


def is_ours(entry: Any) -> bool:
    """A server entry whose command line runs ``lessons ... mcp``."""
    if not isinstance(entry, dict):
        return False
    args = entry.get("args")
    words = [str(entry.get("command", "")), *(map(str, args) if isinstance(args, list) else [])]
    return bool(_OURS.search(" ".join(words)))


def _is_toml(settings_file: str) -> bool:
    return settings_file.endswith(".toml")


def install(root: Path, settings_file: str, command: str) -> bool:
    """Put our server in ``settings_file``; True if the file changed."""
    if _is_toml(settings_file):
        return toml_servers.install(root, settings_file, server_entry(command), is_ours)
    path = write_target(root / settings_file, root)
    settings = read_settings(path)
    servers = _servers(settings, path)
    present = servers.get(NAME)
    if present is not None and not is_ours(present):
        raise LessonsError(
            f"{path}: mcpServers already has a server called '{NAME}' that does not run "
            "lessons; rename or remove it, then re-run"
        )
    wanted = server_entry(command)
    if present == wanted:
        return False
    servers[NAME] = wanted
    _write(path, settings)
    return True


def uninstall(root: Path, settings_file: str) -> bool:
    """Remove our server from ``settings_file``; True if the file changed."""
    if _is_toml(settings_file):
        return toml_servers.uninstall(root, settings_file, is_ours)
    path = write_target(root / settings_file, root)
    if not path.exists():
        return False
    settings = read_settings(path)
    servers = settings.get("mcpServers")
    if not isinstance(servers, dict) or not is_ours(servers.get(NAME)):
        return False
    del servers[NAME]
    if not servers:
        del settings["mcpServers"]
    if settings:
        _write(path, settings)
    else:
        path.unlink()
    return True


def installed(root: Path, settings_file: str) -> bool:
    return our_command(root, settings_file) is not None


def our_command(root: Path, settings_file: str) -> str | None:
    """The shell command our entry in ``settings_file`` starts (None: no entry of ours)."""
    path = root / settings_file
    if not path.exists():
        return None
    if _is_toml(settings_file):
        entry = toml_servers.entry_of(toml_servers.read(path)[1])
    else:
        servers = read_settings(path).get("mcpServers")
        entry = servers.get(NAME) if isinstance(servers, dict) else None
    if not isinstance(entry, dict) or not is_ours(entry):
        return None
    args = entry.get("args")
    if entry.get("command") == "sh" and isinstance(args, list) and args[:1] == ["-c"]:
        return " ".join(map(str, args[1:]))
    return " ".join(map(str, [entry.get("command"), *(args if isinstance(args, list) else [])]))


def _servers(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    servers = settings.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise LessonsError(
            f"{path}: mcpServers is not an object of servers by name; fix it by hand and re-run"
        )
    return servers


def _write(path: Path, settings: dict[str, Any]) -> None:
    atomic_write(path, orjson.dumps(settings, option=orjson.OPT_INDENT_2) + b"\n")
