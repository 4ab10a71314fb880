"""``lessons hook HARNESS``: the command each harness runs on its hook events."""

from __future__ import annotations

import click

from lessons_cli.harnesses import HARNESSES
from lessons_cli.hook_runner import run_hook


@click.command("hook")
@click.argument("harness", type=click.Choice(sorted(HARNESSES)))
def hook_command(harness: str) -> None:
    """Answer one hook call of HARNESS: its JSON on stdin, the answer on stdout.

    Harnesses run this, not people: 'lessons init --claude-code' (or --codex, --gemini,
    --cursor, --copilot, --qwen, --pi, --cline, --opencode, --kilo) wires it up. It shows
    the agent the project rules new to the session that apply to the file or command at
    hand, a short note at session start, a capture nudge after a failure, and, once per
    session at its stop, a request to capture what a correction or a fixed failure
    taught. It always exits 0; a problem is logged to .lessons/local/hook.log and the
    agent is left alone.

    \b
    Harnesses:
      claude-code  SessionStart, UserPromptSubmit, PreToolUse (Edit, Write,
                   MultiEdit, NotebookEdit, Bash, Read), PreCompact,
                   PostToolUseFailure, Stop (.claude/settings.json)
      codex        SessionStart, UserPromptSubmit, PreToolUse (Bash, apply_patch),
                   PostToolUse (Bash), PreCompact, Stop (.codex/hooks.json)
      gemini       SessionStart, BeforeAgent, BeforeTool (write_file, replace,
                   run_shell_command), AfterTool (write_file, replace,
                   run_shell_command, read_file, read_many_files), PreCompress,
                   AfterAgent (.gemini/settings.json)
      cursor       sessionStart, beforeShellExecution, preToolUse, postToolUse
                   (Shell, Write, Edit, Read ...), postToolUseFailure, preCompact, stop
                   (.cursor/hooks.json)
      copilot      sessionStart, userPromptSubmitted, preToolUse (bash, create, edit,
                   view), postToolUseFailure (bash, create, edit), postToolUse
                   (bash), preCompact, agentStop (.github/hooks/lessons.json)
      qwen         SessionStart, UserPromptSubmit, PreToolUse, PostToolUse
                   (run_shell_command, write_file, edit, read_file),
                   PostToolUseFailure, PreCompact, Stop (.qwen/settings.json)
      pi           session_start, before_agent_start, tool_call (edit, write,
                   bash), tool_result (edit, write, bash, read),
                   session_before_compact, session_compact, agent_end
                   (.pi/extensions/lessons.ts)
      cline        SessionStart, PreToolUse (editor, apply_patch, run_commands),
                   PostToolUse (editor, apply_patch, run_commands, read_files),
                   PreCompact (.cline/plugins/lessons.js)
      opencode     session.created, chat.message, tool.execute.before (bash,
                   edit, write), tool.execute.after (bash, edit, write, read),
                   session.compacted, session.idle (.opencode/plugin/lessons.js)
      kilo         session.created, chat.message, tool.execute.before (bash,
                   edit, write), tool.execute.after (bash, edit, write, read),
                   session.compacted, session.idle (.kilo/plugin/lessons.js)
    \b
    Example:
      echo '{"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup",
        "cwd": "'"$PWD"'"}' | lessons hook claude-code
    """
    raise SystemExit(run_hook(harness))
