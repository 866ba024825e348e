/**
 * Token counters by model: gpt-tokenizer's BPE (o200k_base, cl100k_base) for OpenAI-family
 * models, core's calibrated estimate for every other model. An encoding is large (its rank table
 * takes ~0.3 s to load), so it loads only for a model that needs it — in the background after
 * start for the configured sources — and until then, or when loading failed, the model is
 * counted by the estimate, which errs high.
 */
import {
  errorMessage,
  estimateTokens,
  type Logger,
  type TokenCounter,
  type TokenizerFor,
} from "../core/mod.ts";
import { modelToEncodingMap } from "gpt-tokenizer/mapping";

/** The encodings counted exactly; others (gpt2, p50k) belong to models no chat API serves. */
export type EncodingName = "o200k_base" | "cl100k_base";

/** Counters by model, each encoding loaded when a model first needs it. */
export interface Tokenizers {
  /**
   * The counter for `model`. For an OpenAI-family model whose encoding is not loaded yet it
   * starts loading it and counts by the estimate meanwhile; the estimate for every other model.
   */
  counterFor: TokenizerFor;
  /** The encoding `model` is counted with once loaded, or undefined for the estimate. */
  encodingOf(model: string): EncodingName | undefined;
  /** Load the encodings of `models`; rejects when a module fails to load. */
  load(models: readonly string[]): Promise<void>;
  /** load() in the background, logging the outcome (the daemon, right after start). */
  warmUp(models: readonly string[]): void;
}

/** Options of createTokenizers. */
export interface TokenizersOptions {
  /** Characters of texts whose counts are remembered per encoding (prompts repeat); 1,000,000. */
  cacheChars?: number;
  /** Where a failed load is reported (the estimate stays in use); default: not reported. */
  logger?: Logger;
}

type EncodingCount = (text: string, options: { disallowedSpecial: Set<string> }) => number;

const MODULES: Record<EncodingName, () => Promise<{ countTokens: EncodingCount }>> = {
  "o200k_base": () => import("gpt-tokenizer/encoding/o200k_base"),
  "cl100k_base": () => import("gpt-tokenizer/encoding/cl100k_base"),
};

/** Counters by model over gpt-tokenizer. */
export function createTokenizers(options: TokenizersOptions = {}): Tokenizers {
  const loaded = new Map<EncodingName, TokenCounter>();
  const loading = new Map<EncodingName, Promise<void>>();
  const cacheChars = options.cacheChars ?? 1_000_000;
  const loadOne = (encoding: EncodingName) => {
    let promise = loading.get(encoding);
    if (!promise) {
      promise = MODULES[encoding]().then((module) => {
        loaded.set(encoding, cached(ordinary(module.countTokens), cacheChars));
      });
      // A failed load may be tried again later (a transient read error).
      promise.catch(() => loading.delete(encoding));
      loading.set(encoding, promise);
    }
    return promise;
  };
  const load = async (models: readonly string[]) => {
    const wanted = new Set(models.flatMap((m) => encodingFor(m) ?? []));
    await Promise.all([...wanted].map(loadOne));
  };
  return {
    encodingOf: encodingFor,
    counterFor(model) {
      const encoding = encodingFor(model);
      if (encoding === undefined) return estimateTokens;
      const counter = loaded.get(encoding);
      if (counter) return counter;
      loadOne(encoding).catch((error) =>
        options.logger?.warn("Tokenizer failed to load; tokens are counted by estimate", {
          encoding,
          error: errorMessage(error),
        })
      );
      return estimateTokens;
    },
    load,
    warmUp(models) {
      const t0 = performance.now();
      const logger = options.logger;
      load(models).then(
        () => logger?.debug("Tokenizers loaded", { ms: Math.round(performance.now() - t0) }),
        (error) =>
          logger?.warn("Tokenizers failed to load; tokens are counted by estimate", {
            error: errorMessage(error),
          }),
      );
    },
  };
}

const FAMILY = /^(gpt-|chatgpt-|o\d($|-)|codex-|text-embedding-)/;

/**
 * The encoding of an OpenAI-family model: the library's own table by exact name, else by the
 * longest name in it that the model extends (`gpt-4o-2024-11-20` → `gpt-4o`), else o200k_base
 * for a newer model of the family (what OpenAI uses for every model since gpt-4o). A provider
 * prefix (`openai/gpt-4o` on a router) is dropped first. Undefined: not an OpenAI model.
 */
export function encodingFor(model: string): EncodingName | undefined {
  const name = model.trim().toLowerCase().replace(/^openai\//, "");
  const table = modelToEncodingMap as Record<string, string>;
  let best = "";
  if (!(name in table)) {
    for (const known of Object.keys(table)) {
      if (
        known.length > best.length && name.startsWith(known) && /^$|^[-:@]/.test(
          name.slice(known.length),
        )
      ) best = known;
    }
  }
  const encoding = table[name in table ? name : best];
  if (encoding === "o200k_base" || encoding === "o200k_harmony") return "o200k_base";
  if (encoding === "cl100k_base") return "cl100k_base";
  if (encoding !== undefined) return undefined;
  return FAMILY.test(name) ? "o200k_base" : undefined;
}

/**
 * Counts a text as the API tokenizes a message: `<|endoftext|>` typed by someone is ordinary
 * text (gpt-tokenizer throws on special tokens by default). A text it still cannot count is
 * estimated: a counter must not throw.
 */
function ordinary(count: EncodingCount): (text: string) => number {
  const options = { disallowedSpecial: new Set<string>() };
  return (text) => {
    try {
      return count(text, options);
    } catch {
      return estimateTokens(text);
    }
  };
}

/**
 * `count` remembering the counts of recent texts of 64 characters or more, at most `chars`
 * characters of them (the persona, tool schemas and timeline lines recur on every call).
 */
function cached(count: (text: string) => number, chars: number): TokenCounter {
  const memo = new Map<string, number>();
  let held = 0;
  return (text) => {
    if (text.length < 64 || text.length > chars / 8) return count(text);
    const hit = memo.get(text);
    if (hit !== undefined) {
      memo.delete(text); // refresh: the Map's order is the eviction order
      memo.set(text, hit);
      return hit;
    }
    const tokens = count(text);
    memo.set(text, tokens);
    held += text.length;
    for (const old of memo.keys()) {
      if (held <= chars) break;
      memo.delete(old);
      held -= old.length;
    }
    return tokens;
  };
}
