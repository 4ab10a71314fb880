// lessons for pi: shows the agent this project's rules (.lessons/) where they apply.
// Written by `lessons init --pi`; `lessons init --remove-hooks` deletes it.
//
// Each event below runs the committed launcher, `sh .lessons/run hook pi`, with the event as
// JSON on stdin and, on stdout, an answer: {"block": true, "reason": R} refuses a tool call
// (the model reads R as its result, and the call runs when made again), {"context": T} is
// text for the model. Anything that goes wrong (no launcher, lessons not installed, a crash,
// a timeout, an answer that is not JSON) leaves pi's call as it was.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

type Answer = { block?: unknown; reason?: unknown; context?: unknown };

// This file is .pi/extensions/lessons.ts, beside .lessons/.
const LAUNCHER = join(dirname(fileURLToPath(import.meta.url)), "..", "..", ".lessons", "run");
const TIMEOUT_MS = 10_000;
const CHANGES = ["edit", "write", "bash"]; // refused before they run when a rule is new
const TOOLS = [...CHANGES, "read"]; // whose results bring rules
const STOP_WAIT_MS = 120_000;

function run(payload: object): Answer {
  const done = spawnSync("sh", [LAUNCHER, "hook", "pi"], {
    input: JSON.stringify(payload),
    encoding: "utf8",
    timeout: TIMEOUT_MS,
    stdio: ["pipe", "pipe", "ignore"],
  });
  const answer = JSON.parse(done.stdout || "null");
  return answer !== null && typeof answer === "object" ? answer : {};
}

const text = (answer: Answer) => (typeof answer.context === "string" ? answer.context : "");
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

export default function lessons(pi: any) {
  let session = {}; // session_id and cwd, from session_start
  let note = ""; // what session_start said, given with the first prompt
  let stop = ""; // the stop-time request, sent as the next prompt once the agent is idle
  let sent = ""; // the request sent: a prompt of lessons', not the user's
  let running = false;

  // A handler that throws or rejects does nothing: pi blocks a tool call whose handler fails.
  const on = (event: string, handler: (event: any, ctx: any) => unknown) =>
    pi.on(event, async (event: any, ctx: any) => {
      try {
        return await handler(event, ctx);
      } catch {
        return undefined;
      }
    });
  const ask = (event: string, fields: object = {}) =>
    run({ hook_event_name: event, ...session, ...fields });
  const sendStop = (ctx: any) => {
    if (stop && ctx.isIdle()) {
      running = true; // until the agent_end of the turn it starts
      pi.sendUserMessage(stop);
      [sent, stop] = [stop, ""];
    }
  };

  on("session_start", (event, ctx) => {
    session = { session_id: ctx.sessionManager.getSessionId(), cwd: ctx.cwd };
    // `pi -c` continues a session with reason "startup" too: it holds messages already.
    const held = ctx.sessionManager.getEntries().some((entry: any) => entry.type === "message");
    note = text(ask("session_start", { source: event.reason, held }));
  });
  on("before_agent_start", (event) => {
    if (event.prompt === sent) return undefined;
    const content = [note, text(ask("before_agent_start", { prompt: event.prompt }))]
      .filter(Boolean)
      .join("\n");
    note = "";
    return content ? { message: { customType: "lessons", content, display: false } } : undefined;
  });
  on("agent_start", () => {
    running = true;
  });
  on("tool_call", (event) => {
    if (!CHANGES.includes(event.toolName)) return undefined;
    const answer = ask("tool_call", { tool_name: event.toolName, tool_input: event.input });
    const refuse = answer.block === true && typeof answer.reason === "string";
    return refuse ? { block: true, reason: answer.reason } : undefined;
  });
  on("tool_result", (event) => {
    if (!TOOLS.includes(event.toolName)) return undefined;
    const failed = event.isError === true;
    const error = failed ? event.content.map((part: any) => part.text ?? "").join("\n") : "";
    const fields = { tool_name: event.toolName, tool_input: event.input, is_error: failed, error };
    const said = text(ask("tool_result", fields));
    return said ? { content: [...event.content, { type: "text", text: said }] } : undefined;
  });
  // Pi compacts when a run ends (or before the next prompt), never between two tool calls.
  on("session_before_compact", () => {
    ask("session_before_compact");
  });
  on("session_compact", () => {
    ask("session_compact");
  });
  on("agent_end", (_event, ctx) => {
    running = false;
    stop = text(ask("agent_end"));
    const poll = () => {
      try {
        sendStop(ctx);
        if (stop) setTimeout(poll, 50);
      } catch {
        stop = ""; // the session ended meanwhile
      }
    };
    if (stop && ctx.hasUI) setTimeout(poll, 0);
  });
  // A one-shot run (pi -p) ends as soon as its last turn does: the stop-time request goes
  // out here, and pi waits (bounded) for the agent to act on it before it exits.
  on("session_shutdown", async (_event, ctx) => {
    const until = Date.now() + STOP_WAIT_MS;
    while (!ctx.hasUI && (running || stop) && Date.now() < until) {
      if (!running) sendStop(ctx);
      await pause(50);
    }
  });
}
