/**
 * jieba-wasm, loaded lazily once. The `web` build is initialised from the wasm bytes, taken
 * from a raw import (so a bundle inlines them) or, when that file is not resolvable yet (a
 * fresh checkout whose node_modules is being populated), read from beside the package.
 */
import { EmbeddingError } from "../../core/mod.ts";

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

/** The shared jieba segmenter, initialised on first call (~30–100 ms); rejects with EmbeddingError. */
export function loadSegmenter(): Promise<Segmenter> {
  loading ??= load().catch((error) => {
    loading = undefined;
    throw new EmbeddingError("jieba", "unavailable", `Cannot load jieba-wasm: ${error}`, {
      cause: error,
    });
  });
  return loading;
}

async function load(): Promise<Segmenter> {
  const jieba = await import("jieba-wasm/web");
  const module = await WebAssembly.compile(await wasmBytes());
  jieba.initSync({ module });
  return {
    cut: (text) => jieba.cut(text, true),
    tag: (text) => jieba.tag(text, true),
  };
}

async function wasmBytes(): Promise<Uint8Array<ArrayBuffer>> {
  try {
    const raw = await import("#jieba-wasm-bytes", { with: { type: "bytes" } });
    return raw.default as Uint8Array<ArrayBuffer>;
  } catch {
    const url = new URL("jieba_rs_wasm_bg.wasm", import.meta.resolve("jieba-wasm/web"));
    return await Deno.readFile(url);
  }
}
