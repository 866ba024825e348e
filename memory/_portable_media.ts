/**
 * Media in `memory export` / `memory import`: one `media` line per block, its bytes in base64
 * beside the sentences and turns it came with. An import stores the bytes again (sniffed,
 * bounded, re-hashed: a line whose bytes do not hash to its digest is refused) and relinks.
 */
import { MediaError, toBase64 } from "../core/mod.ts";
import type { MediaBlock } from "../core/mod.ts";
import type { MediaTier } from "./media/store.ts";
import { sha256Hex } from "./media/blobs.ts";
import type { LineOf } from "./_portable_records.ts";

/** What else an export does with a block's verified bytes (the Markdown side's image file). */
export type MediaSink = (block: MediaBlock, bytes: Uint8Array) => Promise<void>;

/**
 * Write every block (verified: a damaged blob fails the export naming it), handing its bytes to
 * `sink` too, so each blob is read once; returns the count.
 */
export async function exportMedia(
  media: MediaTier,
  write: (value: unknown) => Promise<void>,
  sink?: MediaSink,
): Promise<number> {
  if (!media.enabled) return 0;
  let count = 0;
  for (const block of media.rows.all()) {
    const item = await media.get(block.digest);
    await write({
      type: "media",
      digest: block.digest,
      mime: block.mime,
      "created_at": block.createdAt,
      sentences: block.sentences,
      "turn_ids": block.turnIds,
      data: toBase64(item.bytes),
    });
    await sink?.(block, item.bytes);
    count++;
  }
  return count;
}

function bytesOf(line: LineOf<"media">): Uint8Array {
  return Uint8Array.from(atob(line.data), (ch) => ch.charCodeAt(0));
}

/** Refuse, before anything is written, a line whose bytes do not hash to its digest. */
export async function verifyMedia(lines: readonly LineOf<"media">[]): Promise<void> {
  for (const line of lines) {
    if (await sha256Hex(bytesOf(line)) !== line.digest) {
      throw new MediaError(
        "corrupt",
        `The exported media sha256:${line.digest} does not hash to its digest; nothing was imported`,
      );
    }
  }
}

/** Store and relink the exported blocks; returns how many were new and how many already there. */
export async function importMedia(
  media: MediaTier,
  lines: readonly LineOf<"media">[],
): Promise<{ added: number; skipped: number }> {
  let added = 0, skipped = 0;
  for (const line of lines) {
    const known = media.rows.get(line.digest) !== undefined;
    const ref = await media.put(bytesOf(line));
    if (ref.digest !== line.digest) {
      throw new MediaError(
        "corrupt",
        `The exported media sha256:${line.digest} does not hash to its digest`,
      );
    }
    const turnId = line.turn_ids[0] ?? "import";
    for (const sentence of line.sentences) await media.link(ref.digest, { sentence, turnId });
    if (known) skipped++;
    else added++;
  }
  return { added, skipped };
}
