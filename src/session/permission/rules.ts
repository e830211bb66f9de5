/**
 * Client-side permission rules: configured ones (allow or reject by tool kind, tool name and
 * path glob) and remembered ones (the user chose an allow_always / reject_always option and
 * asked the client to remember it for this session or for the project). Project rules are
 * persisted in a JSON file (under Neovim's stdpath("state")).
 *
 * A remembered answer is keyed on what was approved (`approvalKey`): for a command its command
 * line, for reads and edits the paths, for any other tool its name with its input. So "always
 * allow `npm test`" answers the same command under a new tool call id, and never another
 * command that happens to share a title.
 *
 * Precedence: a configured reject, then a remembered reject, then a remembered allow (only when
 * everything the call touches is inside the cwd), then a configured allow.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import type { PermissionOption, RequestPermissionRequest, ToolCallUpdate } from "../../protocol/schema.js";
import { resolveThroughLinks } from "../../workspace/path-boundary.js";

export type RuleAction = "allow" | "reject";

export interface ConfiguredRule {
  /** Tool kind (read, edit, execute, …) or "*". */
  kind?: string;
  /** Tool name, title or command line to match exactly; omitted: any. */
  tool?: string;
  /** Glob over every path of the call, relative to the cwd; omitted: any. */
  path?: string;
  action: RuleAction;
}

export interface RememberedRule {
  id: string;
  agent: string;
  /** The approval key (see approvalKey): what was approved. */
  tool: string;
  action: RuleAction;
  scope: "session" | "project";
  /** 2: keyed on what was approved. Older rules (keyed on kind and title) are listed, never applied. */
  v?: number;
}

export interface Decision {
  action: RuleAction;
  why: string;
  always: boolean;
}

/** Keys longer than this are cut and end with a hash of the whole (never two inputs, one key). */
const MAX_KEY = 400;

/** A word as a POSIX shell would read it back. */
export function shellQuote(s: string): string {
  if (s !== "" && /^[A-Za-z0-9_\-+=.,/:@%^]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line a tool call runs, from its raw input: `command` (a string, or an argv list)
 * with `args` (claude-code-acp, codex-acp, gemini-cli); undefined when it runs none.
 */
export function commandLine(raw: unknown): string | undefined {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const cmd = r.command ?? r.cmd;
  const args = Array.isArray(r.args) && r.args.every((a) => typeof a === "string") ? (r.args as string[]) : [];
  if (typeof cmd === "string" && cmd.trim() !== "") return [cmd.trim(), ...args.map(shellQuote)].join(" ");
  if (Array.isArray(cmd) && cmd.length > 0 && cmd.every((a) => typeof a === "string"))
    return [...(cmd as string[]), ...args].map(shellQuote).join(" ");
  return undefined;
}

const PATH_FIELDS = [
  "file_path",
  "filePath",
  "path",
  "notebook_path",
  "absolute_path",
  "target_file",
  "source",
  "destination",
];

/** The files a tool call names: its locations, else the path fields of its raw input. */
/** Fields of a tool's input that name the directory it runs in. */
const DIR_FIELDS = ["cwd", "workdir", "working_directory", "workingDirectory", "dir", "directory"];

export function toolPaths(tc: Pick<ToolCallUpdate, "locations" | "rawInput">): string[] {
  const locs = (tc.locations ?? []).map((l) => l.path).filter((p) => typeof p === "string" && p !== "");
  if (locs.length > 0) return [...new Set(locs)];
  const raw = tc.rawInput;
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return [];
  const r = raw as Record<string, unknown>;
  return [...new Set(PATH_FIELDS.map((f) => r[f]).filter((p): p is string => typeof p === "string" && p !== ""))];
}

/** The tool's own name: `name`, or claude-code-acp's `_meta.claudeCode.toolName`. */
export function toolName(tc: ToolCallUpdate): string | undefined {
  if (typeof tc.name === "string" && tc.name) return tc.name;
  const meta = (tc as { _meta?: { claudeCode?: { toolName?: unknown } } })._meta;
  const n = meta?.claudeCode?.toolName;
  return typeof n === "string" && n ? n : undefined;
}

/** JSON with object keys sorted, so equal inputs give equal text. */
export function stableJson(v: unknown): string {
  if (v === undefined) return "null";
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, (x as Record<string, unknown>)[k]]),
        )
      : x,
  );
}

