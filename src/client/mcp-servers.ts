/**
 * The MCP servers a session is offered: the user's config resolved when a chat starts (`$VAR`s
 * expanded, stdio commands found on PATH, values kept as secrets for redaction) and gated by
 * what the agent says it can reach.
 */
import { accessSync, constants as fsConstants } from "node:fs";
import { delimiter, isAbsolute, join, resolve as resolvePath } from "node:path";
import type * as out from "../protocol/outgoing.js";
import type { McpServerConfig } from "../wire/index.js";

/** stdio always; http and sse when `mcpCapabilities` has them true. */
export function gateMcpServers(
  servers: out.McpServer[],
  caps: { http?: boolean | null; sse?: boolean | null } | undefined,
): { send: out.McpServer[]; skipped: out.McpServer[] } {
  const send: out.McpServer[] = [];
  const skipped: out.McpServer[] = [];
  for (const s of servers) {
    const ok = !("type" in s) || caps?.[s.type] === true;
    (ok ? send : skipped).push(s);
  }
  return { send, skipped };
}

const VAR_REF = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))|\$\$/g;

/** `$NAME` and `${NAME}` replaced from `env` (`$$` is a `$`); names that are not set become "" and are listed in `missing`. */
export function expandVars(text: string, env: NodeJS.ProcessEnv, missing: string[] = []): string {
  return text.replace(VAR_REF, (m, braced?: string, bare?: string) => {
    if (m === "$$") return "$";
    const name = (braced ?? bare)!;
    const v = env[name];
    if (v === undefined) missing.push(name);
    return v ?? "";
  });
}

/** `command` as an absolute path: a path is resolved against `cwd`, a bare name looked up on PATH (undefined when not found). */
export function findCommand(command: string, cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  const executable = (p: string) => {
    try {
      accessSync(p, fsConstants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (command.includes("/")) {
    const p = isAbsolute(command) ? command : resolvePath(cwd, command);
    return executable(p) ? p : undefined;
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir && executable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

/**
 * The configured MCP servers as ACP sends them, when the chat starts: `$VAR`s in env values and
 * header values expanded from `env`, stdio commands made absolute. `secrets`: every env and
 * header value (for the chat's Redactor); `problems`: what the user should hear about.
 */
export function resolveMcpServers(
  config: McpServerConfig[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): { servers: out.McpServer[]; secrets: string[]; problems: string[] } {
  const servers: out.McpServer[] = [];
  const secrets: string[] = [];
  const problems: string[] = [];
  const pairs = (list: out.NameValue[] | undefined, what: string, name: string) =>
    (list ?? []).map((p) => {
      const missing: string[] = [];
      const value = expandVars(p.value, env, missing);
      for (const m of missing) problems.push(`MCP server "${name}": ${what} ${p.name} uses $${m}, which is not set`);
      secrets.push(value);
      return { name: p.name, value };
    });
  for (const c of config) {
    if (c.type === "http" || c.type === "sse") {
      servers.push({ type: c.type, name: c.name, url: c.url ?? "", headers: pairs(c.headers, "header", c.name) });
      continue;
    }
    const command = c.command ?? "";
    const found = findCommand(command, cwd, env);
    if (!found)
      problems.push(`MCP server "${c.name}": \`${command}\` is not an executable file or on PATH (passed as it is)`);
    servers.push({ name: c.name, command: found ?? command, args: c.args ?? [], env: pairs(c.env, "env", c.name) });
  }
  return { servers, secrets, problems };
}
