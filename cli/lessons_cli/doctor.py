"""``lessons doctor``: will the hooks of this repo really run here, and if not, why.

A hook that does not run says nothing: a harness that skips an untrusted project's hooks,
a settings file it cannot parse, an install the launcher cannot find, all look the same
to a user as "no lesson applied". Each check here names what it looked at and, when it
fails, the exact fix. Harness switches (trust, hooks turned off) are in
``lessons_cli.harnesses.switches``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Mapping
from typing import Any

from lessons_cli import mcp_sdk
from lessons_cli.checks import FAIL, OK, WARN, Check
from lessons_cli.harnesses import plugin_files, servers, wiring, wirings
from lessons_cli.harnesses.spec import Wiring
from lessons_cli.harnesses.switches import SWITCHES
from lessons_cli.output import counted
from lessons_cli.scope_checks import pack_checks, personal_check
from lessons_core.containment import leaving_part, outside_reason
from lessons_core.errors import LessonsError
from lessons_core.fsutil import read_regular
from lessons_core.git import top_level
from lessons_core.git_ignored import ignored
from lessons_core.index.cache import cache_state, load_index
from lessons_core.store import launcher
from lessons_core.store.layout import LAUNCH, Layout, lessons_command
from lessons_core.validate.findings import Severity
from lessons_core.validate.runner import validate


def diagnose(layout: Layout, env: Mapping[str, str]) -> list[Check]:
    """Every check for the store at ``layout``, as seen from a process with ``env``."""
    checks = [_store(layout), _index(layout), *pack_checks(layout), personal_check(layout, env)]
    checks += _launcher(layout, env)
    specs = wirings()
    for spec in specs.values():
        checks += _harness(layout, spec, env)
        checks += _server(layout, spec)
    checks += _ignored(layout, [spec for spec in specs.values() if _ours(layout, spec)])
    if not any(check.subject in specs for check in checks):
        checks.append(
            Check(
                "harnesses",
                WARN,
                "no harness is wired in this repo, so no hook runs",
                "lessons init --claude-code (or --codex, --gemini, --cursor)",
            )
        )
    return checks


def _ours(layout: Layout, spec: Wiring) -> bool:
    """Whether ``spec``'s settings file holds hooks of ours (or its MCP file our server)."""
    files = [(spec.settings, False), (spec.mcp_settings, True)]
    for name, server in files:
        path = layout.root / name if name else None
        if path is None or not path.is_file() or leaving_part(path, layout.root):
            continue
        try:
            if server and servers.our_command(layout.root, name or "") is not None:
                return True
            if not server and wiring.our_commands(wiring.read_settings(path), spec):
                return True
        except LessonsError:
            continue
    return False


def _ignored(layout: Layout, specs: list[Wiring]) -> list[Check]:
    """The files a teammate's clone needs for the hooks to run that git ignores here: a
    plain ``git add`` leaves them out, so the hooks stay on this machine."""
    top = top_level(layout.root)
    if top is None:
        return []
    wanted = [layout.base / launcher.NAME, layout.config_path]
    for spec in specs:
        wanted += [layout.root / name for name in (spec.settings, spec.mcp_settings) if name]
    names = [
        os.path.relpath(path.parent.resolve() / path.name, top.resolve())
        for path in dict.fromkeys(wanted)
        if path.is_file()
    ]
    return [
        Check("commit", WARN, f"{found.said()}: teammates' clones will not have it", found.fix())
        for found in ignored(top, names)
    ]


def _store(layout: Layout) -> Check:
    report = validate(layout)
    errors, warnings = report.count(Severity.ERROR), report.count(Severity.WARNING)
    detail = (
        f"{counted(report.lessons, 'lesson')}; lessons validate: {counted(errors, 'error')}, "
        f"{counted(warnings, 'warning')}"
    )
    if errors:
        return Check("store", FAIL, detail, "lessons validate  (each error names its fix)")
    return Check("store", OK, detail)


def _index(layout: Layout) -> Check:
    state = cache_state(layout)
    if state == "fresh":
        return Check("index", OK, "the cached index is up to date")
    load_index(layout)
    return Check("index", OK, f"the cached index was {state}; rebuilt now")