const PATH_KINDS = new Set(["read", "edit", "delete", "move"]);

/**
 * What a permission question approves, as the key remembered answers are stored under:
 * `run: <program and arguments>` for commands, `<kind>: <paths relative to the cwd>` for reads,
 * edits, deletes and moves, `tool <name>: <input as JSON>` for anything else. Never the tool
 * call id, never the title alone.
 */
export function approvalKey(tc: ToolCallUpdate, cwd: string): string {
  const kind = tc.kind ?? "other";
  const cmd = commandLine(tc.rawInput);
  let key: string;
  const paths = toolPaths(tc);
  if (cmd !== undefined && (kind === "execute" || !PATH_KINDS.has(kind))) key = `run: ${cmd}`;
  else if (PATH_KINDS.has(kind) && paths.length > 0) key = `${kind}: ${paths.map((p) => shown(cwd, p)).join(", ")}`;
  else key = `tool ${toolName(tc) ?? tc.title ?? kind}: ${stableJson(tc.rawInput)}`;
  if (key.length <= MAX_KEY) return key;
  return `${key.slice(0, MAX_KEY)}… #${createHash("sha256").update(key).digest("hex").slice(0, 16)}`;
}

/** A path as keys show it: relative to the cwd inside it, absolute outside. */
function shown(cwd: string, p: string): string {
  const abs = real(cwd, p);
  const rel = relative(cwd, abs);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
}

/** Minimal glob: `*` within a path segment, `**` across segments, `?` one character. */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      re += ".*";
      i++;
      if (glob[i + 1] === "/") i++;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

type Store = Record<string, RememberedRule[]>;

export class PermissionRules {
  private session: RememberedRule[] = [];
  private nextId = 0;
  private readonly cwd: string;

  constructor(
    private readonly agent: string,
    cwd: string,
    private readonly configured: ConfiguredRule[] = [],
    private readonly storeFile?: string,
  ) {
    this.cwd = resolveThroughLinks(cwd);
  }

  /** The approval key of a request in this project (see approvalKey). */
  key(req: RequestPermissionRequest): string {
    return approvalKey(req.toolCall, this.cwd);
  }

  /** The rule that answers this request without asking, if any. */
  decide(req: RequestPermissionRequest): Decision | undefined {
    const tc = req.toolCall;
    const rel = this.relativePaths(tc);
    const configured = this.firstConfigured(tc, rel);
    if (configured?.action === "reject") return configured;
    const key = this.key(req);
    const remembered = this.list().filter((r) => r.v === 2 && r.agent === this.agent && r.tool === key);
    const reject = remembered.find((r) => r.action === "reject");
    if (reject) return { action: "reject", why: `remembered for this ${reject.scope}: reject ${key}`, always: true };
    const allow = remembered.find((r) => r.action === "allow");
    // A remembered allow never reaches outside the cwd.
    if (allow && this.insideCwd(tc, rel))
      return { action: "allow", why: `remembered for this ${allow.scope}: allow ${key}`, always: true };
    return configured;
  }

  /**
   * Remember an answer under the request's approval key. An allow for a call that reaches
   * outside the cwd is not remembered (it could never apply): undefined.
   */
  remember(
    req: RequestPermissionRequest,
    action: RuleAction,
    scope: "session" | "project",
  ): RememberedRule | undefined {
    if (action === "allow" && !this.insideCwd(req.toolCall, this.relativePaths(req.toolCall))) return undefined;
    const rule: RememberedRule = {
      id: `r${Date.now().toString(36)}${this.nextId++}`,
      agent: this.agent,
      tool: this.key(req),
      action,
      scope,
      v: 2,
    };
    if (scope === "session") this.session.push(rule);
    else {
      const store = this.load();
      (store[this.cwd] ??= []).push(rule);
      this.save(store);
    }
    return rule;
  }

