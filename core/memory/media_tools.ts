/**
 * The media tools the model calls (the fifth tool source of ARCHITECTURE.md): find stored
 * images by text or by example in the unified space, show a block's metadata, and attach a
 * stored image to the reply. A space that cannot embed images answers `media_find` with the
 * ModalityUnsupported reason, so the model can say so.
 * @module
 */
import { z } from "zod";
import type { RegisteredTool, ToolResult } from "../kernel/tools.ts";
import { defineTool } from "../kernel/define_tool.ts";
import { errorMessage } from "../errors.ts";
import { describeMedia, type MediaBlock, type MediaStore } from "./media.ts";
import { MAX_ATTACHMENTS, type MediaOutbox } from "../kernel/media_turn.ts";

const DIGEST = z.lazy(() =>
  z.string().regex(/^[0-9a-f]{64}$/)
    .describe("The image's sha256 digest (64 hex characters), as media_find shows it")
);

const FIND = () =>
  z.object({
    text: z.string().min(1).max(500).optional(),
    like: DIGEST.optional(),
    limit: z.int().min(1).max(20).optional(),
  });
const ONE = () => z.object({ digest: DIGEST });

function line(block: MediaBlock, score?: number): string {
  const said = block.sentences[0] ? ` — came with "${block.sentences[0].slice(0, 120)}"` : "";
  const at = new Date(block.createdAt).toISOString().slice(0, 16).replace("T", " ");
  const s = score === undefined ? "" : ` (score ${score.toFixed(3)})`;
  return `${block.digest} ${block.mime} ${block.size} bytes, stored ${at} UTC${said}${s}`;
}

async function failure<T>(fn: () => Promise<T>): Promise<T | ToolResult> {
  try {
    return await fn();
  } catch (error) {
    return { content: `Error: ${errorMessage(error)}`, isError: true };
  }
}

/** media_find, media_info and media_attach over `store`; none when media memory is off. */
export function mediaTools(store: MediaStore, outbox: MediaOutbox): RegisteredTool[] {
  if (!store.enabled) return [];
  return [
    defineTool({
      name: "media_find",
      description: "Find stored images (photos the owner sent earlier) by a description " +
        "(`text`) or by similarity to a stored image (`like`, a digest). Best first.",
      input: FIND,
      parallelSafe: true,
      noMemory: true,
      handler: ({ text, like, limit = 5 }, context) =>
        failure(async () => {
          if ((text === undefined) === (like === undefined)) {
            return { content: "Error: give exactly one of `text` or `like`", isError: true };
          }
          const hits = await store.find(
            text !== undefined ? { text, limit } : { like: like!, limit },
            { signal: context.signal },
          );
          return hits.length === 0
            ? "No stored image matches."
            : hits.map((h) => line(h.block, h.score)).join("\n");
        }),
    }),
    defineTool({
      name: "media_info",
      description:
        "Show a stored image's metadata: type, size, when it came, the message it came with.",
      input: ONE,
      parallelSafe: true,
      noMemory: true,
      handler: ({ digest }) =>
        failure(async () => {
          const block = await store.info(digest);
          if (!block) return { content: `Error: no stored image ${digest}`, isError: true };
          const space = block.vecModel === "" ? "no vector yet" : `vector in "${block.vecModel}"`;
          return `${line(block)}\n${space}; turns: ${block.turnIds.join(", ") || "none"}`;
        }),
    }),
    defineTool({
      name: "media_attach",
      description: `Attach a stored image to your reply (at most ${MAX_ATTACHMENTS} per reply).`,
      input: ONE,
      noMemory: true,
      handler: ({ digest }, context) =>
        failure(async () => {
          const item = await store.get(digest); // verified: a damaged blob is not sent
          const ref = { digest: item.digest, mime: item.mime, size: item.size };
          if (!outbox.add(context.turnId, ref)) {
            return {
              content: `Error: a reply carries at most ${MAX_ATTACHMENTS} images`,
              isError: true,
            };
          }
          return `Attached ${describeMedia(ref)} to the reply.`;
        }),
    }),
  ];
}
