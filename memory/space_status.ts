/**
 * What `status`, the start log and the web UI say about the vector space: which one is active,
 * whether it knows meaning, what failed on the way there, how to enable the better one, and how
 * far re-embedding has come.
 * @module
 */
import type { EmbeddingError, RelevanceContext } from "../core/mod.ts";
import type { DocStore } from "./docs/store.ts";
import type { GraphDB } from "./graph/db.ts";
import type { EmbeddingKind } from "./embed/config.ts";
import { isSemantic } from "./embed/kind.ts";
import { catalogModel, DEFAULT_MODEL } from "./embed/model_catalog.ts";
import type { ReembedStatus, ReembedTarget } from "./embed/reembed.ts";

/** The vector space as the status reports it. */
export interface VectorSpaceStatus {
  /** The fingerprint of the space in use. */
  fingerprint: string;
  kind: EmbeddingKind;
  /** The installed model, for `onnx`. */
  model?: string;
  /** True for spaces that know meaning (onnx, static, http), false for hash and tfidf. */
  semantic: boolean;
  /** Why layers before this one could not serve (explicit, never silent). */
  problems: string[];
  /** What to do for recall by meaning, when the space lacks it. */
  hint?: string;
  reembed: ReembedStatus;
}

/** The hint for a space: none when it is semantic, else how to install the default model. */
export function spaceHint(
  kind: EmbeddingKind,
  failures: readonly EmbeddingError[],
): string | undefined {
  if (isSemantic(kind)) return undefined;
  const model = catalogModel(DEFAULT_MODEL)!;
  const mib = Math.round((model.model.size + model.tokenizer.size) / 2 ** 20);
  const install = `\`homeagent memory model install\` (${model.name}, ${mib} MiB)`;
  return failures.length > 0
    ? `The configured vector space failed (${failures[0]!.message}); recall matches words only ` +
      `until it is fixed or a model is installed with ${install}`
    : `Recall matches words and characters only; for recall by meaning install a sentence ` +
      `model with ${install}`;
}

/** The three tiers as re-embedding targets. */
export function reembedTargets(tiers: {
  context: RelevanceContext;
  documents: DocStore;
  graph: GraphDB;
}): ReembedTarget[] {
  return [
    {
      tier: "context",
      stale: () => tiers.context.staleVectors(),
      run: async (o) => {
        const done = await tiers.context.reembed(o);
        o.onProgress(done);
        return done;
      },
    },
    {
      tier: "documents",
      stale: () => tiers.documents.staleVectors(),
      run: (o) => tiers.documents.reembedStale(o),
    },
    {
      tier: "graph",
      stale: () => tiers.graph.staleEntities(),
      run: (o) => tiers.graph.reembedStale(o),
    },
  ];
}
