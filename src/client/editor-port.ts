/**
 * The editor port: everything the ACP client needs from the editor, and nothing more.
 * The Neovim side implements it (src/nvim/), tests implement it in memory.
 * Methods that answer an agent request receive an AbortSignal that fires when the agent cancels
 * the request, the turn is cancelled, or the connection closes.
 */
import type {
  AuthMethod,
  CreateElicitationRequest,
  ElicitationResponse,
  PermissionOutcome,
  ReadTextFileRequest,
  RequestPermissionRequest,
  WriteTextFileRequest,
} from "../protocol/schema.js";

/** What a write did, for the agent's response. */
export interface WriteResult {
  written: "buffer" | "disk" | "nothing";
  /** The buffer was also written to disk (write mode "save"). */
  saved?: boolean;
  /** Hunks of the proposal that were accepted, of how many (after a review). */
  accepted?: number;
  hunks?: number;
  message: string;
}

/**
 * The user's answer to a permission question. `index`: the position of the chosen option in the
 * request's `options`; the answer is tied to it (an agent may repeat an id), `optionId` is what
 * goes back to the agent.
 */
export type PermissionAnswer = PermissionOutcome & { index?: number; remember?: "session" | "project" };

export interface EditorPort {
  /**
   * Ask the user to pick one of the agent's permission options. With an *_always option the
   * user may also ask the client to remember the choice (`remember`).
   */
  requestPermission(req: RequestPermissionRequest, signal: AbortSignal): Promise<PermissionAnswer>;
  /**
   * Read a text file, preferring the editor's buffer (with unsaved changes) to the disk.
   * `unsaved`: the text is a buffer's with unsaved edits, when the port can tell from the read itself.
   */
  readTextFile(
    req: ReadTextFileRequest,
    signal: AbortSignal,
    /**
     * `agent`: the agent's own read (fs/read_text_file, read_file), not the client's for a
     * question's diff. `numbered`: the lines numbered as the agents' own read tools show them
     * (`%6d\t`, from the first line read), when the port can do it on the way (`numbered: true`
     * in the answer); else the caller numbers them.
     */
    by?: { agent: boolean; numbered?: boolean },
  ): Promise<{ content: string; unsaved?: boolean; numbered?: boolean }>;
  /**
   * Write a text file; resolves when the content is in place (or rejects if the user refused),
   * with what was written when the port can say (it goes back to the agent).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a port that writes and learns nothing returns nothing
  writeTextFile(req: WriteTextFileRequest, signal: AbortSignal): Promise<WriteResult | void>;
  /**
   * A tool call that touched these files ended: buffers that fell behind the disk (the agent
   * wrote with its own file system) are reloaded, or the user is asked when they hold edits.
   */
  syncBuffers?(
    paths: readonly string[],
    signal: AbortSignal,
    before?: (abs: string) => Promise<Uint8Array | undefined>,
  ): Promise<void>;
  /**
   * A tool call ended (before its checkpoint): edits the user accepted only in part in its
   * permission review are cut back to what was accepted. Notes for the transcript and the agent.
   */
  toolCallEnded?(toolCallId: string, check: (abs: string) => void): Promise<string[]>;
  /**
   * A tool call's diffs were seen: those without old text (agents leave it out for edits of
   * existing files) get the file's text of now as their old side, read before the agent writes.
   */
  noteDiffs?(toolCallId: string, diffs: readonly { path: string; oldText?: string | null; newText: string }[]): void;
  /** Which of these files have a buffer with unsaved edits (what an agent reading the disk does not see). */
  unsavedBuffers?(paths: readonly string[]): Promise<string[]>;
  /** Ask the user for structured input (elicitation/create). Optional. */
  elicit?(req: CreateElicitationRequest, signal: AbortSignal): Promise<ElicitationResponse>;
  /** The agent needs a sign-in: let the user pick one of its methods (undefined: declined). */
  chooseAuthMethod?(methods: AuthMethod[], signal: AbortSignal): Promise<string | undefined>;
  /** Run a `terminal` auth method (the agent's command with its args/env) for the user; resolves on exit. */
  runAuthTerminal?(
    spec: { command: string; args: string[]; env: Record<string, string>; cwd: string; title: string },
    signal: AbortSignal,
  ): Promise<void>;
}
