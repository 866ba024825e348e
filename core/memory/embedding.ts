/**
 * The vector-space contract (ARCHITECTURE.md "Vectorization"). Types only: the providers live
 * in memory/, the kernel scores with whatever Embedder it is handed.
 * @module
 */

/** What an embedder can place in its space. */
export type Modality = "text" | "image";

/**
 * Who waits for an embedding: the owner's turn (`interactive`, the default) or upkeep such as
 * re-embedding memories in another space (`background`). A provider that queues serves the
 * owner first; one that does not may ignore it.
 */
export type EmbedPriority = "interactive" | "background";

/** Options of Embedder.embed. */
export interface EmbedOptions {
  /** Cancels the call; it then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Default `interactive`. */
  priority?: EmbedPriority;
}

/**
 * One vector space. `embed` returns one L2-normalised vector of length `dim` per text, in
 * order (dot product = cosine); a text with no usable feature yields the zero vector, which
 * scores 0 against everything. It rejects with EmbeddingError when the layer is missing or
 * fails, never with made-up vectors.
 */
export interface Embedder {
  /** `model:version:dim`, e.g. `hash-ngram:v1:512`: vectors compare only within one fingerprint. */
  readonly fingerprint: string;
  /** Length of every vector. */
  readonly dim: number;
  /**
   * Languages (ISO 639-1) the model behind the space was trained for, best first; absent when
   * it does not say (recall then trusts its vectors in every script).
   */
  readonly languages?: readonly string[];
  /** What it embeds; `["text"]` for every provider so far. */
  readonly modalities: readonly Modality[];
  /** Embed `texts`, one vector each; an empty list resolves to an empty list. */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
  /** Release what it holds (a model, a Worker); embed rejects afterwards. Optional. */
  close?(): Promise<void>;
  /**
   * Present only when `modalities` holds "image": embeds encoded images (PNG, JPEG) into the
   * same space as the texts. Rejects with EmbeddingError for bytes it cannot decode.
   */
  embedImages?(images: readonly ImageInput[], options?: EmbedOptions): Promise<Float32Array[]>;
}

/** One encoded image handed to an embedder. */
export interface ImageInput {
  bytes: Uint8Array;
  mime: string;
}

/** A vector as it is stored: always together with the fingerprint of the space it lives in. */
export interface StoredVector {
  fingerprint: string;
  vector: Float32Array;
}

/** Why an embedding layer could not serve. */
export type EmbeddingFailureKind =
  | "unavailable" // not configured, or a file/endpoint it needs is missing
  | "failed" // it was there but failed: bad file, HTTP error, checksum mismatch, wrong shape
  | "mismatch"; // vectors from another space (fingerprint or dimension differs)