  list(): RememberedRule[] {
    return [...this.session, ...this.project()];
  }

  remove(id: string): boolean {
    const before = this.session.length;
    this.session = this.session.filter((r) => r.id !== id);
    if (this.session.length !== before) return true;
    const store = this.load();
    const rules = store[this.cwd] ?? [];
    const kept = rules.filter((r) => r.id !== id);
    if (kept.length === rules.length) return false;
    store[this.cwd] = kept;
    this.save(store);
    return true;
  }

  /** The first configured rule that matches (configured rules keep their order). */
  private firstConfigured(tc: ToolCallUpdate, rel: string[]): Decision | undefined {
    const names = new Set(
      [toolName(tc), tc.title, commandLine(tc.rawInput)].filter((x): x is string => typeof x === "string"),
    );
    for (const r of this.configured) {
      if (r.kind && r.kind !== "*" && r.kind !== (tc.kind ?? "other")) continue;
      if (r.tool && !names.has(r.tool)) continue;
      if (r.path) {
        const re = globToRegExp(r.path);
        // Every path must match, and be inside the cwd.
        if (rel.length === 0 || !rel.every((p) => inside(p) && re.test(p))) continue;
      }
      return { action: r.action, why: `rule ${JSON.stringify(r)}`, always: false };
    }
    return undefined;
  }

  /** Every path the call names, relative to the cwd (with `..` when outside). */
  private relativePaths(tc: ToolCallUpdate): string[] {
    return toolPaths(tc).map((p) => relative(this.cwd, real(this.cwd, p)));
  }

  /** Everything the call touches is inside the cwd: its paths, and the directory a command runs in. */
  private insideCwd(tc: ToolCallUpdate, rel: string[]): boolean {
    if (!rel.every(inside)) return false;
    // The directory a command runs in, under whichever name the agent gives it.
    const raw = tc.rawInput as Record<string, unknown> | undefined;
    const dirs =
      raw && typeof raw === "object"
        ? DIR_FIELDS.map((f) => raw[f]).filter((d): d is string => typeof d === "string" && d !== "")
        : [];
    return dirs.every((dir) => inside(relative(this.cwd, real(this.cwd, dir))));
  }

  private project(): RememberedRule[] {
    return this.load()[this.cwd] ?? [];
  }

  private load(): Store {
    if (!this.storeFile) return {};
    try {
      return JSON.parse(readFileSync(this.storeFile, "utf8")) as Store;
    } catch {
      return {};
    }
  }

  private save(store: Store): void {
    if (!this.storeFile) return;
    mkdirSync(dirname(this.storeFile), { recursive: true });
    const tmp = `${this.storeFile}.tmp`;
    writeFileSync(tmp, JSON.stringify(store, null, 2));
    renameSync(tmp, this.storeFile);
  }
}

/** The path with symbolic links resolved (as the boundary sees it); as given when that fails. */
function real(cwd: string, p: string): string {
  const abs = isAbsolute(p) ? p : resolve(cwd, p);
  try {
    return resolveThroughLinks(abs);
  } catch {
    return abs;
  }
}

function inside(rel: string): boolean {
  return rel === "" || !(rel === ".." || rel.startsWith(`..${"/"}`) || isAbsolute(rel));
}

/** The agent's option that carries out a decision (by kind; ids differ between agents). */
export function optionFor(options: PermissionOption[], d: Decision): PermissionOption | undefined {
  const prefer =
    d.action === "allow"
      ? d.always
        ? ["allow_always", "allow_once"]
        : ["allow_once", "allow_always"]
      : d.always
        ? ["reject_always", "reject_once"]
        : ["reject_once", "reject_always"];
  for (const kind of prefer) {
    const o = options.find((x) => x.kind === kind);
    if (o) return o;
  }
  return undefined;
}
