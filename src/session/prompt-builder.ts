/**
 * Turns what the user typed plus the context they added (:AcpChatAdd, `@file` mentions) into
 * ACP content blocks: `resource_link`s, or embedded `resource`s when the agent supports
 * embedded context. Mentions outside the session's cwd are left as plain text. Image and audio
 * files become `image`/`audio` blocks when the agent takes them, else links with a note
 * (src/session/attachments.ts); one outside the boundary or over the size limit is refused.
 */
import { readFile, stat } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import type { ContentBlock } from "../protocol/schema.js";
import type { PathBoundary } from "../workspace/path-boundary.js";
import { mediaBlock } from "./attachments.js";
import { AttachmentError, DEFAULT_MAX_BYTES, mediaType, type MediaPolicy } from "./media.js";
import type { ContextItem } from "../wire/index.js";

const MENTION = /(?:^|\s)@([^\s@]+)/g;
const EMBED_LIMIT = 256 * 1024;
/** Most of a mention's text (a transcript keeps its end: where the conversation was). */
export const MENTION_TEXT_LIMIT = 96 * 1024;

/** Reads a file's text as the agent would get it (an unsaved buffer before the disk). */
export type ReadText = (path: string) => Promise<string>;

const readDisk: ReadText = (path) => readFile(path, "utf8");

/** How images and audio are attached; `owns`: a path of the chat's own (a clipboard image), allowed outside the boundary. */
export type MediaOptions = MediaPolicy & { owns?: (path: string) => boolean };

const NO_MEDIA: MediaOptions = { image: false, audio: false, maxBytes: DEFAULT_MAX_BYTES, agent: "the agent" };

/**
 * The prompt's content blocks, and notes for the user (an image sent as a link, say). Throws an
 * AttachmentError when an image or audio file cannot be attached (the caller gives the prompt
 * back, text and context, so nothing is lost).
 */
export async function buildPrompt(
  text: string,
  context: ContextItem[],
  boundary: PathBoundary,
  embedded: boolean,
  read: ReadText = readDisk,
  media: MediaOptions = NO_MEDIA,
  redact: (s: string) => string = (s) => s,
): Promise<{ blocks: ContentBlock[]; notes: string[] }> {
  const blocks: ContentBlock[] = [{ type: "text", text }];
  const notes: string[] = [];
  const seen = new Set<string>();
  const files: string[] = [];
  const labels = new Map<string, string>();
  /** Resolved path -> the path of the context item that added it. */
  const added = new Map<string, string>();
  for (const m of text.matchAll(MENTION)) {
    const path = m[1]!.replace(/[.,;:!?)]+$/, "");
    try {
      const abs = boundary.check(path, "mention");
      if ((await stat(abs)).isFile()) files.push(abs);
    } catch {
      // not a file inside the cwd: it stays plain text
    }
  }
  for (const item of context) {
    if (item.type !== "file") continue;
    const type = mediaType(item.path);
    if (!type) {
      // A file a mention named (`@buffers`): held to the cwd like every mention.
      if (item.mention) {
        try {
          boundary.check(item.path, "mention");
        } catch {
          throw new MentionError(
            `${item.mention}: ${item.path} is outside the session's working directory (${boundary.cwd}): not sent`,
          );
        }
      }
      files.push(item.path);
      continue;
    }
    // An image or audio file the user added: inside the boundary (like fs/read_text_file), or
    // the chat's own (from the clipboard).
    let abs = item.path;
    if (!media.owns?.(item.path)) {
      try {
        abs = boundary.check(item.path, "attach");
      } catch {
        throw Object.assign(
          new AttachmentError(
            `Access denied: ${item.label ?? item.path} is outside the session's working directory (${boundary.cwd}): not attached`,
          ),
          { item: item.path },
        );
      }
    }
    if (item.label) labels.set(abs, item.label);
    added.set(abs, item.path);
    files.push(abs);
  }
  for (const path of files) {
    if (seen.has(path)) continue;
    seen.add(path);
    const type = mediaType(path);
    if (type) {
      const { block, note } = await mediaBlock(path, type, media, labels.get(path)).catch((e: unknown) => {
        // Which context item it was: the caller takes it out of the context it gives back.
        if (e instanceof AttachmentError && added.has(path)) e.item = added.get(path);
        throw e;
      });
      blocks.push(block);
      if (note) notes.push(note);
    } else blocks.push(await fileBlock(path, embedded, read));
  }
  for (const item of context) {
    if (item.type === "text" || item.type === "link" || (item.type === "range" && item.mention)) {
      blocks.push(...mentionBlocks(item, boundary, embedded, redact));
      continue;
    }
    if (item.type !== "range") continue;
    const uri = `${pathToFileURL(item.path).href}#L${item.start}-L${item.end}`;
    if (embedded) blocks.push({ type: "resource", resource: { uri, text: item.text, mimeType: "text/plain" } });
    else
      blocks.push({
        type: "text",
        text: `\n${item.path} lines ${item.start}-${item.end}:\n\`\`\`${item.filetype ?? ""}\n${item.text}\n\`\`\`\n`,
      });
  }
  return { blocks, notes };
}