def _launcher(layout: Layout, env: Mapping[str, str]) -> list[Check]:
    path = layout.base / launcher.NAME
    if not path.is_file():
        fix = "lessons init  (writes .lessons/run; commit it)"
        return [Check("launcher", FAIL, ".lessons/run is missing: wired hooks find nothing", fix)]
    checks = []
    if path.read_bytes() != launcher.launcher_text():
        checks.append(
            Check(
                "launcher",
                WARN,
                ".lessons/run differs from this version's launcher",
                "lessons init  (rewrites it; commit the change)",
            )
        )
    run_env = {**env, "CLAUDE_PROJECT_DIR": str(layout.root)}
    try:
        done = subprocess.run(
            ["sh", str(path), "--version"],
            cwd=layout.root,
            env=run_env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        answer, problem = done.stdout.strip(), done.stderr.strip()
    except (OSError, subprocess.SubprocessError) as err:
        answer, problem = "", str(err)
    if not answer.startswith("lessons, version"):
        fix = (
            "install lessons where the launcher looks: 'pipx install .' (or 'uv tool "
            "install .') in the root of a clone of the lessons repository, the repo's .venv, "
            "or set LESSONS_PYTHON; see docs/hooks.md"
        )
        detail = f".lessons/run finds no lessons here ({problem or 'no answer'})"
        return [*checks, Check("launcher", FAIL, detail, fix)]
    found = _launched_from(layout)
    where = f" at {found}" if found else ""
    checks.append(Check("launcher", OK, f".lessons/run runs {answer.split()[-1]}{where}"))
    checks.append(
        Check("capture", OK, f"the agent's shell captures with: {lessons_command(layout)} add ...")
    )
    return checks


def _launched_from(layout: Layout) -> str | None:
    try:
        lines = read_regular(layout.local(LAUNCH)).decode().splitlines()  # never a link
    except (OSError, UnicodeDecodeError):
        return None
    return lines[0] if lines else None


def _linked_out(layout: Layout, name: str, settings_file: str) -> list[Check]:
    """A warning when ``settings_file`` is reached through a link out of the repo: lessons
    neither reads nor writes it there (``lessons init`` refuses), so it is not checked."""
    found = leaving_part(layout.root / settings_file, layout.root)
    if found is None:
        return []
    detail = f"{outside_reason(*found)}: lessons neither reads nor writes {settings_file} there"
    return [Check(name, WARN, detail, "replace the link with a folder of the repo")]


def _harness(layout: Layout, spec: Wiring, env: Mapping[str, str]) -> list[Check]:
    path = layout.root / spec.settings
    if not path.exists():
        return []
    name = spec.harness
    linked = _linked_out(layout, name, spec.settings)
    if linked:
        return linked
    plugin = plugin_files.PLUGIN_FILES.get(name)
    if plugin is not None:  # a file of ours, not entries in a settings file
        checks = plugin_files.checks(layout.root, plugin)
        switches = SWITCHES[name](layout.root, env) if checks and name in SWITCHES else []
        return [*checks, *switches]
    try:
        settings = wiring.read_settings(path)
    except LessonsError as err:
        return [Check(name, FAIL, str(err), f"fix {spec.settings} by hand")]
    commands = wiring.our_commands(settings, spec)
    if not commands:
        return []
    checks = [_entries(layout, spec, settings, commands)]
    checks += SWITCHES[name](layout.root, env) if name in SWITCHES else []
    return checks


def _entries(layout: Layout, spec: Wiring, settings: dict[str, Any], commands: list[str]) -> Check:
    """Our entries are the ones this version writes: every event, through a launcher that
    is there when the harness runs the command from the project folder."""
    flag = f"lessons init --{spec.harness}"
    wanted = {event.name for event in spec.events}
    wired = wiring.our_events(settings, spec)
    stale = [c for c in commands if f"/.lessons/{launcher.NAME}" not in c]
    if stale:
        missing = [w[0] for w in map(_words, stale) if w and not os.path.exists(w[0])]
        detail = f"{spec.settings} runs an interpreter by path, not the launcher"
        if missing:
            detail += f"; {missing[0]} does not exist here, so the hook fails on every call"
            return Check(spec.harness, FAIL, detail, flag)
        return Check(spec.harness, WARN, detail + " (works only on this machine)", flag)
    for command in dict.fromkeys(commands):
        target = launcher.launcher_target(command, layout.root, spec.project_dir_var)
        if target is None or not target.is_file():
            opened = target or "a file the shell could not name"
            detail = f"{spec.settings} runs {opened}, which is not there: every hook fails"
            return Check(spec.harness, FAIL, detail, flag)
    if wired != wanted:
        absent = ", ".join(sorted(wanted - wired)) or "none"
        detail = f"{spec.settings} wires other events than this version (missing: {absent})"
        return Check(spec.harness, WARN, detail, flag)
    unheard = _unheard_tools(spec, wiring.our_matchers(settings, spec))
    if unheard:
        detail = (
            f"{spec.settings} was written by an older lessons init: its hooks do not hear "
            f"{', '.join(unheard)}, so a file's rules come only when it is changed "
            "(a refusal, or after the change) instead of with the read before it"
        )
        return Check(spec.harness, WARN, detail, flag)
    return Check(spec.harness, OK, f"{spec.settings}: {len(wanted)} events through .lessons/run")


def _unheard_tools(spec: Wiring, matchers: dict[str, str | None]) -> list[str]:
    """The tools this version's matchers name that the wired ones leave out, per event
    (``Bash|Edit`` where this version wires ``Bash|Edit|Read``: Read)."""
    wired = {event.name: event.matcher for event in spec.events}
    missing: list[str] = []
    for event, wanted in wired.items():
        have = matchers.get(event)
        if wanted is None or have is None or have == wanted:
            continue
        for tool in _tool_names(wanted):
            try:
                heard = re.fullmatch(have, tool) is not None
            except re.error:  # a matcher edited by hand: the harness may not read it either
                heard = False
            if not heard:
                missing.append(tool)
    return list(dict.fromkeys(missing))


def _tool_names(matcher: str) -> list[str]:
    """The names an alternation ``a|b``, or an anchored ``^(a|b)$``, lists."""
    inner = matcher[2:-2] if matcher.startswith("^(") and matcher.endswith(")$") else matcher
    return inner.split("|")


def _server(layout: Layout, spec: Wiring) -> list[Check]:
    """The ``lessons mcp`` entry of ours, if any, starts through a launcher that is there."""
    if spec.mcp_settings is None or not (layout.root / spec.mcp_settings).exists():
        return []
    linked = _linked_out(layout, spec.harness, spec.mcp_settings)
    if linked:  # said once for a file that holds the hooks too (Gemini CLI, Qwen Code)
        return [] if spec.mcp_settings == spec.settings else linked
    try:
        command = servers.our_command(layout.root, spec.mcp_settings)
    except LessonsError as err:
        return [Check(spec.harness, FAIL, str(err), f"fix {spec.mcp_settings} by hand")]
    if command is None:
        return []
    fix = f"lessons init --{spec.harness} --mcp"
    target = launcher.server_launcher(command, layout.root, spec.mcp_project_dir_var)
    if target is None:
        detail = f"{spec.mcp_settings} starts lessons mcp without the launcher"
        return [Check(spec.harness, WARN, detail + " (works only on this machine)", fix)]
    if not target.is_file():
        # Named "lessons mcp": the file may hold the hooks too (Gemini CLI, Qwen Code).
        detail = (
            f"{spec.mcp_settings} starts lessons mcp with {target}, which is not there: "
            "the server fails"
        )
        return [Check(spec.harness, FAIL, detail, fix)]
    python = _launched_from(layout)
    problem = mcp_sdk.missing(python)
    if problem is not None:
        detail = f"{spec.mcp_settings} starts lessons mcp, which cannot serve: {problem}"
        return [Check(spec.harness, FAIL, detail, mcp_sdk.install_line(python))]
    return [Check(spec.harness, OK, f"{spec.mcp_settings}: lessons mcp through .lessons/run")]


def _words(command: str) -> list[str]:
    """A command's words as the shell splits them (an old entry quotes its interpreter)."""
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def exit_code(checks: list[Check]) -> int:
    """1 when something would silently not work, else 0."""
    return 1 if any(check.status == FAIL for check in checks) else 0
