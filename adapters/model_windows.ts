/** Context windows of well-known model families, for sources that declare none. */
import type { Logger } from "../core/mod.ts";

/** The window assumed for a model the table does not know: small, so budgets stay safe. */
export const FALLBACK_CONTEXT_WINDOW = 8192;

/**
 * Model-name patterns and their windows in tokens, most specific first. Names are matched
 * lower-cased anywhere in the id, so `openai/gpt-4o-mini` and `llama3.1:8b` both match.
 * Where a family's variants differ, the smaller common window is used.
 */
export const MODEL_WINDOWS: readonly (readonly [RegExp, number])[] = [
  [/gpt-4\.1/, 1_047_576],
  [/gpt-5/, 400_000],
  [/gpt-4o|chatgpt-4o|gpt-4-turbo|gpt-4-\d{4}-preview/, 128_000],
  [/gpt-4-32k/, 32_768],
  [/gpt-4/, 8_192],
  [/gpt-3\.5-turbo/, 16_385],
  [/gpt-oss/, 131_072],
  [/(^|[/:])o[134](-|$)/, 200_000],
  [/claude/, 200_000],
  [/gemini/, 1_048_576],
  [/gemma-?3/, 131_072],
  [/gemma/, 8_192],
  [/deepseek-(chat|reasoner)/, 65_536],
  [/deepseek/, 131_072],
  [/qwen.*(plus|turbo|long)/, 131_072],
  [/qwen/, 32_768],
  [/llama-?3\.[1-3]|llama-?4/, 131_072],
  [/llama-?3/, 8_192],
  [/llama-?2/, 4_096],
  [/codestral/, 262_144],
  [/mixtral/, 32_768],
  [/mistral-(large|medium|small)|ministral|mistral-nemo|magistral|pixtral/, 131_072],
  [/mistral/, 32_768],
  [/command-r|command-a/, 128_000],
  [/grok/, 131_072],
  [/phi-?4/, 16_384],
  [/kimi|moonshot/, 131_072],
  [/glm-4/, 128_000],
];

/** Options of contextWindowFor. */
export interface ContextWindowOptions {
  /** The source's declared window; a positive value wins over the table. */
  declared?: number;
  /** Told when neither the source nor the table knows the model. */
  logger?: Logger;
}

/** The context window of `model` in tokens: declared, else the table, else 8192 with a warning. */
export function contextWindowFor(model: string, options: ContextWindowOptions = {}): number {
  if (options.declared && options.declared > 0) return options.declared;
  const name = model.toLowerCase();
  for (const [pattern, tokens] of MODEL_WINDOWS) {
    if (pattern.test(name)) return tokens;
  }
  options.logger?.warn(
    `Context window of model "${model}" is unknown; assuming ${FALLBACK_CONTEXT_WINDOW} tokens. ` +
      "Set core.llm.sources.<name>.context_window to declare it.",
    { model, window: FALLBACK_CONTEXT_WINDOW },
  );
  return FALLBACK_CONTEXT_WINDOW;
}
