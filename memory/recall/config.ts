/**
 * Recall's settings (`core.memory.recall.*`, docs/configuration.md): how the dense and keyword
 * sides are mixed and how many recent turns make the query. Read at every recall, so a change
 * applies to the next turn. The defaults were chosen on MADial-Bench (docs/memory.md).
 */
import { z } from "zod";
import type { ConfigRegistry, Embedder } from "../../core/mod.ts";
import { isSemantic, kindOf } from "../embed/kind.ts";
import { scriptCoverage } from "../text/scripts.ts";

/** What one recall uses. */
export interface RecallSettings {
  /** Weight of the dense side (the keyword side gets the rest), for the space in use. */
  denseWeight: number;
  /** Weight of the dense side for words in a script the model was not trained for. */
  foreignWeight?: number;
  /** Languages the space's model was trained for; absent: every script counts as covered. */
  languages?: readonly string[];
  /** Recent turns in the query, the current input included. */
  turns: number;
  /** Weight of a turn relative to the one after it. */
  decay: number;
}

/** Where a store reads its settings from, at every query. */
export type RecallSettingsSource = () => RecallSettings;

const KEYS = {
  dense: {
    key: "core.memory.recall.dense_weight",
    schema: () => z.number().min(0).max(1),
    default: 0.7,
    description: "Weight of the vector side in recall's mix, for a space that knows meaning " +
      "(a model, word vectors, an HTTP endpoint); the keyword side gets the rest",
  },
  denseWords: {
    key: "core.memory.recall.dense_weight_words",
    schema: () => z.number().min(0).max(1),
    default: 0.3,
    description: "The same for a words-only space (hash, tfidf), whose vectors are weak",
  },
  denseForeign: {
    key: "core.memory.recall.dense_weight_foreign",
    schema: () => z.number().min(0).max(1),
    default: 0,
    description: "The same for query words in a script the space's model was not trained for " +
      "(English for a Chinese model): its vectors there are noise, so words decide",
  },
  turns: {
    key: "core.memory.recall.turns",
    schema: () => z.int().min(1).max(64),
    default: 8,
    description: "Recent turns (inputs and replies) recall's query is built from",
  },
  decay: {
    key: "core.memory.recall.recency_decay",
    schema: () => z.number().gt(0).max(1),
    default: 0.7,
    description: "Weight of each turn relative to the next newer one in recall's query",
  },
  recalledTurns: {
    key: "core.memory.recall.recalled_turns",
    schema: () => z.int().min(0).max(10_000),
    default: 10,
    description: "Turns a fact the model fetched with memory_recall stays out of the " +
      "automatic [Memory Index] (0: not at all)",
  },
  recalledMinutes: {
    key: "core.memory.recall.recalled_minutes",
    schema: () => z.number().min(0).max(525_600),
    default: 30,
    description: "Minutes the same holds at most, whatever the turns",
  },
} as const;

/** How long a recalled mark holds (memory/recall/marks.ts). */
export interface MarkLifetime {
  /** Automatic recalls (turns) a mark holds for, its own turn not counted. */
  turns: number;
  /** Milliseconds a mark holds for. */
  ms: number;
}

/** The lifetime when no config is handed in: the keys' defaults. */
export const DEFAULT_MARK_LIFETIME: MarkLifetime = {
  turns: KEYS.recalledTurns.default,
  ms: KEYS.recalledMinutes.default * 60_000,
};

/** The recalled marks' lifetime in `registry` (keys registered), read on each call. */
export function markLifetimeFrom(registry: Pick<ConfigRegistry, "get">): () => MarkLifetime {
  return () => ({
    turns: registry.get<number>(KEYS.recalledTurns.key),
    ms: registry.get<number>(KEYS.recalledMinutes.key) * 60_000,
  });
}

/** The settings a store uses when none are handed in: the defaults for `embedder`'s space. */
export function defaultRecallSettings(
  embedder: Pick<Embedder, "fingerprint" | "languages">,
): RecallSettings {
  return {
    denseWeight: isSemantic(kindOf(embedder.fingerprint))
      ? KEYS.dense.default
      : KEYS.denseWords.default,
    foreignWeight: KEYS.denseForeign.default,
    languages: embedder.languages,
    turns: KEYS.turns.default,
    decay: KEYS.decay.default,
  };
}

/** Define the `core.memory.recall.*` keys. Throws TypeError when called twice. */
export function registerRecallDefaults(registry: ConfigRegistry): void {
  for (const k of Object.values(KEYS)) {
    registry.define({
      key: k.key,
      schema: k.schema,
      default: k.default,
      description: k.description,
    });
  }
}

/** The settings in `registry` (keys registered) for `embedder`'s space, read on each call. */
export function recallSettingsFrom(
  registry: Pick<ConfigRegistry, "get">,
  embedder: Pick<Embedder, "fingerprint" | "languages">,
): RecallSettingsSource {
  const semantic = isSemantic(kindOf(embedder.fingerprint));
  return () => ({
    denseWeight: registry.get<number>(semantic ? KEYS.dense.key : KEYS.denseWords.key),
    foreignWeight: registry.get<number>(KEYS.denseForeign.key),
    languages: embedder.languages,
    turns: registry.get<number>(KEYS.turns.key),
    decay: registry.get<number>(KEYS.decay.key),
  });
}

/**
 * The dense weight for a query of `texts`: the space's, moved toward the foreign-script weight
 * by the share of the query's words in scripts the model was not trained for (text/scripts.ts).
 * Measured on MADial-Bench (docs/memory.md "Hybrid recall"): an English model's vectors on
 * Chinese at 0.3 took recall@10 from 0.574 (words alone) to 0.550, a Chinese model's on
 * English from 0.601 to 0.597.
 */
export function denseWeightFor(settings: RecallSettings, texts: readonly string[]): number {
  const foreign = settings.foreignWeight ?? settings.denseWeight;
  return foreign + (settings.denseWeight - foreign) * scriptCoverage(texts, settings.languages);
}
