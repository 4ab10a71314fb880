"""The plugin ``lessons init --opencode`` (or ``--kilo``) writes: a short JavaScript file
the client loads from its project folder (``.opencode/plugin/lessons.js``), which hands each
event to the committed launcher ``.lessons/run`` and does what the answer says.

It runs the launcher synchronously (the client waits for a refusal before the tool runs),
bounded by ``TIMEOUT_MS``, and fails open: a launcher that is missing, crashes, times out
or answers with anything but a JSON object changes nothing. The answer is
``{"block": TEXT}`` (throw: the client gives the model TEXT as the tool's result, and the
tool does not run), ``{"context": TEXT}`` (appended to a tool's output, or a part added to
the user's message), or ``{"prompt": TEXT}`` (at a stop: sent as the session's next
message). What a payload holds is ``lessons_cli.harnesses.opencode``'s docstring.
"""

from __future__ import annotations

import json

# Well under the hook's own lock budget plus a cold start of the launcher's interpreter.
TIMEOUT_MS = 10_000

_TEMPLATE = """\
// lessons: this project's rules from past mistakes (.lessons/), shown to the agent when they
// apply. Written by `lessons init --@FLAG@`; commit it. Each hook hands its event to the
// committed launcher .lessons/run (`lessons hook @HARNESS@`) and does what its JSON answer
// says. Anything going wrong (no launcher, lessons not installed, a crash, a timeout, an
// answer that is not JSON) does nothing: the agent's call goes on as if this file were absent.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const HARNESS = @HARNESS_JSON@;
const LAUNCHER = fileURLToPath(new URL("../../.lessons/run", import.meta.url));
const GATED = @GATED@; // tools a rule may refuse before they run
const HEARD = @HEARD@; // tools whose result may carry rules (a read: its file's)
const SESSION_EVENTS = @SESSION_EVENTS@;

function ask(directory, payload) {
  try {
    const done = spawnSync("sh", [LAUNCHER, "hook", HARNESS], {
      cwd: directory,
      input: JSON.stringify({ cwd: directory, ...payload }),
      encoding: "utf8",
      timeout: @TIMEOUT@,
      stdio: ["pipe", "pipe", "ignore"],
    });
    const answer = done.status === 0 ? JSON.parse(done.stdout || "{}") : {};
    return answer !== null && typeof answer === "object" ? answer : {};
  } catch {
    return {};
  }
}

function text(value) {
  return typeof value === "string" && value !== "" ? value : null;
}

export const LessonsPlugin = async ({ directory, client }) => ({
  "chat.message": async (input, output) => {
    try {
      const prompt = output.parts.filter((p) => p.type === "text").map((p) => p.text);
      const said = ask(directory, {
        hook_event_name: "chat.message",
        session_id: input.sessionID,
        prompt: prompt.join("\\n"),
      });
      const context = text(said.context);
      if (context === null) return;
      const { id: messageID, sessionID } = output.message;
      output.parts.push({
        id: `prt_lessons_${messageID}`,
        messageID,
        sessionID,
        type: "text",
        text: context,
        synthetic: true,
      });
    } catch {}
  },
  "tool.execute.before": async (input, output) => {
    if (!GATED.includes(input.tool)) return;
    const said = ask(directory, {
      hook_event_name: "tool.execute.before",
      session_id: input.sessionID,
      tool_name: input.tool,
      tool_input: output.args,
    });
    const block = text(said.block);
    if (block !== null) throw new Error(block);
  },
  "tool.execute.after": async (input, output) => {
    try {
      if (!HEARD.includes(input.tool) || typeof output.output !== "string") return;
      const said = ask(directory, {
        hook_event_name: "tool.execute.after",
        session_id: input.sessionID,
        tool_name: input.tool,
        tool_input: input.args,
        exit: output.metadata?.exit ?? null,
        output: input.tool === "bash" ? output.output.slice(-4000) : "",
      });
      const context = text(said.context);
      if (context !== null) output.output += `\\n\\n${context}`;
    } catch {}
  },
  event: async ({ event }) => {
    try {
      if (!SESSION_EVENTS.includes(event.type)) return;
      const sessionID = event.properties.sessionID ?? event.properties.info?.id;
      const said = ask(directory, {
        hook_event_name: event.type,
        session_id: sessionID,
        parent_id: event.properties.info?.parentID ?? null,
      });
      const prompt = text(said.prompt);
      if (prompt !== null) {
        const parts = [{ type: "text", text: prompt }];
        await client.session.promptAsync({ path: { id: sessionID }, body: { parts } });
      }
    } catch {}
  },
});
"""


def plugin_text(
    harness: str,
    gated: tuple[str, ...],
    heard: tuple[str, ...],
    session_events: tuple[str, ...],
) -> bytes:
    """The plugin for ``harness`` (its ``lessons init`` flag and ``lessons hook`` name)."""
    values = {
        "@FLAG@": harness,
        "@HARNESS@": harness,
        "@HARNESS_JSON@": json.dumps(harness),
        "@GATED@": json.dumps(list(gated)),
        "@HEARD@": json.dumps(list(heard)),
        "@SESSION_EVENTS@": json.dumps(list(session_events)),
        "@TIMEOUT@": str(TIMEOUT_MS),
    }
    text = _TEMPLATE
    for key, value in values.items():
        text = text.replace(key, value)
    return text.encode()
