/**
 * What the ACP v2 translation tells the session layer beyond v1's shapes, carried in `_meta`
 * under the client's own keys (no agent sends them): which message an update belongs to and
 * whether it replaces its content, a terminal snapshot that replaces the output, and a
 * permission request's own title and description.
 */

/** On a v1 message chunk made from v2: `{ id, replace? }` (messages patched by id). */
export const MESSAGE_META = "acp-chat.nvim/message";
/** On a `_meta.terminal_output` made from v2's `terminal_update.output`: the data replaces the output. */
export const REPLACE_META = "acp-chat.nvim/replace";
/** On a v1 permission request made from v2: `{ title, description? }`. */
export const PERMISSION_META = "acp-chat.nvim/permission";

export interface MessageMeta {
  id: string;
  replace?: boolean;
}

/** The message an update belongs to, when the v2 translation said so. */
export function messageMeta(meta: unknown): MessageMeta | undefined {
  const m = meta && typeof meta === "object" ? (meta as Record<string, unknown>)[MESSAGE_META] : undefined;
  if (!m || typeof m !== "object") return undefined;
  const { id, replace } = m as { id?: unknown; replace?: unknown };
  return typeof id === "string" ? { id, replace: replace === true } : undefined;
}

/** A permission request's own words (v2), when the translation carried them. */
export function permissionMeta(meta: unknown): { title?: string; description?: string } | undefined {
  const m = meta && typeof meta === "object" ? (meta as Record<string, unknown>)[PERMISSION_META] : undefined;
  if (!m || typeof m !== "object") return undefined;
  const { title, description } = m as { title?: unknown; description?: unknown };
  return {
    title: typeof title === "string" ? title : undefined,
    description: typeof description === "string" ? description : undefined,
  };
}

/**
 * On a v1 tool call update made from v2: what the client may do to the call and what the agent
 * said of it that v1 cannot: `cancel` (its `capabilities.cancel`, as last patched),
 * `terminals` (each terminal it shows: whether `terminal/cancel` is advertised) and
 * `cancelled` (the v2 status, which v1 has no word for).
 */
export const CONTROLS_META = "acp-chat.nvim/controls";

export interface ControlsMeta {
  cancel?: boolean;
  terminals?: Record<string, boolean>;
  cancelled?: boolean;
}

/** The controls an update carries, when the v2 translation said so. */
export function controlsMeta(meta: unknown): ControlsMeta | undefined {
  const m = meta && typeof meta === "object" ? (meta as Record<string, unknown>)[CONTROLS_META] : undefined;
  if (!m || typeof m !== "object") return undefined;
  const { cancel, terminals, cancelled } = m as Record<string, unknown>;
  const out: ControlsMeta = {};
  if (typeof cancel === "boolean") out.cancel = cancel;
  if (cancelled === true) out.cancelled = true;
  if (terminals && typeof terminals === "object")
    out.terminals = Object.fromEntries(
      Object.entries(terminals as Record<string, unknown>).filter(
        (e): e is [string, boolean] => typeof e[1] === "boolean",
      ),
    );
  return out;
}
