/**
 * jieba-wasm, loaded lazily once: its `web` build's glue at start, its wasm (read by
 * _jieba_wasm.ts, which the bundle replaces) compiled on the first Chinese text.
 */
import { EmbeddingError } from "../../core/mod.ts";
import { jiebaWasmBytes } from "./_jieba_wasm.ts";

/** A word and its jieba part-of-speech tag (`n`, `nr`, `ns`, `v`, `x`, …). */
export interface TaggedWord {
  word: string;
  tag: string;
}

/** Chinese segmentation: the two jieba calls the memory layer uses. */
export interface Segmenter {
  /** Words of `text` in order (HMM on, so unknown names stay whole). */
  cut(text: string): string[];
  /** Words with their POS tags. */
  tag(text: string): TaggedWord[];
}

// The wasm package keeps its instance in module state, so one load per process is all there is.
let loading: Promise<Segmenter> | undefined;

/**
 * The shared jieba segmenter (rejects with EmbeddingError when its glue cannot be loaded). Only
 * the glue is loaded now; the wasm (4 MB) is read and compiled on the first cut or tag (~60 ms),
 * which builds the dictionary too (~60 MB, ~0.5 s): only Chinese text needs any of it, so a
 * daemon that sees none stays that much smaller. A wasm that cannot be read or compiled throws
 * EmbeddingError from that first call.
 */
export function loadSegmenter(): Promise<Segmenter> {
  loading ??= load().catch((error) => {
    loading = undefined;
    throw unavailable(error);
  });
  return loading;
}

async function load(): Promise<Segmenter> {
  const jieba = await import("jieba-wasm/web");
  let ready = false;
  const init = () => {
    if (ready) return;
    try {
      jieba.initSync({ module: new WebAssembly.Module(jiebaWasmBytes()) });
    } catch (error) {
      throw unavailable(error);
    }
    ready = true;
  };
  return {
    cut: (text) => (init(), jieba.cut(text, true)),
    tag: (text) => (init(), jieba.tag(text, true)),
  };
}

function unavailable(error: unknown): EmbeddingError {
  return new EmbeddingError("jieba", "unavailable", `Cannot load jieba-wasm: ${error}`, {
    cause: error,
  });
}
