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
import { catalogModel } from "./embed/model_catalog.ts";
import { MODEL_FOR_LANGUAGE } from "./embed/model_choice.ts";
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
  /** The three layers of ARCHITECTURE.md "Vectorization", best first, each with its state. */
  layers: SpaceLayer[];
  reembed: ReembedStatus;
}

/**
 * One layer of the degradation chain: a sentence model (onnx, http), word vectors (static),
 * words (hash, tfidf). A layer above the active one is missing — `failed` with the error, or
 * `not_configured` — and says how to enable it; one below is `standby`.
 */
export interface SpaceLayer {
  layer: "model" | "word_vectors" | "words";
  state: "active" | "failed" | "not_configured" | "standby";
  /** The provider in use or that failed (`onnx`, `static`, `hash`, …). */
  kind?: string;
  /** Why it failed. */
  error?: string;
  /** What to run or set to enable it, for a missing layer. */
  enable?: string;
}

const LAYERS: { layer: SpaceLayer["layer"]; kinds: readonly string[]; enable: string }[] = [
  { layer: "model", kinds: ["onnx", "http"], enable: installHint() },
  {
    layer: "word_vectors",
    kinds: ["static"],
    enable: "`homeagent config set core.agent.embedding static` and " +
      "`core.agent.embedding_model_path` to fastText .vec or Numberbatch files (docs/memory.md)",
  },
  { layer: "words", kinds: ["hash", "tfidf"], enable: "nothing: built in" },
];

/** Each layer's state for the space that was selected after `failures`. */
export function spaceLayers(
  kind: EmbeddingKind,
  failures: readonly EmbeddingError[],
): SpaceLayer[] {
  const active = LAYERS.findIndex((l) => l.kinds.includes(kind));
  return LAYERS.map((layer, i): SpaceLayer => {
    if (i === active) return { layer: layer.layer, state: "active", kind };
    const failure = failures.find((f) => layer.kinds.includes(f.provider));
    if (failure) {
      return {
        layer: layer.layer,
        state: "failed",
        kind: failure.provider,
        error: failure.message,
        enable: layer.enable,
      };
    }
    return i > active
      ? { layer: layer.layer, state: "standby" }
      : { layer: layer.layer, state: "not_configured", enable: layer.enable };
  });
}

/** How to install the model for the home's language (embed/model_choice.ts). */
function installHint(): string {
  const sizes = Object.entries(MODEL_FOR_LANGUAGE).map(([language, name]) => {
    const model = catalogModel(name)!;
    const mib = Math.round((model.model.size + model.tokenizer.size) / 2 ** 20);
    return `${name} for ${language === "zh" ? "Chinese" : "English"}, ${mib} MiB`;
  });
  return `\`homeagent memory model install\` (the model for the home's language: ` +
    `${sizes.join("; ")})`;
}

/** The hint for a space: none when it is semantic, else how to install the default model. */
export function spaceHint(
  kind: EmbeddingKind,
  failures: readonly EmbeddingError[],
): string | undefined {
  if (isSemantic(kind)) return undefined;
  const install = installHint();
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
