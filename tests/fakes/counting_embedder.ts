/** An embedder that records every text it is asked to embed, with the call's priority. */
import type { Embedder, EmbedPriority } from "../../core/mod.ts";
import { createHashEmbedder } from "../../memory/mod.ts";

/** One text handed to the embedder. */
export interface EmbedCall {
  text: string;
  priority: EmbedPriority;
}

/** `inner` (default a 128-dimension hash space), recording its calls in `calls`. */
export function countingEmbedder(
  inner: Embedder = createHashEmbedder({ dim: 128 }),
): { embedder: Embedder; calls: EmbedCall[] } {
  const calls: EmbedCall[] = [];
  return {
    calls,
    embedder: {
      ...inner,
      embed(texts, options) {
        for (const text of texts) {
          calls.push({ text, priority: options?.priority ?? "interactive" });
        }
        return inner.embed(texts, options);
      },
    },
  };
}
