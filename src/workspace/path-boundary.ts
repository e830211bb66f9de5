/**
 * The session's boundary: every fs and terminal request must stay inside the session's cwd (plus
 * directories the user allowed). A path is made absolute, normalised and resolved through
 * symlinks (for a path that does not exist yet, through its deepest existing ancestor) before
 * the check, and callers use the *resolved* path for the operation itself, so a symlink swapped
 * in after the check cannot redirect it outside.
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { isAbsolute, join, normalize, resolve, sep, basename, dirname } from "node:path";
import { RpcError, ErrorCodes } from "../protocol/errors.js";

export class BoundaryError extends RpcError {
  constructor(
    readonly requested: string,
    readonly operation: string,
  ) {
    super(
      ErrorCodes.InvalidParams,
      `Access denied: ${operation} of ${JSON.stringify(requested)} is outside the session's working directory`,
    );
    this.name = "BoundaryError";
  }
}

/**
 * realpath of the deepest existing ancestor, with the missing tail appended. A dangling symlink
 * on the way is followed to where it points (existing or not): writing through it would create
 * its target, so the target is what the boundary must judge.
 */
export function resolveThroughLinks(absPath: string, depth = 0): string {
  const missing: string[] = [];
  let cur = absPath;
  for (;;) {
    try {
      const real = realpathSync.native(cur);
      return missing.length ? join(real, ...missing.reverse()) : real;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ELOOP" || depth > 40) throw new Error(`too many levels of symbolic links: ${absPath}`);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw e;
      const target = danglingTarget(cur);
      if (target !== undefined) {
        const followed = resolveThroughLinks(resolve(dirname(cur), target), depth + 1);
        return missing.length ? join(followed, ...missing.reverse()) : followed;
      }
      const parent = dirname(cur);
      if (parent === cur) return absPath;
      missing.push(basename(cur));
      cur = parent;
    }
  }
}

/** The target of `path` when it is a symlink (realpath failed, so it dangles). */
function danglingTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

export class PathBoundary {
  private readonly roots: string[];

  constructor(cwd: string, extraRoots: string[] = []) {
    this.roots = [cwd, ...extraRoots].map((r) => resolveThroughLinks(resolve(r)));
  }

  get cwd(): string {
    return this.roots[0]!;
  }

  /** The resolved absolute path if it lies inside a root; a BoundaryError otherwise. */
  check(requested: string, operation: string): string {
    if (typeof requested !== "string" || requested === "" || requested.includes("\0")) {
      throw new BoundaryError(String(requested), operation);
    }
    // No lexical normalisation first: `link/..` must mean what the kernel makes of it (the
    // parent of the link's target), so symlinks are resolved before any `..` is applied.
    const abs = isAbsolute(requested) ? requested : `${this.cwd}${sep}${requested}`;
    let real: string;
    try {
      real = normalize(resolveThroughLinks(abs.length > 1 ? abs.replace(/[\\/]+$/, "") : abs));
    } catch {
      throw new BoundaryError(requested, operation);
    }
    if (!this.roots.some((root) => real === root || real.startsWith(root.endsWith(sep) ? root : root + sep))) {
      throw new BoundaryError(requested, operation);
    }
    return real;
  }

  contains(requested: string): boolean {
    try {
      this.check(requested, "check");
      return true;
    } catch {
      return false;
    }
  }
}
