"""The switches of each harness, outside the repo's own settings, that keep hooks from
running: a project the harness does not trust, hooks turned off. Read the way each
client reads them (its bundled code is the reference; docs/hooks.md names the versions).
Used by ``lessons doctor``; every function returns checks for one harness.
"""

from __future__ import annotations

import fnmatch
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from lessons_cli.checks import FAIL, OK, WARN, Check
from lessons_cli.harnesses import wiring
from lessons_cli.harnesses.codex import WIRING as CODEX_WIRING
from lessons_cli.harnesses.codex_trust import EVENT_LABELS, hook_hashes
from lessons_core.git import main_checkout

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the test matrix runs 3.11
    import tomli as tomllib

Switches = Callable[[Path, Mapping[str, str]], "list[Check]"]


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home())


def _json_object(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """The object in ``path`` (None when absent), or the reason it cannot be read."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as err:
        return None, f"{path}: {err}"
    try:
        data = json.loads(_strip_comments(text)) if text.strip() else {}
    except json.JSONDecodeError as err:
        return None, f"{path}: not valid JSON ({err})"
    return (data, None) if isinstance(data, dict) else (None, f"{path}: not a JSON object")


def _strip_comments(text: str) -> str:
    """Drop ``//`` line comments outside strings (Gemini's files allow them)."""
    out, in_string, escaped, index = [], False, False, 0
    while index < len(text):
        char = text[index]
        if in_string:
            escaped = char == "\\" and not escaped
            in_string = not (char == '"' and not escaped)
        elif char == '"':
            in_string = True
        elif text.startswith("//", index):
            index = text.find("\n", index)
            if index < 0:
                break
            continue
        out.append(char)
        index += 1
    return "".join(out)


def claude_code(root: Path, env: Mapping[str, str]) -> list[Check]:
    """``disableAllHooks: true`` in any settings file Claude Code reads turns every hook off."""
    config_dir = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else None
    user = (config_dir or _home(env) / ".claude") / "settings.json"
    files = [user, root / ".claude" / "settings.json", root / ".claude" / "settings.local.json"]
    for path in files:
        data, problem = _json_object(path)
        if problem:
            return [Check("claude-code", FAIL, problem, f"fix {path} by hand")]
        if data and data.get("disableAllHooks") is True:
            detail = f"disableAllHooks is true in {path}: Claude Code runs no hook"
            return [Check("claude-code", FAIL, detail, f"remove disableAllHooks from {path}")]
    return [Check("claude-code", OK, "hooks are not turned off (disableAllHooks)")]


def gemini(root: Path, env: Mapping[str, str]) -> list[Check]:
    """Gemini CLI loads a project's hooks only in a trusted folder, and only with the hook
    system on (``hooksConfig.enabled``) and ours not listed in ``hooksConfig.disabled``."""
    gemini_home = Path(env.get("GEMINI_CLI_HOME") or _home(env)) / ".gemini"
    user_settings, problem = _json_object(gemini_home / "settings.json")
    project_settings, project_problem = _json_object(root / ".gemini" / "settings.json")
    problem = problem or project_problem
    if problem:
        return [Check("gemini", FAIL, problem, "fix that file by hand")]
    checks = []
    for settings in (user_settings or {}, project_settings or {}):
        hooks = settings.get("hooksConfig")
        if isinstance(hooks, dict) and hooks.get("enabled") is False:
            detail = "hooksConfig.enabled is false: Gemini CLI runs no hook"
            checks.append(Check("gemini", FAIL, detail, "remove hooksConfig.enabled"))
        if isinstance(hooks, dict) and "lessons" in (hooks.get("disabled") or []):
            detail = 'hooksConfig.disabled lists "lessons": Gemini CLI skips its hooks'
            checks.append(Check("gemini", FAIL, detail, 'remove "lessons" from the list'))
    trusted, why = _gemini_trust(root, env, gemini_home, user_settings or {})
    if trusted:
        checks.append(Check("gemini", OK, f"the folder is trusted ({why})"))
    else:
        fix = (
            f"trust the folder once in Gemini CLI (it asks at start-up), or add "
            f'"{root}": "TRUST_FOLDER" to {gemini_home / "trustedFolders.json"}'
        )
        detail = f"the folder is not trusted ({why}): Gemini CLI skips the project's hooks"
        checks.append(Check("gemini", FAIL, detail, fix))
    return checks


def _gemini_trust(
    root: Path, env: Mapping[str, str], gemini_home: Path, user: dict[str, Any]
) -> tuple[bool, str]:
    """Gemini CLI's ``checkPathTrust``: environment, the folder-trust switch, then the
    longest matching rule of ``trustedFolders.json`` (TRUST_PARENT covers the parent)."""
    if (
        env.get("GEMINI_CLI_TRUST_WORKSPACE") == "false"
        or env.get("GEMINI_RESTRICTED_MODE") == "true"
    ):
        return False, "GEMINI_CLI_TRUST_WORKSPACE=false in this environment"
    if env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return True, "GEMINI_CLI_TRUST_WORKSPACE=true in this environment"
    security = user.get("security")
    trust = security.get("folderTrust") if isinstance(security, dict) else None
    if isinstance(trust, dict) and trust.get("enabled") is False:
        return True, "folder trust is turned off in the user settings"
    path = Path(env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or gemini_home / "trustedFolders.json")
    rules, _problem = _json_object(path)
    here = os.path.realpath(root)
    best, level = -1, None
    for rule, value in (rules or {}).items():
        folder = os.path.dirname(rule) if value == "TRUST_PARENT" else rule
        real = os.path.realpath(folder)
        if (here == real or here.startswith(real.rstrip(os.sep) + os.sep)) and len(rule) > best:
            best, level = len(rule), value
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return True, f"{level} in {path}"
    if level == "DO_NOT_TRUST":
        return False, f"DO_NOT_TRUST in {path}"
    return False, f"no rule in {path}"


def codex(root: Path, env: Mapping[str, str]) -> list[Check]:
    """Codex reads a repo's hooks only in a trusted project, runs each only while its hash
    is the one trusted for it, and runs none with ``[features] hooks = false``; all three
    live in ``$CODEX_HOME/config.toml``."""
    path = Path(env.get("CODEX_HOME") or _home(env) / ".codex") / "config.toml"
    config, problem = _toml(path)
    if problem:
        return [Check("codex", FAIL, problem, f"fix {path} by hand")]
    config = config or {}
    checks = []
    project = _codex_project(root)
    if project != root:
        detail = (
            f"this is a linked git worktree: Codex trusts and reads the hooks of its main "
            f"checkout, {project}, not {root / '.codex' / 'hooks.json'}"
        )
        fix = f"wire the main checkout (lessons init --codex in {project}) and trust it there"
        return [Check("codex", FAIL, detail, fix)]
    features = config.get("features")
    if isinstance(features, dict) and features.get("hooks") is False:
        detail = f"[features] hooks = false in {path}: Codex runs no hook"
        checks.append(Check("codex", FAIL, detail, "remove that line"))
    projects = config.get("projects")
    entry = projects.get(str(root)) if isinstance(projects, dict) else None
    if not (isinstance(entry, dict) and entry.get("trust_level") == "trusted"):
        fix = (
            "start codex in the repo and answer Trust and continue (or run "
            "'codex exec --trust ...' once)"
        )
        detail = (
            f"the project is not trusted in {path}: Codex ignores .codex/hooks.json "
            "and .codex/config.toml"
        )
        checks.append(Check("codex", FAIL, detail, fix))
    hooks_file = root / ".codex" / "hooks.json"
    settings = wiring.read_settings(hooks_file)
    ours = set(wiring.our_commands(settings, CODEX_WIRING))
    hooks = config.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    state = state if isinstance(state, dict) else {}
    untrusted = [
        key
        for key, digest in hook_hashes(hooks_file, settings).items()
        if _command_at(settings, key) in ours
        and not (isinstance(state.get(key), dict) and state[key].get("trusted_hash") == digest)
    ]
    if untrusted:
        fix = (
            "start codex in the repo and choose Trust all and continue when it asks to "
            "review hooks (or trust them under /hooks)"
        )
        detail = f"{len(untrusted)} of lessons' hooks are new or changed since trusted"
        checks.append(Check("codex", FAIL, detail + ": Codex skips them", fix))
    if not checks:
        checks.append(Check("codex", OK, "the project and lessons' hooks are trusted"))
    return checks


def _codex_project(root: Path) -> Path:
    """The folder Codex takes as the project of ``root``: in a linked git worktree, the
    main checkout (the folder holding the common git directory); else ``root`` itself."""
    main = main_checkout(root)
    if main is None:
        return root
    return root if main == root.resolve() else main


def _command_at(settings: dict[str, Any], key: str) -> str | None:
    """The command of the handler a Codex hook key names (…:event:group:handler)."""
    _file, label, group, handler = key.rsplit(":", 3)
    event = next((name for name, value in EVENT_LABELS.items() if value == label), None)
    try:
        command = settings["hooks"][event][int(group)]["hooks"][int(handler)]["command"]
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return str(command)


def _toml(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """The table in ``path`` (None when absent), or the reason it cannot be read."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle), None
    except FileNotFoundError:
        return None, None
    except (OSError, tomllib.TOMLDecodeError) as err:
        return None, f"{path}: not readable TOML ({err})"


def copilot(root: Path, env: Mapping[str, str]) -> list[Check]:
    """Copilot CLI loads a repo's hooks only in a folder listed, or under one listed, in
    ``trustedFolders`` of ``$COPILOT_HOME/config.json``; ``disableAllHooks: true`` in the
    repo's ``.github/copilot/settings.json`` turns them off (measured with 1.0.102)."""
    checks = []
    for name in ("settings.json", "settings.local.json"):
        path = root / ".github" / "copilot" / name
        data, problem = _json_object(path)
        if problem:
            return [Check("copilot", FAIL, problem, f"fix {path} by hand")]
        if data and data.get("disableAllHooks") is True:
            detail = f"disableAllHooks is true in {path}: Copilot CLI runs no hook"
            checks.append(Check("copilot", FAIL, detail, f"remove disableAllHooks from {path}"))
    config = Path(env.get("COPILOT_HOME") or _home(env) / ".copilot") / "config.json"
    data, problem = _json_object(config)
    if problem:
        return [*checks, Check("copilot", FAIL, problem, f"fix {config} by hand")]
    folders = (data or {}).get("trustedFolders")
    here = os.path.realpath(root)
    for folder in folders if isinstance(folders, list) else []:
        real = os.path.realpath(str(folder))
        if here == real or here.startswith(real.rstrip(os.sep) + os.sep):
            return [*checks, Check("copilot", OK, f"the folder is trusted ({folder} in {config})")]
    detail = f"the folder is not in trustedFolders of {config}: Copilot CLI skips the repo's hooks"
    fix = (
        'start `copilot` here and answer "Yes, and remember this folder for future sessions" '
        "(a single `copilot -p` run can pass --trust-folder instead)"
    )
    return [*checks, Check("copilot", FAIL, detail, fix)]


def pi(root: Path, env: Mapping[str, str]) -> list[Check]:
    """Pi skips a project extension its ``.pi/settings.json`` turns off in ``extensions``
    (``pi config`` writes ``-extensions/lessons.ts``; ``!GLOB`` excludes, ``+PATH`` takes
    back): ``isEnabledByOverrides`` in Pi 0.73.1's package manager, globs read as fnmatch
    reads them."""
    path = root / ".pi" / "settings.json"
    data, problem = _json_object(path)
    if problem:
        return [Check("pi", FAIL, problem, f"fix {path} by hand")]
    patterns = (data or {}).get("extensions")
    file = (root / ".pi" / "extensions" / "lessons.ts").as_posix()
    names = ("extensions/lessons.ts", "lessons.ts", file)
    enabled = True
    for kind, matches in (("!", _glob_matches), ("+", _exact_matches), ("-", _exact_matches)):
        chosen = [str(p)[1:] for p in patterns or [] if isinstance(p, str) and p[:1] == kind]
        if chosen and matches(names, chosen):
            enabled = kind == "+"
    if enabled:
        return [Check("pi", OK, "the extension is not turned off in .pi/settings.json")]
    detail = f"{path} turns .pi/extensions/lessons.ts off (extensions): Pi does not load it"
    return [Check("pi", FAIL, detail, "remove that entry (or enable it again in `pi config`)")]


def _project_plugins_off(harness: str, prefix: str) -> Switches:
    """OpenCode and Kilo load no project plugin, lessons' neither, with ``PREFIX_PURE`` or
    ``PREFIX_DISABLE_PROJECT_CONFIG`` set to anything but empty, ``0`` or ``false``."""

    def switches(_root: Path, env: Mapping[str, str]) -> list[Check]:
        found = []
        for name in (f"{prefix}_PURE", f"{prefix}_DISABLE_PROJECT_CONFIG"):
            if env.get(name, "") not in ("", "0", "false"):
                detail = f"{name} is set here: the client loads no project plugin, lessons' neither"
                found.append(Check(harness, WARN, detail, f"unset {name}"))
        return found

    return switches


def _glob_matches(names: tuple[str, ...], patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for name in names for pattern in patterns)


def _exact_matches(names: tuple[str, ...], patterns: list[str]) -> bool:
    exact = {p[2:] if p.startswith("./") else p for p in patterns}
    return names[0] in exact or names[2] in exact


SWITCHES: dict[str, Switches] = {
    "claude-code": claude_code,
    "codex": codex,
    "gemini": gemini,
    "copilot": copilot,
    "pi": pi,
    "opencode": _project_plugins_off("opencode", "OPENCODE"),
    "kilo": _project_plugins_off("kilo", "KILO"),
}
