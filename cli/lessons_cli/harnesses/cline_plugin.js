// lessons for Cline: written by `lessons init --cline` (commit it); `lessons init
// --remove-hooks` deletes it. Each hook below hands its call, as JSON on stdin, to the
// committed launcher .lessons/run, the way every harness's hook command runs it, and
// waits for its answer at most TIMEOUT_MS before Cline goes on. A launcher that is
// missing, slow, failing or answering anything but JSON changes nothing: the call goes
// on as if no hook ran.
"use strict";
const { spawn } = require("node:child_process");
const path = require("node:path");

const COMMAND = __COMMAND__;
// Tools whose call may be refused; tools whose result brings the rules of what they touch.
const REFUSABLE = new Set(__REFUSABLE__);
const HEARD = new Set(__HEARD__);
// Cline stops a plugin whose hook takes 3 s (and its process with it).
const TIMEOUT_MS = 2500;
const ROOT = path.resolve(__dirname, "..", "..");
let workspace = ROOT;

function parsed(text) {
  try {
    const answer = JSON.parse(text);
    return (answer && answer.hookSpecificOutput) || {};
  } catch {
    return {};
  }
}

function ask(payload) {
  return new Promise((resolve) => {
    let output = "";
    let child;
    try {
      // Its own process group, so that a late answer is stopped with all it started.
      child = spawn("sh", ["-c", COMMAND], {
        cwd: ROOT,
        detached: true,
        stdio: ["pipe", "pipe", "ignore"],
      });
    } catch {
      resolve({});
      return;
    }
    const late = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
      resolve({});
    }, TIMEOUT_MS);
    child.on("error", () => {
      clearTimeout(late);
      resolve({});
    });
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.on("close", () => {
      clearTimeout(late);
      resolve(parsed(output));
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify({ cwd: workspace, ...payload }));
  });
}

// A subagent keeps its own set of shown rules (agent_id), as in Claude Code.
function session(snapshot, event) {
  const agent = snapshot.parentAgentId ? snapshot.agentId : undefined;
  const id = snapshot.conversationId || snapshot.agentId;
  return { hook_event_name: event, session_id: id, agent_id: agent };
}

function toolCall(context, event) {
  const { toolName, toolCallId } = context.toolCall;
  const call = { tool_name: toolName, tool_input: context.input, tool_use_id: toolCallId };
  return { ...session(context.snapshot, event), ...call };
}

function added(answer) {
  const text = answer.additionalContext;
  return typeof text === "string" && text ? { appendContext: text } : undefined;
}

module.exports = {
  name: "lessons",
  manifest: { capabilities: ["hooks"] },
  setup(_api, context) {
    const root = context && context.workspaceInfo && context.workspaceInfo.rootPath;
    workspace = typeof root === "string" && root ? root : process.cwd();
  },
  hooks: {
    async beforeRun({ snapshot }) {
      // A later turn of the same conversation keeps what it was shown.
      const source = snapshot.messages.length > 1 ? "resume" : "startup";
      return added(await ask({ ...session(snapshot, "SessionStart"), source }));
    },
    async beforeTool(context) {
      if (!REFUSABLE.has(context.toolCall.toolName)) return undefined;
      const answer = await ask(toolCall(context, "PreToolUse"));
      const reason = answer.permissionDecisionReason;
      if (answer.permissionDecision === "deny" && typeof reason === "string") {
        return { skip: true, reason };
      }
      return undefined;
    },
    async afterTool(context) {
      if (!HEARD.has(context.toolCall.toolName)) return undefined;
      const { output, isError } = context.result || {};
      const payload = { ...toolCall(context, "PostToolUse"), tool_response: { output, isError } };
      return added(await ask(payload));
    },
    async onEvent(event) {
      // After a compaction the summary replaced every rule shown before it.
      if (event.type === "status-notice" && /compacted$/.test(event.message || "")) {
        await ask(session(event.snapshot, "PreCompact"));
      }
    },
  },
};
