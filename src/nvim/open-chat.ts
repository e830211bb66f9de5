/**
 * A chat opened for Lua: its Chat wired to Neovim (editor port, render queue, the editor's MCP
 * server, permission rules, checkpoints, the session index), started in the background.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CheckpointStore } from "../checkpoints/store.js";
import { TurnCheckpoints } from "../checkpoints/turns.js";
import { steerToEditorFiles, type FileSteering } from "../agent/file-steering.js";
import { EditorChannel } from "../editor-tools/channel.js";
import { SERVER_NAME, writesFiles } from "../editor-tools/tools.js";
import { errorMessage } from "../protocol/errors.js";
import type { StopReason } from "../protocol/schema.js";
import { RenderQueue } from "../view/render-queue.js";
import { MediaFiles } from "../session/attachments.js";
import { Chat } from "../session/chat/chat.js";
import { PermissionRules } from "../session/permission/rules.js";
import { SessionIndex } from "../session/session-index.js";
import { pruneTraces } from "../trace/trace-log.js";
import type { Bridge } from "./bridge.js";
import { agentSpec, statusOf, takenBack, type Entry } from "./chat-entry.js";
import type { OpenParams } from "./contract.js";
import type { EditorQueries } from "./editor-queries.js";
import { NvimPort } from "./nvim-port.js";
import type { Questions } from "./questions.js";
import { RestartView } from "./restart-policy.js";

/** What opening a chat needs of the host. */
export interface OpenChatDeps {
  bridge: Bridge;
  questions: Questions;
  editorQueries: EditorQueries;
}

/**
 * A chat for `p`, starting in the background (a new session, or `p.resume`); `restart`: it
 * replaces one whose agent died (restart-policy.ts), with that one's media and checkpoints, as
 * its incarnation `incarnation`.
 */
export function openChat(
  deps: OpenChatDeps,
  p: OpenParams,
  restart?: "continue" | "new",
  media = new MediaFiles(),
  checkpoints = openCheckpoints(p),
  incarnation = 0,
): Entry {
  const { bridge } = deps;
  const id = p.chat;
  const agent = agentSpec(p.agent);
  const port = new NvimPort(bridge, deps.questions, id, p.fs?.maxReadBytes, p.write ?? "review");
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  if (p.logDir) pruneTraces(p.logDir);
  const rules = new PermissionRules(agent.name, p.cwd, p.permissions?.rules ?? [], p.permissions?.store);
  const index = new SessionIndex(p.sessionIndex);
  const view = new RestartView(restart, (ops) => bridge.emit("render", { chat: id, ops }));
  const touch = () => {
    if (chat.sessionId)
      index.touch({
        agent: agent.name,
        sessionId: chat.sessionId,
        cwd: chat.cwd,
        title: chat.title,
        prompt: chat.firstPrompt,
      });
  };
  const editor = editorChannel(deps, p, () => chat);
  const steering = editorFilesSteering(p, editor);
  const chat: Chat = new Chat({
    agentName: agent.name,
    command: {
      command: agent.command,
      args: steering?.args ?? agent.args ?? [],
      env: steering?.env ?? agent.env ?? {},
      cwd: agent.cwd,
    },
    sessionMeta: steering?.sessionMeta,
    unsavedFiles: (given) => unsavedFiles(deps, p.chat, chat, editor, given),
    cwd: p.cwd,
    extraRoots: p.extraRoots,
    mcpServers: p.mcpServers,
    protocol: agent.protocol,
    port,
    onEvents: (events) => queue.push(events),
    traceFile: p.logDir ? join(p.logDir, `${stamp}-chat${id}-${agent.name}.jsonl`) : undefined,
    timeouts: p.timeouts,
    terminal: p.terminal,
    media: { maxBytes: p.media?.maxBytes, owns: (path) => media.owns(path) },
    permissionRules: rules,
    features: { terminalOutputMeta: true, elicitationForm: true, authTerminal: true, unstable: p.unstable === true },
    onTurnEnd: (stop: StopReason | "error") => {
      queue.endTurn(stop);
      // The index's read and write (sync, a few ms) after the turn's last batch is on its way.
      setImmediate(touch);
    },
    onTakeBack: (prompts) => bridge.emit("takeBack", { chat: id, prompts: prompts.map(takenBack) }),
    onNotify: (message, level) => bridge.emit("notify", { message: `acpchat: ${message}`, level }),
    clientMcpServer: editor,
    checkpoints,
    incarnation,
  });
  if (steering) chat.lifetime.addEventListener("abort", () => steering.cleanup(), { once: true });
  // The agent's questions (forms, URLs, sign-in) are shown without the chat's secrets.
  port.redactor = chat.redactor;
  port.inside = (path) => chat.checkPath(path, "read");
  const queue = new RenderQueue({ frameMs: p.frameMs, send: (ops) => view.send(ops), status: () => statusOf(chat) });
  // The view shows "starting" at once (a crashed chat's view must not look crashed meanwhile).
  queue.push([{ type: "meta" }]);
  const from = p.fork
    ? { sessionId: p.fork, fork: true }
    : p.resume
      ? { sessionId: p.resume, historyTurns: p.historyTurns }
      : undefined;
  chat.start(from).then(
    async () => {
      touch();
      void checkpoints?.store.ready.then(() => chat.sayCheckpointsOff());
      if (view.holding) {
        queue.flush(); // the rest of what it drew joins what is held
        view.started(chat.continuedBy);
      }
      await chat.applyDefaults(agent);
      queue.flush();
    },
    () => {
      if (view.failed())
        chat.notice(
          `Could not reload the session: ${chat.failure ?? "the agent failed"}. The transcript above is the one from before; :AcpChat starts a new session below it (your prompt stays).`,
          "error",
        );
      queue.push([{ type: "meta" }]);
      queue.flush();
    },
  );
  return { params: p, chat, port, rules, queue, media, checkpoints, incarnation };
}

