/**
 * The shapes checkpoints hand to the rest of the plugin (the session's transcript blocks, the
 * view): plain data, importable without pulling in git or the file system.
 */

/** A file at a checkpoint: its bytes (a link's target for a link) and mode. */
export type FileAt =
  | { kind: "file"; mode: "100644" | "100755"; bytes: Buffer }
  | { kind: "link"; target: string }
  | { kind: "large"; size: number; mtimeMs?: number }
  | { kind: "other"; mode: string };

/** How a file differs between two checkpoints. */
export interface FileChange {
  path: string;
  status: "added" | "deleted" | "modified" | "renamed" | "type";
  /** For a rename: where it was. */
  from?: string;
  added: number;
  removed: number;
  binary?: boolean;
  /** Over the size limit: known to have changed, not stored. */
  large?: boolean;
  /** A symbolic link (its "lines" are its target). */
  link?: boolean;
  /** The mode changed (0644 <-> 0755). */
  modeChange?: string;
}
