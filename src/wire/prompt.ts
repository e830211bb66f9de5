/**
 * What a prompt carries and what the session picker lists, as they cross (src/session/ builds
 * them; Lua sends and shows them). Imports nothing (see transcript.ts).
 */

/**
 * What a prompt carries besides its text: a file (an image or audio clip: `media`), a range of
 * lines, what a mention names that is no file (`text`: diagnostics, quickfix, a past session) or
 * a file a mention lists (`link`). `mention`: the token as the prompt shows it.
 */
export type ContextItem =
  /** `label`: how the prompt names it (a clipboard image has no name of its own); `media`: what the prompt shows of an image or audio file (checked by `attach`). */
  | {
      type: "file";
      path: string;
      label?: string;
      media?: { kind: "image" | "audio"; mime: string; size: number };
      mention?: string;
    }
  | { type: "range"; path: string; start: number; end: number; text: string; filetype?: string; mention?: string }
  /**
   * What a mention names that is no file (`@diagnostics`, `@quickfix`, `@session:…`): `mention`
   * the token as typed, `uri` where it comes from (a file's, or the plugin's own scheme),
   * `text` its content; `path`, when it belongs to one file, is held to the session's cwd.
   */
  | { type: "text"; mention?: string; uri: string; text: string; path?: string; title?: string; label?: string }
  /** A file a mention lists (`@folder/`): always a link, held to the session's cwd. */
  | { type: "link"; path: string; mention: string };

/** An agent's session as the session picker lists it. */
export interface SessionChoice {
  sessionId: string;
  title?: string;
  /** The user's first words in it, as the client's index recorded them. */
  prompt?: string;
  updatedAt?: string;
  cwd: string;
  source: "agent" | "index" | "both";
}
