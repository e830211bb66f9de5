/**
 * What to execute for `terminal/create`. Agents send either a program with `args`, or a whole
 * command line in `command` and no `args` (claude-code-acp: `"ls -la src"`); Zed runs the latter
 * through the shell, and so do we: the user's `$SHELL -c`, or `sh -c` when that is unusable.
 */
import { accessSync, constants } from "node:fs";
import { isAbsolute } from "node:path";

export interface Executable {
  file: string;
  args: string[];
}

export function executableFor(
  command: string,
  args: readonly string[] | undefined,
  shell: string | undefined,
): Executable {
  if (args && args.length > 0) return { file: command, args: [...args] };
  return { file: usableShell(shell) ?? "sh", args: ["-c", command] };
}

/** `shell` if it names an executable file by absolute path (what login sets `$SHELL` to). */
function usableShell(shell: string | undefined): string | undefined {
  if (!shell || !isAbsolute(shell)) return undefined;
  try {
    accessSync(shell, constants.X_OK);
    return shell;
  } catch {
    return undefined;
  }
}
