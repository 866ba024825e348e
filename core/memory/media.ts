/**
 * Media memory (ARCHITECTURE.md "Media Memory"): the ports of the content-addressed store and
 * of the `block` nodes of the graph, and the errors they raise. Types only; memory/media/
 * implements them over files and SQLite.
 * @module
 */
import { HomeAgentError } from "../errors.ts";
import type { Modality } from "./embedding.ts";

/** A stored piece of media: its sha256 (64 lowercase hex), sniffed type and size in bytes. */
export interface MediaRef {
  digest: string;
  mime: string;
  size: number;
}

/** Media with its bytes, re-verified against the digest when read. */
export interface MediaItem extends MediaRef {
  bytes: Uint8Array;
}

/** A `block` node of the graph: the media's metadata, its vector's space, where it came from. */
export interface MediaBlock extends MediaRef {
  id: number;
  createdAt: number;
  /** Fingerprint of the space its vector lives in; "" when it has none (yet). */
  vecModel: string;
  /** The sentences it came with (`sentence --contains--> block`), newest first. */
  sentences: string[];
  /** Turns it came with. */
  turnIds: string[];
}

/** One hit of MediaStore.find. */
export interface MediaHit {
  block: MediaBlock;
  /** Cosine with the query in the unified space. */
  score: number;
}

/** Where a block came from: the sentence (the input's text) and turn that carried it. */
export interface MediaOrigin {
  sentence: string;
  turnId: string;
  sessionId?: string;
}

/** What MediaStore.find looks for: media like a text, or like a stored image. */
export type MediaQuery =
  | { text: string; limit?: number }
  | { like: string; limit?: number };

/** What the store and its space can do, for `status`. */
export interface MediaStatus {
  enabled: boolean;
  blocks: number;
  bytes: number;
  /** The space's fingerprint when it embeds images; absent when it cannot. */
  imageSpace?: string;
  /** Why images are not embedded (the ModalityUnsupported message), when they are not. */
  unsupported?: string;
  /** Blocks whose vector is missing or from another space. */
  stale: number;
}

/** Bounds on what one input may carry. */
export interface MediaLimits {
  /** Bytes of one item. */
  maxBytes: number;
  /** Items of one input. */
  maxItems: number;
  /** Pixels an image header may declare (decompression bombs). */
  maxPixels: number;
}

/** Throw MediaError("too_many") when an input carries more than `limits.maxItems` items. */
export function checkMediaCount(count: number, limits: MediaLimits): void {
  if (count > limits.maxItems) {
    throw new MediaError(
      "too_many",
      `Refused ${count} media items: one input may carry at most ${limits.maxItems} ` +
        `(core.memory.media.max_items)`,
    );
  }
}

/** Options of MediaStore.put. */
export interface MediaPutOptions {
  /** What the sender said the type is; only a hint, the bytes decide. */
  declaredMime?: string;
  signal?: AbortSignal;
}

/**
 * The media store and its graph blocks. Every digest from outside is validated before it
 * touches the disk; `get` re-verifies the bytes. Methods reject with MediaError (or
 * ModalityUnsupportedError from `find` and `embed`), never return damaged bytes.
 */
export interface MediaStore {
  /** False when `core.memory.media.enabled` is off: every method but status rejects. */
  readonly enabled: boolean;
  /** The bounds every input is held to. */
  readonly limits: MediaLimits;
  /** Store `bytes` (once per digest), create its block and embed it when the space can. */
  put(bytes: Uint8Array, options?: MediaPutOptions): Promise<MediaRef>;
  /** The verified bytes of `digest`. */
  get(digest: string): Promise<MediaItem>;
  /** The block of `digest`, or undefined. */
  info(digest: string): Promise<MediaBlock | undefined>;
  /** Tie the block to the sentence and turn it came with. */
  link(digest: string, origin: MediaOrigin): Promise<void>;
  /** Blocks nearest `query` in the unified space (text or image). */
  find(query: MediaQuery, options?: { signal?: AbortSignal }): Promise<MediaHit[]>;
  /** Delete the block, its edges and its bytes; false when there was none. */
  delete(digest: string): Promise<boolean>;
  status(): MediaStatus;
}

/** Media kinds a turn may carry. */
export type MediaFailure =
  | "disabled" // core.memory.media.enabled is off
  | "bad_digest" // not 64 lowercase hex
  | "not_found"
  | "too_large" // over the per-item byte limit
  | "too_many" // more items than one input may carry
  | "too_many_pixels" // a decompression bomb: the header declares more pixels than allowed
  | "type_refused" // the bytes are not an accepted image type
  | "corrupt"; // the stored bytes no longer hash to their digest

/** A media operation that failed; `code` is `media_<failure>`. */
export class MediaError extends HomeAgentError {
  readonly failure: MediaFailure;
  constructor(failure: MediaFailure, message: string, options?: { cause?: unknown }) {
    super(`media_${failure}`, message, options);
    this.failure = failure;
  }
}

/**
 * The current vector space cannot place this modality (ARCHITECTURE.md: the kernel never
 * substitutes another model's vector). `space` is the fingerprint that refused.
 */
export class ModalityUnsupportedError extends HomeAgentError {
  readonly modality: Modality;
  readonly space: string;
  constructor(modality: Modality, space: string, message?: string) {
    super(
      "modality_unsupported",
      message ??
        `The vector space "${space}" cannot embed ${modality}s: configure an ONNX image ` +
          `encoder beside the text model (core.agent.embedding_onnx_image_model)`,
    );
    this.modality = modality;
    this.space = space;
  }
}

/** `sha256:` digests are 64 lowercase hex characters. */
export const DIGEST_PATTERN = /^[0-9a-f]{64}$/;

/** Throw MediaError("bad_digest") unless `digest` is 64 lowercase hex; returns it. */
export function checkDigest(digest: string): string {
  if (typeof digest !== "string" || !DIGEST_PATTERN.test(digest)) {
    throw new MediaError(
      "bad_digest",
      `Invalid media digest ${
        JSON.stringify(String(digest).slice(0, 80))
      }: expected 64 lowercase hex characters (sha256)`,
    );
  }
  return digest;
}

/** A short name of media for people and models: `image/png 12.3 KB sha256:abcd1234`. */
export function describeMedia(ref: MediaRef): string {
  const size = ref.size < 1024
    ? `${ref.size} B`
    : ref.size < 1024 * 1024
    ? `${(ref.size / 1024).toFixed(1)} KB`
    : `${(ref.size / 1024 / 1024).toFixed(1)} MB`;
  return `${ref.mime} ${size} sha256:${ref.digest.slice(0, 12)}`;
}
