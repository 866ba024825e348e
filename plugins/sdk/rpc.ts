/**
 * One side of a newline-delimited JSON-RPC 2.0 connection, shared by the plugin host and the
 * plugin SDK. IO is injected: the owner feeds received bytes to `receive()` and gives a
 * `write` function; frames produced in one tick go out in one write.
 *
 * Only a request with an id is ever answered. A notification, a response, an `id: null` error
 * and a line that is not JSON are never answered (they are reported to `onProtocolError`), so
 * two peers cannot fall into answering each other's complaints forever. Requests in flight are
 * bounded both ways: past the bound a call is refused at once with `busy`.
 */
import {
  ErrorCode,
  MAX_FRAME_BYTES,
  MAX_IN_FLIGHT,
  RpcError,
  type RpcErrorObject,
  type RpcFrame,
} from "./protocol.ts";
import { CallTable, type PendingCall, type SetTimer } from "./calls.ts";
import { LineSplitter } from "./line_splitter.ts";

/** Handles an incoming request; throw RpcError for a specific code. May be async. */
export type RequestHandler = (method: string, params: unknown, id: number | string) => unknown;

/** Handles an incoming notification; must not throw. */
export type NotificationHandler = (method: string, params: unknown) => void;

export type { SetTimer } from "./calls.ts";

/** Options of a JsonRpcPeer. */
export interface JsonRpcPeerOptions {
  /** Write `frames` frames (as bytes) to the other side; must not throw (catch a broken pipe inside). */
  write(bytes: Uint8Array, frames: number): void;
  /**
   * `write` is done with `bytes` when it returns (a synchronous write): the peer then encodes
   * into one buffer it reuses, instead of allocating one per batch.
   */
  reuseBuffer?: boolean;
  /**
   * Takes the frames as text instead of `write`, when given: the owner encodes them (the host
   * into buffers it takes back once the pipe has them).
   */
  writeText?(text: string, frames: number): void;
  onRequest: RequestHandler;
  onNotification?: NotificationHandler;
  /** A malformed, oversized or unexpected frame: logged by the owner. */
  onProtocolError?: (message: string, detail?: Record<string, unknown>) => void;
  maxFrameBytes?: number;
  /** Requests sent and not yet answered; more are refused with `busy`. Default MAX_IN_FLIGHT. */
  maxPending?: number;
  /** Requests received and still being served; more are answered `busy`. Default MAX_IN_FLIGHT. */
  maxInflight?: number;
  /** The other side, for error messages (`Plugin "x"`, `The kernel`). */
  remote?: string;
  /** Timer source for request timeouts (the host passes its Clock). */
  setTimer?: SetTimer;
  /** Monotonic milliseconds, on the same clock as setTimer; default performance.now. */
  now?: () => number;
}

/** Options of one request. */
export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Checks the result before the caller gets it and returns what the caller gets; throwing
   * rejects the call with that error. Run where the frame is read, not in a `then` of its own
   * (one more hop on every answer).
   */
  accept?: (result: unknown) => unknown;
}

const encoder = new TextEncoder();
/** Frames of one tick go out in one write up to about this many characters. */
const BATCH_CHARS = 64 * 1024;
/** Size of the reused output buffer (`reuseBuffer`): a full batch of ASCII frames. */
const REUSED_BYTES = 3 * BATCH_CHARS;
/** Resolve `entry` with what its check makes of `result`, or reject it with why not. */
function settle(entry: PendingCall, result: unknown): void {
  let value: unknown;
  try {
    value = entry.accept!(result);
  } catch (error) {
    return entry.reject(error);
  }
  entry.resolve(value);
}

/** A JSON-RPC peer: sends requests and notifications, answers requests, matches responses. */
export class JsonRpcPeer {
  #options: JsonRpcPeerOptions;
  #splitter: LineSplitter;
  #pending: CallTable;
  #nextId = 1;
  #out: string[] = [];
  #outLength = 0;
  #scratch: Uint8Array | undefined;
  #flushScheduled = false;
  #closed: Error | undefined;
  #maxFrameBytes: number;
  #maxPending: number;
  #maxInflight: number;
  #inflight = 0;

