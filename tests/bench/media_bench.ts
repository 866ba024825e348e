/**
 * Benchmarks of the media store (memory/media/): megabytes per second stored by put (sniff,
 * sha256, tmp + fsync + rename, the block row) and read back by get with its sha256
 * re-verification, over distinct 1 MiB PNG photos of noise (incompressible, like a photo).
 * @module
 */
import { join } from "node:path";
import { encode as encodePng } from "fast-png";
import { silentLogger } from "../../core/mod.ts";
import {
  createHashEmbedder,
  defaultMediaConfig,
  MediaTier,
  openDatabase,
} from "../../memory/mod.ts";
import { GRAPH_MIGRATIONS } from "../../memory/graph/schema.ts";
import type { FigureFn } from "./_figure.ts";
import { round } from "./_figure.ts";

const PHOTOS = 24;

function photos(): Uint8Array[] {
  return Array.from({ length: PHOTOS }, () => {
    const data = new Uint8Array(512 * 512 * 4);
    for (let at = 0; at < data.length; at += 65536) {
      crypto.getRandomValues(data.subarray(at, at + 65536));
    }
    return encodePng({ width: 512, height: 512, data, channels: 4 });
  });
}

async function withTier<T>(fn: (tier: MediaTier) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "media-bench-" });
  const db = openDatabase(join(dir, "graph.db"), { migrations: GRAPH_MIGRATIONS });
  try {
    return await fn(
      new MediaTier({
        dir: join(dir, "media"),
        db,
        embedder: createHashEmbedder({ dim: 64 }),
        clock: { now: () => Date.now() },
        logger: silentLogger,
        limits: defaultMediaConfig,
        enabled: true,
      }),
    );
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const mb = (images: Uint8Array[]) => images.reduce((n, b) => n + b.length, 0) / 2 ** 20;

/** `media_put_mb_per_s`, `media_get_verify_mb_per_s`. */
export const figures: Record<string, FigureFn> = {
  "media_put_mb_per_s": async () => {
    const images = photos();
    let best = Infinity;
    for (let pass = 0; pass < 3; pass++) {
      best = Math.min(
        best,
        await withTier(async (tier) => {
          const start = performance.now();
          for (const image of images) await tier.put(image);
          return performance.now() - start;
        }),
      );
    }
    return { value: round(mb(images) / (best / 1000), 1), unit: "MB/s" };
  },
  "media_get_verify_mb_per_s": async () => {
    const images = photos();
    const ms = await withTier(async (tier) => {
      const refs = [];
      for (const image of images) refs.push(await tier.put(image));
      let best = Infinity;
      for (let pass = 0; pass < 3; pass++) {
        const start = performance.now();
        for (const ref of refs) await tier.get(ref.digest);
        best = Math.min(best, performance.now() - start);
      }
      return best;
    });
    return { value: round(mb(images) / (ms / 1000), 1), unit: "MB/s" };
  },
};
