/**
 * Which provider a fingerprint belongs to and whether its space knows meaning: read by recall's
 * settings and the status alike, so it depends on no store.
 * @module
 */
import type { EmbeddingKind } from "./config.ts";

const SEMANTIC: readonly EmbeddingKind[] = ["onnx", "static", "http"];

/** The provider behind a fingerprint (for a space handed in rather than configured). */
export function kindOf(fingerprint: string): EmbeddingKind {
  const model = fingerprint.split(":")[0] ?? "";
  if (model.startsWith("hash")) return "hash";
  if (model.startsWith("tfidf")) return "tfidf";
  const provider = model.split("/")[0];
  return provider === "onnx" || provider === "static" || provider === "http" ? provider : "hash";
}

/** Is `kind` a space that knows meaning? */
export function isSemantic(kind: EmbeddingKind): boolean {
  return SEMANTIC.includes(kind);
}
