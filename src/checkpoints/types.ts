/**
 * The shapes checkpoints hand to the rest of the plugin (the session's transcript blocks, the
 * view): plain data, importable without pulling in git or the file system.
 */
import type { ChangedFileView } from "../wire/index.js";

/** A file at a checkpoint: its bytes (a link's target for a link) and mode. */
export type FileAt =
  | { kind: "file"; mode: "100644" | "100755"; bytes: Buffer }
  | { kind: "link"; target: string }
  | { kind: "large"; size: number; mtimeMs?: number }
  | { kind: "other"; mode: string };

/** How a file differs between two checkpoints: the shape the changes block lists it in. */
export type FileChange = ChangedFileView;