/**
 * The editor's MCP server for this chat's sessions, when it is on and the bundled server
 * script exists; its tool calls become `editorQuery` events for this chat.
 */
function editorChannel(deps: OpenChatDeps, p: OpenParams, chat: () => Chat): EditorChannel | undefined {
  if (!p.editorTools || !MCP_SCRIPT || !existsSync(MCP_SCRIPT)) return undefined;
  try {
    return new EditorChannel({
      cwd: p.cwd,
      extraRoots: p.extraRoots,
      tools: p.editorTools.tools,
      timeoutMs: p.editorTools.timeoutMs,
      maxItems: p.editorTools.maxItems,
      transport: p.editorTools.transport,
      maxFileBytes: p.fs?.maxReadBytes,
      node: process.execPath,
      script: MCP_SCRIPT,
      query: (tool, args, signal) => deps.editorQueries.query(p.chat, tool, args, signal),
      // The file tools take the chat's own fs/* path (its boundary, review and limits).
      files: {
        read: (path, line, limit, signal) => chat().editorFiles.read(path, line, limit, signal),
        write: (path, content, signal) => chat().editorFiles.write(path, content, signal),
      },
      onProblem: (m) => chat().traceNote("problem", m),
    });
  } catch (e) {
    deps.bridge.emit("notify", {
      message: `acpchat: the editor's tools are off for this chat: ${errorMessage(e)}`,
      level: "warn",
    });
    return undefined;
  }
}

/**
 * The agent's own switches that make it read and write through the editor's file tools
 * (src/agent/file-steering.ts): when the editor offers them and the agent's `editor_files` is
 * not false.
 */
function editorFilesSteering(p: OpenParams, editor: EditorChannel | undefined): FileSteering | undefined {
  if (p.agent.editorFiles === false || !editor) return undefined;
  if (!(["read_file", "write_file", "edit_file"] as const).every((t) => editor.offered.includes(t))) return undefined;
  const agent = agentSpec(p.agent);
  try {
    // Claude names an MCP tool mcp__<server>__<tool>.
    const readOnly = editor.offered.filter((t) => !writesFiles(t)).map((t) => `mcp__${SERVER_NAME}__${t}`);
    const s = steerToEditorFiles(agent.command, agent.args ?? [], agent.env ?? {}, p.cwd, process.env, readOnly);
    return s.agent ? s : undefined;
  } catch {
    return undefined; // its settings file could not be written: the agent keeps its own tools
  }
}

/**
 * The project's files with unsaved edits in the editor (as the open_buffers tool sees them), and
 * the editor's read tool when the agent has it.
 */
async function unsavedFiles(
  deps: OpenChatDeps,
  id: number,
  chat: Chat,
  editor: EditorChannel | undefined,
  given?: string[],
): Promise<{ paths: string[]; readTool?: string }> {
  const readTool = editor?.offered.includes("read_file") ? `${editor.mcpServer.name}__read_file` : undefined;
  // Sent with the prompt: no round trip through the editor before the agent gets it.
  if (given) return { paths: given.filter((path) => inside(chat, path)), readTool };
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 2000);
  const r = await Promise.race([
    deps.editorQueries.query(id, "open_buffers", {}, abort.signal),
    new Promise<never>((_, reject) =>
      abort.signal.addEventListener("abort", () => reject(new Error("the editor did not answer")), { once: true }),
    ),
  ]).finally(() => clearTimeout(timer));
  const items = (r.items ?? []) as { path?: unknown; modified?: unknown }[];
  const paths = items.flatMap((b) =>
    b.modified === true && typeof b.path === "string" && inside(chat, b.path) ? [b.path] : [],
  );
  return { paths, readTool };
}

/** A path the chat may read (inside its folders). */
function inside(chat: Chat, path: string): boolean {
  try {
    chat.checkPath(path, "read");
    return true;
  } catch {
    return false;
  }
}

/** The chat's turn checkpoints when they are on; old sessions' are pruned in the background. */
function openCheckpoints(p: OpenParams): TurnCheckpoints | undefined {
  const c = p.checkpoints;
  if (!c) return undefined;
  const store = new CheckpointStore({
    stateDir: c.dir,
    cwd: p.cwd,
    chat: String(p.chat),
    git: c.git,
    limits: { maxFiles: c.maxFiles, maxFileBytes: c.maxFileBytes },
    maxAgeDays: c.maxAgeDays,
    maxBytes: c.maxBytes,
  });
  const cp = new TurnCheckpoints(store, p.cwd);
  // After the first snapshot, so the two do not compete for the disk.
  void store.ready.then(() => setTimeout(() => void store.prune().catch(() => undefined), 5000).unref());
  return cp;
}

/** The editor's MCP server script, beside this bundle (dist/acpchat-mcp.cjs); none when run from source. */
const MCP_SCRIPT = typeof __dirname === "string" ? join(__dirname, "acpchat-mcp.cjs") : undefined;
