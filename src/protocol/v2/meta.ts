/**
 * What the ACP v2 translation tells the session layer beyond v1's shapes, carried in `_meta`
 * under the client's own keys (no agent sends them): which message an update belongs to and
 * whether it replaces its content, a terminal snapshot that replaces the output, a
 * permission request's own title and description, and which plan a plan belongs to.
 */

/** On a v1 message chunk made from v2: `{ id, replace? }` (messages patched by id). */
export const MESSAGE_META = "acp-chat.nvim/message";
/** On a `_meta.terminal_output` made from v2's `terminal_update.output`: the data replaces the output. */
export const REPLACE_META = "acp-chat.nvim/replace";
/** On a v1 permission request made from v2: `{ title, description? }`. */
export const PERMISSION_META = "acp-chat.nvim/permission";

/**
 * On a v1 `plan` made from v2's `plan_update`: `{ id }` (the plan's id: a session may keep
 * several plans); on each of its entries: `{ status?, priority? }`, the v2 value where v1 has
 * no word for it (`cancelled`, a `_`-prefixed extension).
 */
export const PLAN_META = "acp-chat.nvim/plan";

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

const planMetaOf = (meta: unknown): Record<string, unknown> | undefined => {
  const m = meta && typeof meta === "object" ? (meta as Record<string, unknown>)[PLAN_META] : undefined;
  return m && typeof m === "object" ? (m as Record<string, unknown>) : undefined;
};

/** The plan id a v1 plan carries, when the v2 translation made it. */
export function planId(meta: unknown): string | undefined {
  const id = planMetaOf(meta)?.id;
  return typeof id === "string" ? id : undefined;
}

/** A plan entry's own status and priority, where v1's words stood in for them. */
export function planEntryWords(meta: unknown): { status?: string; priority?: string } {
  const m = planMetaOf(meta);
  return {
    status: typeof m?.status === "string" ? m.status : undefined,
    priority: typeof m?.priority === "string" ? m.priority : undefined,
  };
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
 * `cancelled` and `paused` (v2 statuses, which v1 has no word for).
 */
export const CONTROLS_META = "acp-chat.nvim/controls";

export interface ControlsMeta {
  cancel?: boolean;
  terminals?: Record<string, boolean>;
  cancelled?: boolean;
  /** The v2 status `paused` (shown as such; v1's shape says pending). */
  paused?: boolean;
}

/** The controls an update carries, when the v2 translation said so. */
export function controlsMeta(meta: unknown): ControlsMeta | undefined {
  const m = meta && typeof meta === "object" ? (meta as Record<string, unknown>)[CONTROLS_META] : undefined;
  if (!m || typeof m !== "object") return undefined;
  const { cancel, terminals, cancelled } = m as Record<string, unknown>;
  const out: ControlsMeta = {};
  if (typeof cancel === "boolean") out.cancel = cancel;
  if (cancelled === true) out.cancelled = true;
  if ((m as Record<string, unknown>).paused === true) out.paused = true;
  if (terminals && typeof terminals === "object")
    out.terminals = Object.fromEntries(
      Object.entries(terminals as Record<string, unknown>).filter(
        (e): e is [string, boolean] => typeof e[1] === "boolean",
      ),
    );
  return out;
}
