/**
 * The requests that differ between ACP v1 and the v2 draft, both ways: `initialize` (one
 * request both versions read, so that an agent that answers 1 is spoken to in v1), the agent's
 * capabilities, session setup (MCP servers carry their `type`), and the agent's permission
 * request (its own title, description and subject) as the v1 request the session asks about.
 */
import { PERMISSION_META } from "./meta.js";
import type { V2Session } from "./updates.js";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

export const V2 = 2;

/**
 * v1's initialize params with v2's beside them: `protocolVersion` 2, `info` and `capabilities`
 * (no `fs` or `terminal`: the editor's MCP tools carry files in v2). A v1 agent reads its own
 * fields and answers 1 (a v1 agent answers with the version it speaks); a v2 agent reads its own.
 */
export function initializeParams(v1: unknown): Obj {
  const p = obj(v1);
  const caps = obj(p.clientCapabilities);
  const v2caps: Obj = {};
  if (obj(caps.auth).terminal === true) v2caps.auth = { terminal: {} };
  if (caps.elicitation) v2caps.elicitation = caps.elicitation;
  return {
    ...p,
    protocolVersion: V2,
    info: p.clientInfo ?? { name: "acp-chat.nvim", version: "0" },
    capabilities: v2caps,
  };
}

/** A v2 initialize answer as the v1 one the client reads (`protocolVersion` 1 in it: this client's). */
export function initializeResult(v2: unknown): Obj {
  const r = obj(v2);
  const session = obj(obj(r.capabilities).session);
  const prompt = obj(session.prompt);
  const authMethods = Array.isArray(r.authMethods) ? r.authMethods : [];
  const sessionCapabilities: Obj = {};
  // v2 has session/list, session/resume and session/close for every agent, with no flag. A resume
  // is offered as v1's session/load (peer.ts: a resume that replays from the start), so that a
  // session continued in a new chat shows its conversation.
  sessionCapabilities.list = {};
  sessionCapabilities.close = {};
  if (session.delete != null) sessionCapabilities.delete = {};
  if (session.additionalDirectories != null) sessionCapabilities.additionalDirectories = {};
  return {
    protocolVersion: 1,
    agentInfo: r.info,
    authMethods,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: {
        image: prompt.image != null,
        audio: prompt.audio != null,
        embeddedContext: prompt.embeddedContext != null,
      },
      mcpCapabilities: { http: obj(session.mcp).http != null, sse: false },
      sessionCapabilities,
      // v2 offers auth/logout whenever it lists auth methods.
      ...(authMethods.length > 0 ? { auth: { logout: {} } } : {}),
    },
    ...(r._meta ? { _meta: r._meta } : {}),
  };
}

/** session/new's params in v2: every MCP server says its `type` (stdio had none in v1). */
export function sessionParams(v1: unknown): Obj {
  const p = obj(v1);
  const servers = Array.isArray(p.mcpServers) ? p.mcpServers : [];
  return { ...p, mcpServers: servers.map((s) => ("type" in obj(s) ? s : { type: "stdio", ...obj(s) })) };
}

const V1_OPTION_KINDS = new Set(["allow_once", "allow_always", "reject_once", "reject_always"]);

/**
 * A v2 permission request as v1's: the tool call it is about (from a `tool_call` subject, a
 * `command` subject as an execute tool call, or none: the request itself), its own title and
 * description in `_meta`. Options of a kind this client does not know (`_`-prefixed) are left
 * out: no answer is guessed for them.
 */
export async function permissionRequest(v2: unknown, session: V2Session, seq: number): Promise<Obj> {
  const p = obj(v2);
  const title = typeof p.title === "string" ? p.title : "permission";
  const subject = obj(p.subject);
  let toolCall: Obj;
  if (subject.type === "tool_call" && typeof obj(subject.toolCall).toolCallId === "string") {
    const tc = obj(subject.toolCall);
    const { v1 } = await session.fields(tc);
    toolCall = { toolCallId: tc.toolCallId, ...v1, ...(typeof tc.name === "string" ? { name: tc.name } : {}) };
  } else if (subject.type === "command" && typeof subject.command === "string") {
    toolCall = {
      toolCallId: typeof subject.toolCallId === "string" ? subject.toolCallId : `permission-${seq}`,
      title: subject.command,
      kind: "execute",
      rawInput: { command: subject.command, cwd: subject.cwd },
    };
  } else toolCall = { toolCallId: `permission-${seq}`, title };
  const options = (Array.isArray(p.options) ? p.options : []).filter((o) => V1_OPTION_KINDS.has(obj(o).kind as string));
  const description = typeof p.description === "string" ? p.description : undefined;
  return {
    sessionId: p.sessionId,
    toolCall,
    options,
    _meta: { ...obj(p._meta), [PERMISSION_META]: { title, ...(description ? { description } : {}) } },
  };
}
