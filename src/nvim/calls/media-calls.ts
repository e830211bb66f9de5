/** Calls about a chat's images and audio: attach a file or the clipboard, open or save what the agent sent. */
import { attachClipboard, describeAttachment, openMedia, saveMedia } from "../../session/attachments.js";
import { DEFAULT_MAX_BYTES, findMedia } from "../../session/media.js";
import type { ChatLookup, Handlers } from "../chat-entry.js";

export function mediaCalls(chats: ChatLookup): Pick<Handlers, "attach" | "mediaOpen" | "mediaSave"> {
  return {
    attach: (p) => {
      const e = chats.get(p.chat);
      const max = e.params.media?.maxBytes ?? DEFAULT_MAX_BYTES;
      if (p.clipboard) return attachClipboard(e.media, p.clipboard === "primary", max);
      return describeAttachment(p.path ?? "", (path) => e.chat.checkPath(path, "attach"), e.chat.cwd, max);
    },
    mediaOpen: (p) => {
      const e = chats.get(p.chat);
      const blocks = e.media.blocks(e.chat.blocks);
      const b = blocks.find((x) => x.id === p.block);
      return openMedia(
        e.media,
        findMedia(blocks, p.block, p.index),
        b?.type === "media" ? (b as { name?: string }).name : undefined,
      ).then((path) => ({ path }));
    },
    mediaSave: (p) => {
      const e = chats.get(p.chat);
      return saveMedia(findMedia(e.media.blocks(e.chat.blocks), p.block, p.index), p.path, p.overwrite === true);
    },
  };
}
