/**
 * Turns what the user typed plus the context they added (:AcpChatAdd, `@file` mentions) into
 * ACP content blocks: `resource_link`s, or embedded `resource`s when the agent supports
 * embedded context. Mentions outside the session's cwd are left as plain text.
 */
import { readFile, stat } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import type { ContentBlock } from "../protocol/schema.js";
import type { PathBoundary } from "../workspace/path-boundary.js";

export type ContextItem =
  | { type: "file"; path: string }
  | { type: "range"; path: string; start: number; end: number; text: string; filetype?: string };

const MENTION = /(?:^|\s)@([^\s@]+)/g;
const EMBED_LIMIT = 256 * 1024;

/** Reads a file's text as the agent would get it (an unsaved buffer before the disk). */
export type ReadText = (path: string) => Promise<string>;

const readDisk: ReadText = (path) => readFile(path, "utf8");

export async function buildPrompt(text: string, context: ContextItem[], boundary: PathBoundary, embedded: boolean, read: ReadText = readDisk): Promise<ContentBlock[]> {
  const blocks: ContentBlock[] = [{ type: "text", text }];
  const seen = new Set<string>();
  const files: string[] = [];
  for (const m of text.matchAll(MENTION)) {
    const path = m[1]!.replace(/[.,;:!?)]+$/, "");
    try {
      const abs = boundary.check(path, "mention");
      if ((await stat(abs)).isFile()) files.push(abs);
    } catch {
      // not a file inside the cwd: it stays plain text
    }
  }
  for (const item of context) if (item.type === "file") files.push(item.path);
  for (const path of files) {
    if (seen.has(path)) continue;
    seen.add(path);
    blocks.push(await fileBlock(path, embedded, read));
  }
  for (const item of context) {
    if (item.type !== "range") continue;
    const uri = `${pathToFileURL(item.path).href}#L${item.start}-L${item.end}`;
    if (embedded) blocks.push({ type: "resource", resource: { uri, text: item.text, mimeType: "text/plain" } });
    else blocks.push({ type: "text", text: `\n${item.path} lines ${item.start}-${item.end}:\n\`\`\`${item.filetype ?? ""}\n${item.text}\n\`\`\`\n` });
  }
  return blocks;
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
