/**
 * Finding processes by the cookie in their environment (/proc/<pid>/environ, Linux). A daemon
 * that called setsid or was double-forked has left its process group but still carries the
 * cookie it inherited. Limits: processes of other users cannot be read (nor killed), one that
 * cleared its environment (`env -i`) or overwrote it (setproctitle) is not found, and without
 * /proc nothing is (the group kill still applies).
 */
import { readdirSync, readFileSync } from "node:fs";
import { COOKIE_VAR } from "./child-env.js";

const KEY = Buffer.from(`${COOKIE_VAR}=`);

/** The cookies in one environ block (NUL-separated `KEY=value`), or none. */
function cookiesOf(environ: Buffer): string[] {
  let at = environ.indexOf(KEY);
  // Only at the start of an entry: not inside some other variable's value.
  while (at > 0 && environ[at - 1] !== 0) at = environ.indexOf(KEY, at + 1);
  if (at < 0) return [];
  const start = at + KEY.length;
  const end = environ.indexOf(0, start);
  return environ.toString("latin1", start, end < 0 ? environ.length : end).split(" ");
}

/**
 * Pids of the living processes (never this one) that carry any of `cookies`. Zombies have an
 * empty environ, so they do not show: they have exited and hold nothing.
 */
export function pidsWithCookie(cookies: ReadonlySet<string>): number[] {
  if (cookies.size === 0) return [];
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    if (cookiesOf(environ).some((c) => cookies.has(c))) found.push(pid);
  }
  return found;
}
