/**
 * Opening the media tier of a home: the image encoder paired with the text space when one is
 * configured (the unified space), the MediaTier over memory/media and its own connection to
 * memory/graph.db, and reembedStaleMedia at start.
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import {
  type Clock,
  type ConfigRegistry,
  type Embedder,
  errorMessage,
  type Logger,
  ModalityUnsupportedError,
} from "../../core/mod.ts";
import { loadOnnxImageEncoder, unifiedSpace } from "../embed/onnx_image.ts";
import { GRAPH_MIGRATIONS } from "../graph/schema.ts";
import { openDatabase } from "../sqlite.ts";
import { readMediaConfig } from "./config.ts";
import { MediaTier } from "./store.ts";

/**
 * `text` paired with the configured image encoder (`core.agent.embedding_onnx_image_model`),
 * or `text` itself when none is configured or it cannot be used (logged at error level with
 * the reason; images are then stored without vectors and status says why).
 */
export async function withImageEncoder(
  text: Embedder,
  config: ConfigRegistry,
  logger: Logger,
): Promise<{ embedder: Embedder; failure?: string; close?: () => Promise<void> }> {
  const media = readMediaConfig(config);
  if (!media.enabled || media.imageModel === "") return { embedder: text };
  try {
    const image = await loadOnnxImageEncoder({
      modelPath: media.imageModel,
      logger,
      size: media.imageSize || undefined,
      maxPixels: media.maxPixels,
    });
    try {
      return { embedder: unifiedSpace(text, image), close: () => image.close() };
    } catch (error) {
      await image.close();
      throw error;
    }
  } catch (error) {
    const failure = `Cannot pair the image encoder with "${text.fingerprint}": ${
      errorMessage(error)
    }`;
    logger.error("Image encoder unavailable; images are kept without vectors", { error: failure });
    return { embedder: text, failure };
  }
}

/** Options of openMediaTier. */
export interface OpenMediaOptions {
  /** memory/media. */
  dir: string;
  /** memory/graph.db (its schema is shared with the graph tier). */
  graphDb: string;
  config: ConfigRegistry;
  embedder: Embedder;
  clock: Pick<Clock, "now">;
  logger: Logger;
  /** Why the image encoder could not be paired (withImageEncoder's failure). */
  failure?: string;
}

/** The media tier and the connection it owns. */
export interface OpenedMedia {
  tier: MediaTier;
  /** Why images have no vectors, when they do not: the space or the encoder's failure. */
  unsupported(): string | undefined;
  /** reembedStaleMedia: re-embed blocks of another space, with progress logs. Never rejects unless aborted. */
  reembed(signal?: AbortSignal): Promise<void>;
  close(): void;
}

/** Open the media tier. Throws DatabaseError when memory/graph.db cannot be opened. */
export function openMediaTier(options: OpenMediaOptions): OpenedMedia {
  const settings = readMediaConfig(options.config);
  const logger = options.logger.child({ component: "media" });
  const db: DatabaseSync = openDatabase(options.graphDb, { migrations: GRAPH_MIGRATIONS });
  const tier = new MediaTier({
    dir: options.dir,
    db,
    embedder: options.embedder,
    clock: options.clock,
    logger,
    limits: settings,
    enabled: settings.enabled,
  });
  return {
    tier,
    unsupported: () => options.failure ?? tier.unsupported()?.message,
    async reembed(signal) {
      if (!tier.enabled) return;
      try {
        await tier.sweep();
        const done = await tier.reembedStale({
          signal,
          onProgress: (p) => {
            if (p.done % 25 === 0 || p.done === p.total) {
              logger.info("Re-embedding media", { ...p });
            }
          },
        });
        if (done.total > 0) logger.info("Media re-embedded", { ...done });
      } catch (error) {
        if (signal?.aborted) return;
        if (error instanceof ModalityUnsupportedError) {
          const stale = tier.status().stale;
          if (stale > 0) {
            logger.warn("Media blocks kept without vectors", { stale, reason: error.message });
          }
          return;
        }
        logger.error("Re-embedding media failed", { error: errorMessage(error) });
      }
    },
    close: () => db.close(),
  };
}
