/**
 * The environment of every process the plugin starts (agents, terminals). Two rules:
 * - Nothing reaches past the chat: whoever holds the editor's RPC address (`NVIM`) controls the
 *   editor, so no variable that carries it is passed on.
 * - Every process is marked with a cookie of its own (Jenkins' ProcessTreeKiller): whatever it
 *   starts inherits the cookie, even daemons that leave the process group, so the whole tree can
 *   be found in /proc and killed (see process-group.ts).
 */
import { randomBytes } from "node:crypto";

/** Holds the cookies of the trees a process belongs to, space-separated, outermost first. */
export const COOKIE_VAR = "ACPCHAT_PROC_COOKIE";

/** Variables that carry the editor's address by name. */
const ADDRESS_VARS = ["NVIM", "NVIM_LISTEN_ADDRESS"];

/**
 * `process.env` plus `extra`, minus every variable that carries the editor's address, plus a
 * fresh cookie (read it back with `cookieIn`). Meant for `execa(..., { env, extendEnv: false })`.
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) merged[k] = v;
  Object.assign(merged, extra);
  const addresses = new Set(ADDRESS_VARS.flatMap((k) => [process.env[k], extra[k]]).filter((v): v is string => !!v));
  for (const [k, v] of Object.entries(merged)) {
    if (ADDRESS_VARS.includes(k) || addresses.has(v)) delete merged[k];
  }
  // Keep the cookies inherited from outside: a chat started inside another chat's terminal
  // stays part of that terminal's tree.
  const inherited = process.env[COOKIE_VAR]?.trim();
  const cookie = randomBytes(12).toString("hex");
  merged[COOKIE_VAR] = inherited ? `${inherited} ${cookie}` : cookie;
  return merged;
}

/** The cookie `childEnv` gave this environment (the innermost one). */
export function cookieIn(env: Record<string, string>): string {
  const tokens = (env[COOKIE_VAR] ?? "").trim().split(/\s+/);
  const last = tokens[tokens.length - 1];
  if (!last) throw new Error(`${COOKIE_VAR} is missing: build the environment with childEnv()`);
  return last;
}

const PROXY_VARS = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"];

/**
 * An agent's environment with 127.0.0.1 in NO_PROXY (both spellings) when a proxy is set: the
 * editor's tools may be served on the loopback address with a bearer token (editor-tools/
 * http-front.ts), which must not travel to a proxy. Unchanged when no proxy is set.
 */
export function loopbackUnproxied(env: Record<string, string>): Record<string, string> {
  if (!PROXY_VARS.some((k) => env[k])) return env;
  const list = (env.NO_PROXY ?? env.no_proxy ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const merged = [...new Set([...list, "127.0.0.1"])].join(",");
  return { ...env, NO_PROXY: merged, no_proxy: merged };
}