async function fileBlock(path: string, embedded: boolean, read: ReadText): Promise<ContentBlock> {
  const uri = pathToFileURL(path).href;
  const name = path.split("/").pop() ?? path;
  if (embedded) {
    try {
      const st = await stat(path);
      if (st.size <= EMBED_LIMIT) {
        const text = await read(path);
        if (!text.includes("\0")) return { type: "resource", resource: { uri, text, mimeType: "text/plain" } };
      }
    } catch {
      // fall back to a link
    }
  }
  return { type: "resource_link", uri, name };
}

/** What a mention cannot reach: the prompt comes back to the user with this said. */
export class MentionError extends Error {}

/** A mention's text, capped: the end is kept (a transcript's latest turns, a list's last lines). */
export function capText(text: string, limit = MENTION_TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  return `[… ${text.length - limit} characters before this were left out]\n${text.slice(text.length - limit)}`;
}

/**
 * The blocks of one mention that is not a plain file: held to the session's cwd (a path outside
 * it refuses the prompt: nothing outside is read or sent), its text redacted and capped; an
 * embedded resource when the agent takes embedded context, else a link or plain text.
 */
function mentionBlocks(
  item: Extract<ContextItem, { type: "text" | "link" | "range" }>,
  boundary: PathBoundary,
  embedded: boolean,
  redact: (s: string) => string,
): ContentBlock[] {
  const path = item.path;
  let abs: string | undefined;
  if (path !== undefined) {
    try {
      abs = boundary.check(path, "mention");
    } catch {
      throw new MentionError(
        `${item.mention ?? path}: ${path} is outside the session's working directory (${boundary.cwd}): not sent`,
      );
    }
  }
  if (item.type === "link")
    return [{ type: "resource_link", uri: pathToFileURL(abs!).href, name: path!.split("/").pop() ?? path! }];
  if (item.type === "range") {
    const uri = `${pathToFileURL(abs!).href}#L${item.start}-L${item.end}`;
    const text = capText(redact(item.text), EMBED_LIMIT);
    if (embedded) return [{ type: "resource", resource: { uri, text, mimeType: "text/plain" } }];
    return [
      {
        type: "text",
        text: `\n${item.mention} (${path} lines ${item.start}-${item.end}):\n\`\`\`${item.filetype ?? ""}\n${text}\n\`\`\`\n`,
      },
    ];
  }
  const text = capText(redact(item.text));
  if (embedded) return [{ type: "resource", resource: { uri: item.uri, text, mimeType: "text/plain" } }];
  return [{ type: "text", text: `\n${item.title ?? item.mention ?? item.uri}:\n\`\`\`\n${text}\n\`\`\`\n` }];
}
