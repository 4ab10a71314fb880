"""Codex CLI: ``SessionStart``, ``UserPromptSubmit``, ``PreToolUse``, ``PostToolUse`` (its
shell tool), ``PreCompact`` and ``Stop``.

Codex speaks Claude Code's hook protocol (``hookSpecificOutput`` with
``permissionDecision``/``additionalContext``). As the real client sends them (Codex CLI
0.171.0, tests/e2e/test_codex.py; payloads in tests/fixtures/codex/), PreToolUse knows two
tools: its shell tool (``exec_command`` to the model) arrives as ``Bash`` with the script
in ``tool_input.command``, and an edit as ``apply_patch`` with the patch text there. The
files an edit touches come from the patch headers, also when the patch is piped through
the shell (``apply_patch <<'EOF'``). Codex reads files through its shell too (``sed -n
1,200p FILE``, ``cat``, ``nl -ba``, ``rg``): the files such a command reads bring their
rules as ``additionalContext``, which Codex hands the model as a developer message before
the command's output, so before the model writes its patch; a patch of a file whose rules
no read brought (``*** Add File:``, say) is refused once with them.

Codex has no failure hook: ``PostToolUse`` after a shell call carries its output without
the exit code, which ``codex_exits`` reads from the session file. A non-zero one runs the
failure path every harness shares (``nudges.after_failure``), its nudge answered as
``additionalContext`` (the model reads it as a developer message); the recurrence gate
then refuses the next attempt from ``PreToolUse``. No hook fires after a failed
``apply_patch``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lessons_cli.harnesses import claude_protocol as protocol
from lessons_cli.harnesses import codex_exits, codex_patches
from lessons_cli.harnesses.spec import HookEvent, Wiring, any_of
from lessons_core.delivery import deliver as delivery
from lessons_core.delivery.tool_action import ToolAction

if TYPE_CHECKING:
    from lessons_cli.harnesses.claude_protocol import HookPayload
    from lessons_cli.harnesses.events import Answer, Output
    from lessons_core.store.config import Config
    from lessons_core.store.layout import Layout

project_dir = protocol.project_dir

SHELL_TOOL = "Bash"
PATCH_TOOL = "apply_patch"
TOOLS = (SHELL_TOOL, PATCH_TOOL)
# Codex (0.171.0, tests/e2e/test_codex.py) has hooks on by default, but skips a repo's
# .codex/hooks.json in an untrusted folder and each hook until it is trusted, silently.
INIT_NOTE = (
    "Codex runs these hooks only once you trust the folder and the hooks: start `codex` "
    'here, choose "Trust and continue", then "Trust all and continue" when it says '
    "hooks need review (or trust them under /hooks). Trust them again whenever "
    "`lessons init` changes them. No feature flag is needed: `[features] hooks` is on "
    "by default (`codex_hooks` is its deprecated name)."
)
WIRING = Wiring(
    "codex",
    ".codex/hooks.json",
    (
        HookEvent("SessionStart"),
        HookEvent("UserPromptSubmit"),
        HookEvent("PreToolUse", any_of(TOOLS)),
        HookEvent("PostToolUse", any_of((SHELL_TOOL,))),
        HookEvent("PreCompact"),
        HookEvent("Stop"),
    ),
    handler_extra={"timeout": 10},
    note=INIT_NOTE,
    # Read in a trusted project, like the hooks (0.171.0, tests/e2e/test_codex_mcp.py); the
    # server starts in the session's folder, with no project folder variable.
    mcp_settings=".codex/config.toml",
)


def action_of(layout: Layout, payload: HookPayload) -> ToolAction:
    tool, given = payload.get("tool_name"), payload.get("tool_input")
    command = given.get("command") if isinstance(given, dict) else None
    if tool not in TOOLS or not isinstance(command, str):
        return ToolAction()
    if tool == PATCH_TOOL or codex_patches.is_patch(command):
        paths, added = codex_patches.patch_paths(command), codex_patches.patch_added(command)
        return protocol.file_action(layout, payload, *paths, added=added)
    return protocol.shell_action(layout, payload, command)


def after_shell(layout: Layout, payload: HookPayload, config: Config) -> Output | None:
    """After a shell call: its exit code from the session file; a failure is counted and
    may bring a nudge, a success after failures ends their run; no code, nothing."""
    code = codex_exits.exit_code(payload.get("transcript_path"), payload.get("tool_use_id"))
    if code is None:
        return None
    key, action = protocol.session_of(payload), action_of(layout, payload)
    if code == 0:
        delivery.after_success(layout, key, action)
        return None
    # Failures only: keeps every other call lighter.
    from lessons_core.delivery.nudges import after_failure  # noqa: PLC0415 (heavy: secret patterns)

    output = payload.get("tool_response")
    # The header the failure classes read, as in Claude Code's error text.
    error = f"Exit code {code}\n{output if isinstance(output, str) else ''}"
    text = after_failure(layout, key, action, error, config, "PostToolUse")
    return protocol.context_output("PostToolUse", text)


ANSWERS: dict[str, Answer] = {
    "SessionStart": protocol.on_session_start,
    "UserPromptSubmit": protocol.on_prompt,
    "PreToolUse": protocol.on_pre_tool(action_of),
    "PostToolUse": after_shell,
    "PreCompact": protocol.on_pre_compact,
    "Stop": protocol.on_stop,
}
EVENTS = frozenset(ANSWERS)
