/** A real MediaTier in a temporary folder for kernel and web tests; dispose removes it. */
import { join } from "node:path";
import { type Embedder, silentLogger } from "../../core/mod.ts";
import {
  createHashEmbedder,
  defaultMediaConfig,
  MediaTier,
  openDatabase,
} from "../../memory/mod.ts";
import { GRAPH_MIGRATIONS } from "../../memory/graph/schema.ts";

/** A media tier and its folder. */
export interface TestMedia extends AsyncDisposable {
  tier: MediaTier;
  dir: string;
}

/** Open a MediaTier over `embedder` (default: a text-only hash space). */
export async function openTestMedia(
  options: { embedder?: Embedder; enabled?: boolean; maxBytes?: number } = {},
): Promise<TestMedia> {
  const dir = await Deno.makeTempDir({ prefix: "media-test-" });
  const db = openDatabase(join(dir, "graph.db"), { migrations: GRAPH_MIGRATIONS });
  const tier = new MediaTier({
    dir: join(dir, "media"),
    db,
    embedder: options.embedder ?? createHashEmbedder({ dim: 32 }),
    clock: { now: () => Date.now() },
    logger: silentLogger,
    limits: { ...defaultMediaConfig, ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}) },
    enabled: options.enabled ?? true,
  });
  return {
    tier,
    dir,
    async [Symbol.asyncDispose]() {
      db.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
