/**
 * The embedding Worker: holds one Runner and answers run requests one at a time, so a session
 * run (tens of milliseconds per batch) never blocks the daemon's event loop. Protocol: see
 * WorkerRequest / WorkerReply in `_onnx_backend.ts`.
 * @module
 */
/// <reference lib="deno.worker" />
import { createRunner, type Runner, warmUp } from "./_onnx_runner.ts";
import type { WorkerReply, WorkerRequest } from "./_onnx_backend.ts";

// onnxruntime-web resolves its own URL against `location.origin` when there is a location; a
// worker loaded from a file: URL has the origin "null", which makes that throw. The wasm comes
// as bytes, so no location is needed: hide it before the library loads.
Object.defineProperty(globalThis, "location", { value: undefined, configurable: true });

let runner: Runner | undefined;
/** Session runs one at a time: a request waits for the warm-up run in flight, not all of them. */
let running: Promise<unknown> = Promise.resolve();
let waiting = 0;

function serial<T>(fn: () => Promise<T>): Promise<T> {
  const next = running.then(fn);
  running = next.catch(() => {});
  return next;
}

function reply(message: WorkerReply, transfer: Transferable[] = []): void {
  self.postMessage(message, transfer);
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  const message = event.data;
  switch (message.type) {
    case "load":
      try {
        runner = await createRunner(message.spec);
        reply({ type: "ready", dim: runner.dim, engine: runner.engine, fallback: runner.fallback });
        const warm = runner;
        // Off the reply's path: the daemon starts meanwhile, and its queries go first. A failed
        // warm-up run is not reported here: the session is the same, so the next request says it.
        // Native code needs no tier-up: a few runs only size its arena.
        warmUp(
          (texts) => serial(() => warm.run(texts)),
          () => waiting === 0 && runner === warm,
          warm.engine === "native" ? 3 : 24,
        ).catch(() => {});
      } catch (error) {
        reply({ type: "failed", message: reason(error) });
      }
      return;
    case "run":
      try {
        if (!runner) throw new Error("the model is not loaded");
        const loaded = runner;
        waiting++;
        const vectors = await serial(() => loaded.run(message.texts)).finally(() => waiting--);
        const dim = loaded.dim;
        const flat = new Float32Array(vectors.length * dim);
        vectors.forEach((v, i) => flat.set(v, i * dim));
        reply({ type: "vectors", id: message.id, data: flat, dim }, [flat.buffer]);
      } catch (error) {
        reply({ type: "error", id: message.id, message: reason(error) });
      }
      return;
    case "close":
      {
        const loaded = runner;
        runner = undefined;
        await serial(async () => await loaded?.release()).catch(() => {});
      }
      reply({ type: "closed" });
      self.close();
  }
};
