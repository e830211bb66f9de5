/**
 * A folder's fingerprint for tests that must leave files (or a user's .git) untouched: every
 * entry under it with its mode and bytes' hash, links as their target (`times`: sizes and
 * modification times too, for "byte-identical and not even rewritten").
 */
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import { join, relative } from "node:path";

export function fingerprint(dir: string, opts: { times?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = lstatSync(p);
      const rel = relative(dir, p);
      if (st.isSymbolicLink()) out[rel] = `link:${readlinkSync(p)}`;
      else if (st.isDirectory()) walk(p);
      else {
        const hash = createHash("sha1").update(readFileSync(p)).digest("hex");
        out[rel] = opts.times
          ? `${(st.mode & 0o7777).toString(8)}:${st.size}:${st.mtimeMs}:${hash}`
          : `${(st.mode & 0o777).toString(8)}:${hash}`;
      }
    }
  };
  walk(dir);
  return out;
}
