/**
 * The media tier (ARCHITECTURE.md "Media Memory"): blobs by sha256 on disk, `block` rows and
 * their edges in memory/graph.db, vectors in the unified space only. Identical bytes are
 * stored once; deleting the block deletes the content (no GC, no refcounts).
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import {
  checkDigest,
  type Clock,
  type Embedder,
  errorMessage,
  type Logger,
  type MediaBlock,
  MediaError,
  type MediaHit,
  type MediaItem,
  type MediaLimits,
  type MediaOrigin,
  type MediaPutOptions,
  type MediaQuery,
  type MediaRef,
  type MediaStatus,
  type MediaStore,
  ModalityUnsupportedError,
} from "../../core/mod.ts";
import { cosine } from "../embed/fingerprint.ts";
import { BlobFiles, sha256Hex } from "./blobs.ts";
import { BlockRows } from "./blocks.ts";
import { sniffImage } from "../image/sniff.ts";

/** Options of MediaTier. */
export interface MediaTierOptions {
  /** memory/media. */
  dir: string;
  /** A connection to memory/graph.db (schema migrated); closed by the caller. */
  db: DatabaseSync;
  embedder: Embedder;
  clock: Pick<Clock, "now">;
  logger: Logger;
  limits: MediaLimits;
  enabled: boolean;
}

/** Progress of reembedStaleMedia. */
export interface ReembedProgress {
  done: number;
  total: number;
  failed: number;
}

/** The media store of one home. */
export class MediaTier implements MediaStore {
  readonly enabled: boolean;
  readonly limits: MediaLimits;
  readonly blobs: BlobFiles;
  readonly rows: BlockRows;
  #o: MediaTierOptions;

  constructor(options: MediaTierOptions) {
    this.#o = options;
    this.enabled = options.enabled;
    this.limits = options.limits;
    this.blobs = new BlobFiles(options.dir);
    this.rows = new BlockRows(options.db);
  }

  /** Why images cannot be embedded in the current space; undefined when they can. */
  unsupported(): ModalityUnsupportedError | undefined {
    const e = this.#o.embedder;
    return e.modalities.includes("image") && e.embedImages
      ? undefined
      : new ModalityUnsupportedError("image", e.fingerprint);
  }