  constructor(options: JsonRpcPeerOptions) {
    this.#options = options;
    this.#maxFrameBytes = options.maxFrameBytes ?? MAX_FRAME_BYTES;
    this.#splitter = new LineSplitter(this.#maxFrameBytes);
    this.#maxPending = options.maxPending ?? MAX_IN_FLIGHT;
    this.#maxInflight = options.maxInflight ?? MAX_IN_FLIGHT;
    this.#pending = new CallTable({
      setTimer: options.setTimer,
      now: options.now,
      giveUp: (id, call, error) => {
        this.notify("$/cancel", { id });
        call.reject(error);
      },
    });
  }

  /** Requests still waiting for their response. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Send a request; resolves with its result, rejects with RpcError (timeout, error, close). */
  request(method: string, params?: unknown, options: RequestOptions = {}): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#closed);
    if (options.signal?.aborted) {
      return Promise.reject(new RpcError(ErrorCode.cancelled, `Call "${method}" was cancelled`));
    }
    if (this.#pending.size >= this.#maxPending) {
      const who = this.#options.remote ?? "The peer";
      return Promise.reject(
        new RpcError(
          ErrorCode.busy,
          `${who} has ${this.#pending.size} calls in flight; "${method}" refused`,
        ),
      );
    }
    // Every tool call runs through here: one object per call, no closure, no async wrapper
    // (each allocation and hop is on the call's round trip).
    const id = this.#nextId++;
    const { promise, resolve, reject } = Promise.withResolvers<unknown>();
    const entry: PendingCall = { resolve, reject, method };
    if (options.accept) entry.accept = options.accept;
    this.#pending.add(id, entry, options.timeoutMs, options.signal);
    this.#send({ jsonrpc: "2.0", id, method, params });
    return promise;
  }

  /** Send a notification (no response). Dropped silently after close. */
  notify(method: string, params?: unknown): void {
    if (!this.#closed) this.#send({ jsonrpc: "2.0", method, params });
  }

  /** Feed bytes read from the other side; ignored after close. */
  receive(chunk: Uint8Array): void {
    this.#splitter.push(chunk, this.#onLine, this.#onOversize);
  }

  // Made once, not per chunk: every answer passes here.
  #onLine = (line: string): void => {
    if (!this.#closed) this.#line(line);
  };

  #onOversize = (bytes: number): void => {
    // Its id is unreadable, so there is nobody to answer: the caller's request times out.
    if (this.#closed) return;
    this.#options.onProtocolError?.("Frame too large; refused", {
      bytes,
      limit: this.#maxFrameBytes,
    });
  };

  /** Reject every pending request with `error`; later requests reject at once. */
  close(error: Error = new RpcError(ErrorCode.internalError, "Connection closed")): void {
    if (this.#closed) return;
    this.#closed = error;
    this.#pending.close(error);
  }

  #line(line: string): void {
    // A blank line is skipped; trim() only when it starts blank (every frame starts with "{").
    if (line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === "")) return;
    let frame: unknown;
    try {
      frame = JSON.parse(line);
    } catch (error) {
      // Not answered: a reply with id null invites the same garbage back, forever.
      this.#options.onProtocolError?.("Malformed frame; not JSON", {
        error: error instanceof Error ? error.message : String(error),
        frame: line.slice(0, 200),
      });
      return;
    }
    this.#dispatch(frame);
  }

  #dispatch(frame: unknown): void {
    if (typeof frame !== "object" || frame === null || Array.isArray(frame)) {
      return this.#invalid(frame);
    }
    const f = frame as Record<string, unknown>;
    const id = typeof f.id === "number" || typeof f.id === "string" ? f.id : undefined;
    const isRequest = typeof f.method === "string";
    if (f.jsonrpc !== "2.0") return this.#invalid(frame, isRequest ? id : undefined);
    if (isRequest) {
      if (!("id" in f)) this.#options.onNotification?.(f.method as string, f.params);
      else if (id === undefined) this.#invalid(frame); // id null or not a number/string
      else this.#handle(f.method as string, f.params, id);
      return;
    }
    if (id === undefined || !("result" in f || "error" in f)) {
      if (f.id === null && "error" in f) {
        this.#options.onProtocolError?.("Peer reported an error", { error: f.error });
        return;
      }
      return this.#invalid(frame);
    }
    const entry = this.#pending.take(id);
    if (!entry) {
      // A late answer to a call that timed out, or a made-up one: never answered.
      this.#options.onProtocolError?.("Unexpected response; no call has this id", { id });
      return;
    }
    if ("error" in f) {
      const e = f.error as Partial<RpcErrorObject> | undefined;
      entry.reject(
        new RpcError(
          typeof e?.code === "number" ? e.code : ErrorCode.internalError,
          typeof e?.message === "string" ? e.message : "Unknown error",
          e?.data,
        ),
      );
    } else if (entry.accept) settle(entry, f.result);
    else entry.resolve(f.result);
  }

  /** Report an invalid frame; answer it only when it is a request with a usable id. */
  #invalid(frame: unknown, requestId?: number | string): void {
    this.#options.onProtocolError?.("Invalid JSON-RPC frame", {
      frame: JSON.stringify(frame)?.slice(0, 200),
    });
    if (requestId === undefined) return;
    this.#respondError(
      requestId,
      ErrorCode.invalidRequest,
      "Invalid request: not a JSON-RPC 2.0 frame",
    );
  }

  #handle(method: string, params: unknown, id: number | string): void {
    if (this.#inflight >= this.#maxInflight) {
      const message = `${this.#inflight} requests are being served; "${method}" refused`;
      this.#options.onProtocolError?.("Request refused: too many in flight", { method, id });
      return this.#respondError(id, ErrorCode.busy, message);
    }
    let value: unknown;
    try {
      value = this.#options.onRequest(method, params, id);
    } catch (error) {
      return this.#fail(id, error);
    }
    if (value instanceof Promise) {
      this.#inflight++;
      value.then(
        (result) => {
          this.#inflight--;
          this.#send({ jsonrpc: "2.0", id, result: result ?? null });
        },
        (error) => {
          this.#inflight--;
          this.#fail(id, error);
        },
      );
    } else this.#send({ jsonrpc: "2.0", id, result: value ?? null });
  }

  #fail(id: number | string, error: unknown): void {
    if (error instanceof RpcError) {
      const body: RpcErrorObject = { code: error.code, message: error.message };
      if (error.data !== undefined) body.data = error.data;
      this.#send({ jsonrpc: "2.0", id, error: body });
    } else {
      const message = error instanceof Error ? error.message : String(error);
      this.#respondError(id, ErrorCode.internalError, message);
    }
  }

  #respondError(id: number | string, code: number, message: string): void {
    this.#send({ jsonrpc: "2.0", id, error: { code, message } });
  }

  #send(frame: RpcFrame): void {
    let text: string;
    try {
      text = JSON.stringify(frame);
    } catch (error) {
      // a result that cannot be serialised (a cycle, a BigInt) still gets an answer
      const id = "id" in frame ? frame.id : null;
      const message = `Cannot serialise frame: ${error instanceof Error ? error.message : error}`;
      text = JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message } });
    }
    this.#out.push(text);
    this.#outLength += text.length;
    // A batch is written at once past this size, so the owner's queue sees (and bounds) it.
    if (this.#outLength >= BATCH_CHARS) return this.#flush();
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    queueMicrotask(() => {
      this.#flushScheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
    const frames = this.#out;
    if (frames.length === 0) return;
    this.#out = [];
    this.#outLength = 0;
    const text = frames.length === 1 ? frames[0] + "\n" : frames.join("\n") + "\n";
    if (this.#options.writeText) this.#options.writeText(text, frames.length);
    else this.#options.write(this.#encode(text), frames.length);
  }

  #encode(text: string): Uint8Array {
    // At most 3 bytes per UTF-16 unit; a batch too large for the buffer gets its own.
    if (!this.#options.reuseBuffer || text.length * 3 > REUSED_BYTES) return encoder.encode(text);
    this.#scratch ??= new Uint8Array(REUSED_BYTES);
    return this.#scratch.subarray(0, encoder.encodeInto(text, this.#scratch).written);
  }
}
