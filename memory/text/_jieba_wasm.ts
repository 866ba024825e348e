/**
 * jieba's wasm bytes, read when the segmenter first runs. From the checkout they are the
 * package's file; the one-file bundle replaces this module with one that decodes the copy it
 * carries (.ci/bundle.ts), so neither holds the 4 MB before Chinese text needs them.
 */

/** The bytes of jieba-wasm's `web` build. */
export function jiebaWasmBytes(): Uint8Array<ArrayBuffer> {
  const url = new URL("jieba_rs_wasm_bg.wasm", import.meta.resolve("jieba-wasm/web"));
  return Deno.readFileSync(url);
}
