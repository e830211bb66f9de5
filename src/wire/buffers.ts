/**
 * The editor's buffers as Node's write path sees them (lua/acpchat/editor/workspace.lua reports
 * them; src/workspace/ decides with them), and a diff's hunks as they cross in reviews.
 * Imports nothing (see transcript.ts).
 */

/** A loaded buffer as Lua reports it, with the options that decide how it is written. */
export interface BufferStateWire {
  tick: number;
  modified: boolean;
  lines: string[];
  /** Vim's empty buffer (no line at all; it shows one empty line). */
  empty: boolean;
  eol: boolean;
  fixeol: boolean;
  binary: boolean;
  fileformat: string;
  fileencoding: string;
  bomb: boolean;
  readonly: boolean;
  modifiable: boolean;
  /** Vim saw the file change on disk since it read or wrote it (asked for by a sync only). */
  diskChanged?: boolean;
}

/** A hunk of a line diff (src/workspace/hunks.ts): old lines [oldStart, oldStart + oldCount) become new lines [newStart, newStart + newCount), 0-based. */
export interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
}
