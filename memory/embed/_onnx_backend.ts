/**
 * Where an ONNX model runs: in a Worker (the default: session runs stay off the event loop, so
 * turns and timers go on while memories are re-embedded), or inline on the caller's thread
 * where a Worker cannot start (a one-file bundle has no worker module to load). A Worker that
 * dies is started again on the next request, from the files, up to three times.
 * @module
 */
import { createRunner, type Engine, type RunnerSpec } from "./_onnx_runner.ts";

/** Messages to the Worker. */
export type WorkerRequest =
  | { type: "load"; spec: RunnerSpec }
  | { type: "run"; id: number; texts: string[] }
  | { type: "close" };

/** Messages from the Worker. */
export type WorkerReply =
  | { type: "ready"; dim: number; engine: Engine; fallback?: string }
  | { type: "failed"; message: string }
  | { type: "vectors"; id: number; data: Float32Array; dim: number }
  | { type: "error"; id: number; message: string }
  | { type: "closed" };

/** A running model. `run` calls are serialised by the caller (one at a time). */
export interface Backend {
  readonly dim: number;
  readonly where: "worker" | "inline";
  readonly engine: Engine;
  /** Why the native engine was not used, when it was not. */
  readonly fallback?: string;
  /** Rejects with an Error saying why the model failed. */
  run(texts: string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** The worker module could not start at all (as opposed to the model failing inside it). */
export class WorkerStartError extends Error {}

/** The model on the caller's thread. */
export async function startInlineBackend(spec: RunnerSpec): Promise<Backend> {
  const runner = await createRunner(spec);
  return {
    dim: runner.dim,
    where: "inline",
    engine: runner.engine,
    fallback: runner.fallback,
    run: (texts) => runner.run(texts),
    close: () => runner.release(),
  };
}

const MAX_RESTARTS = 3;

/** The worker module, beside this file (absent in a one-file bundle). */
export const WORKER_URL = new URL("./_onnx_worker.ts", import.meta.url).href;

/**
 * The model in a Worker; `loadSpec` reads the files (again after a crash). Rejects with
 * WorkerStartError when the worker module cannot load, with an Error when the model fails.
 */
export async function startWorkerBackend(
  loadSpec: () => Promise<RunnerSpec>,
  workerUrl: string = WORKER_URL,
): Promise<Backend> {
  let current = await WorkerProcess.start(await loadSpec(), workerUrl);
  let restarts = 0;
  return {
    dim: current.dim,
    where: "worker",
    get engine() {
      return current.engine;
    },
    get fallback() {
      return current.fallback;
    },
    async run(texts) {
      if (current.dead) {
        if (restarts >= MAX_RESTARTS) {
          throw new Error(`the embedding worker stopped ${restarts + 1} times; restart the daemon`);
        }
        restarts++;
        current = await WorkerProcess.start(await loadSpec(), workerUrl);
      }
      return await current.run(texts);
    },
    close: () => current.close(),
  };
}

class WorkerProcess {
  dim = 0;
  engine: Engine = "wasm";
  fallback: string | undefined;
  dead = false;
  #worker: Worker;
  #nextId = 1;
  #pending = new Map<number, PromiseWithResolvers<Float32Array[]>>();
  #closed = Promise.withResolvers<void>();

  private constructor(worker: Worker) {
    this.#worker = worker;
  }

  static async start(spec: RunnerSpec, url: string): Promise<WorkerProcess> {
    let worker: Worker;
    try {
      worker = new Worker(url, { type: "module" });
    } catch (error) {
      throw new WorkerStartError(String(error), { cause: error });
    }
    const process = new WorkerProcess(worker);
    const ready = Promise.withResolvers<number>();
    worker.onmessage = (event: MessageEvent<WorkerReply>) => {
      const m = event.data;
      if (m.type === "ready") {
        process.engine = m.engine;
        process.fallback = m.fallback;
        ready.resolve(m.dim);
      } else if (m.type === "failed") ready.reject(new Error(m.message));
      else process.#onReply(m);
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault(); // an error inside the worker must not end the daemon
      ready.reject(new WorkerStartError(event.message));
      process.#die(new Error(`the embedding worker failed: ${event.message}`));
    };
    const request: WorkerRequest = { type: "load", spec };
    worker.postMessage(request, [spec.model.buffer as ArrayBuffer]);
    try {
      process.dim = await ready.promise;
    } catch (error) {
      worker.terminate();
      throw error;
    }
    return process;
  }

  run(texts: string[]): Promise<Float32Array[]> {
    if (this.dead) return Promise.reject(new Error("the embedding worker has stopped"));
    const id = this.#nextId++;
    const pending = Promise.withResolvers<Float32Array[]>();
    this.#pending.set(id, pending);
    const request: WorkerRequest = { type: "run", id, texts };
    this.#worker.postMessage(request);
    return pending.promise;
  }

  async close(): Promise<void> {
    if (this.dead) return;
    const request: WorkerRequest = { type: "close" };
    this.#worker.postMessage(request);
    // The worker answers once its session is released; a hung one is ended after 2 s.
    const timer = setTimeout(() => this.#closed.resolve(), 2_000);
    await this.#closed.promise;
    clearTimeout(timer);
    this.#die(new Error("the embedder is closed"));
  }

  #onReply(m: WorkerReply): void {
    if (m.type === "closed") return this.#closed.resolve();
    if (m.type !== "vectors" && m.type !== "error") return;
    const pending = this.#pending.get(m.id);
    if (!pending) return;
    this.#pending.delete(m.id);
    if (m.type === "error") return pending.reject(new Error(m.message));
    const count = m.dim === 0 ? 0 : m.data.length / m.dim;
    // Copies, so a stored vector does not keep the whole reply's buffer alive.
    pending.resolve(
      Array.from({ length: count }, (_, i) => m.data.slice(i * m.dim, (i + 1) * m.dim)),
    );
  }

  #die(reason: Error): void {
    if (this.dead) return;
    this.dead = true;
    this.#worker.terminate();
    for (const pending of this.#pending.values()) pending.reject(reason);
    this.#pending.clear();
    this.#closed.resolve();
  }
}
