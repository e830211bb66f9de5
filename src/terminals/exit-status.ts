/**
 * How a terminal's command ended, in plain data: no process code here, so the session state
 * and the view can import it without pulling in execa.
 */

/** ACP `TerminalExitStatus`: `signal` is set when the process was killed by one. */
export interface TerminalExitStatus {
  exitCode: number | null;
  signal: string | null;
}

/** How a terminal ended, in a word or two ("exit 3", "signal SIGTERM"); undefined while running. */
export function describeTerminalExit(s: TerminalExitStatus | undefined): string | undefined {
  if (!s) return undefined;
  return s.signal ? `signal ${s.signal}` : `exit ${s.exitCode ?? "?"}`;
}

/** Whether the command failed: killed by a signal, or any exit code but 0 (false while running). */
export function terminalFailed(s: TerminalExitStatus | undefined): boolean {
  if (!s) return false;
  return s.signal !== null || s.exitCode !== 0;
}