  async put(bytes: Uint8Array, options: MediaPutOptions = {}): Promise<MediaRef> {
    this.#enabled();
    if (bytes.length > this.limits.maxBytes) {
      throw new MediaError(
        "too_large",
        `Refused media of ${bytes.length} bytes: more than the ${this.limits.maxBytes} allowed ` +
          `(core.memory.media.max_bytes)`,
      );
    }
    const { mime } = sniffImage(bytes, this.limits.maxPixels);
    const digest = await sha256Hex(bytes);
    options.signal?.throwIfAborted();
    const ref = { digest, mime, size: bytes.length };
    if (!(await this.blobs.has(digest))) await this.blobs.write(digest, bytes);
    const { created } = this.rows.upsert(ref, this.#o.clock.now());
    const block = this.rows.get(digest)!;
    if (created || block.vecModel !== this.#o.embedder.fingerprint) {
      await this.#embed(ref, bytes, options.signal);
    }
    return ref;
  }

  async get(digest: string): Promise<MediaItem> {
    this.#enabled();
    checkDigest(digest);
    const block = this.rows.get(digest);
    if (!block) throw new MediaError("not_found", `No media block sha256:${digest}`);
    const bytes = await this.blobs.read(digest);
    return { digest, mime: block.mime, size: block.size, bytes };
  }

  info(digest: string): Promise<MediaBlock | undefined> {
    this.#enabled();
    return Promise.resolve(this.rows.get(checkDigest(digest)));
  }

  link(digest: string, origin: MediaOrigin): Promise<void> {
    this.#enabled();
    const block = this.rows.get(checkDigest(digest));
    if (!block) {
      return Promise.reject(new MediaError("not_found", `No media block sha256:${digest}`));
    }
    this.rows.link(block.id, origin, this.#o.clock.now());
    return Promise.resolve();
  }

  async find(query: MediaQuery, options: { signal?: AbortSignal } = {}): Promise<MediaHit[]> {
    this.#enabled();
    const refused = this.unsupported();
    if (refused) throw refused;
    const space = this.#o.embedder.fingerprint;
    let vector: Float32Array | undefined;
    if ("text" in query) {
      [vector] = await this.#o.embedder.embed([query.text], options);
    } else {
      vector = this.rows.vector(checkDigest(query.like), space);
      if (!vector) {
        throw new MediaError(
          "not_found",
          `Media sha256:${query.like} has no vector in "${space}" yet`,
        );
      }
    }
    const hits = this.rows.vectors(space)
      .filter((r) => !("like" in query) || r.digest !== query.like)
      .map((r) => ({ digest: r.digest, score: cosine(vector!, r.vector) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, Math.max(1, Math.min(query.limit ?? 5, 50)));
    return hits.flatMap((h) => {
      const block = this.rows.get(h.digest);
      return block ? [{ block, score: h.score }] : [];
    });
  }

  async delete(digest: string): Promise<boolean> {
    this.#enabled();
    checkDigest(digest);
    const existed = this.rows.delete(digest);
    const removed = await this.blobs.remove(digest);
    return existed || removed;
  }

  /**
   * Remove the blobs whose block is gone (a purge erased the sentences that carried them, in
   * graph.db's own transaction); returns how many. Content without a block is never kept.
   */
  async sweep(): Promise<number> {
    let removed = 0;
    for await (const digest of this.blobs.digests()) {
      if (this.rows.get(digest)) continue;
      if (await this.blobs.remove(digest)) removed++;
    }
    if (removed > 0) {
      this.#o.logger.info("Removed the content of deleted media blocks", { removed });
    }
    return removed;
  }

  status(): MediaStatus {
    const refused = this.unsupported();
    const counts = this.rows.counts(refused ? undefined : this.#o.embedder.fingerprint);
    return {
      enabled: this.enabled,
      ...counts,
      ...(refused
        ? { unsupported: refused.message }
        : { imageSpace: this.#o.embedder.fingerprint }),
    };
  }

  /**
   * reembedStaleMedia: recompute and write back every block whose vec_model is empty or
   * another space. Rejects with ModalityUnsupportedError when the space cannot embed images
   * (nothing is written); a damaged blob is logged and counted, and the rest go on.
   */
  async reembedStale(
    options: { signal?: AbortSignal; onProgress?: (p: ReembedProgress) => void } = {},
  ): Promise<ReembedProgress> {
    const refused = this.unsupported();
    if (refused) throw refused;
    const stale = this.rows.stale(this.#o.embedder.fingerprint);
    const progress = { done: 0, total: stale.length, failed: 0 };
    for (const ref of stale) {
      options.signal?.throwIfAborted();
      try {
        const bytes = await this.blobs.read(ref.digest);
        if (!(await this.#embed(ref, bytes, options.signal))) progress.failed++;
      } catch (error) {
        if (options.signal?.aborted) throw error;
        progress.failed++;
        this.#o.logger.error("Cannot re-embed a media block", {
          digest: ref.digest,
          error: errorMessage(error),
        });
      }
      progress.done++;
      options.onProgress?.({ ...progress });
    }
    return progress;
  }

  /** Embed one image and write its vector back; false (logged) when the space cannot. */
  async #embed(ref: MediaRef, bytes: Uint8Array, signal?: AbortSignal): Promise<boolean> {
    const embedder = this.#o.embedder;
    if (this.unsupported()) return false; // stored, linked and shown; status says why
    try {
      const [vector] = await embedder.embedImages!([{ bytes, mime: ref.mime }], { signal });
      if (vector?.length !== embedder.dim) {
        throw new RangeError("the encoder returned a vector of the wrong length");
      }
      this.rows.setVector(ref.digest, embedder.fingerprint, vector);
      return true;
    } catch (error) {
      if (signal?.aborted) throw error;
      this.#o.logger.warn("Cannot embed a media block; it is kept without a vector", {
        digest: ref.digest,
        mime: ref.mime,
        error: errorMessage(error),
      });
      return false;
    }
  }

  #enabled(): void {
    if (!this.enabled) {
      throw new MediaError("disabled", "Media memory is off (core.memory.media.enabled = false)");
    }
  }
}
