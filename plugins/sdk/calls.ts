/**
 * The calls one JSON-RPC peer has sent and not had answered: their deadlines and their abort
 * signals. Every tool call passes through here twice, so both are kept off the per-call path:
 * one sweep timer serves every deadline (a timer per request cost more than the round trip),
 * and a signal gets one abort listener the first time it is passed, not one added and removed
 * per call (an EventTarget listener cost more than the rest of the call).
 */
import { ErrorCode, RpcError } from "./protocol.ts";

/** Starts a timer; returns its cancel function. */
export type SetTimer = (ms: number, fn: () => void) => () => void;

/** A call id as the protocol has them. */
export type CallId = number | string;

/** One call waiting for its answer. */
export interface PendingCall {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  method: string;
  /** Checks the result before the caller gets it (RequestOptions.accept). */
  accept?: (result: unknown) => unknown;
  /** Deadline on the table's clock, when the call has a timeout. */
  deadline?: number;
  timeoutMs?: number;
  /** The calls waiting on this call's signal, this one among them. */
  watchers?: Set<CallId>;
}

/** Options of a CallTable. */
export interface CallTableOptions {
  setTimer?: SetTimer;
  /** Monotonic milliseconds, on the same clock as setTimer; default performance.now. */
  now?: () => number;
  /** A call ran out of time or its signal fired; it is already out of the table. */
  giveUp(id: CallId, call: PendingCall, error: RpcError): void;
}

const defaultTimer: SetTimer = (ms, fn) => {
  const id = setTimeout(fn, ms);
  return () => clearTimeout(id);
};

/** Calls in flight by id, with their deadlines and cancellation. */
export class CallTable {
  #options: CallTableOptions;
  #calls = new Map<CallId, PendingCall>();
  #bySignal = new WeakMap<AbortSignal, Set<CallId>>();
  /** What a signal's listener holds: a long-lived signal must not keep a closed peer alive. */
  #self = new WeakRef(this);
  #sweep?: { at: number; cancel: () => void };
  #closed = false;

  constructor(options: CallTableOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#calls.size;
  }

  /** Track `call` as `id`, timed out after `timeoutMs` and cancelled by `signal` when given. */
  add(id: CallId, call: PendingCall, timeoutMs?: number, signal?: AbortSignal): void {
    if (timeoutMs !== undefined) {
      call.timeoutMs = timeoutMs;
      call.deadline = this.#now() + timeoutMs;
      this.#arm(call.deadline);
    }
    if (signal) (call.watchers = this.#watchers(signal)).add(id);
    this.#calls.set(id, call);
  }

  /** Remove call `id`; undefined when it is not (or no longer) waiting. */
  take(id: CallId): PendingCall | undefined {
    const call = this.#calls.get(id);
    if (!call) return undefined;
    this.#calls.delete(id);
    call.watchers?.delete(id);
    return call;
  }

  /** Reject every call with `error` and stop the sweep; the table takes no deadlines after. */
  close(error: Error): void {
    this.#closed = true;
    this.#sweep?.cancel();
    this.#sweep = undefined;
    for (const id of [...this.#calls.keys()]) this.take(id)!.reject(error);
  }

  #now(): number {
    return this.#options.now?.() ?? performance.now();
  }

  #watchers(signal: AbortSignal): Set<CallId> {
    const known = this.#bySignal.get(signal);
    if (known) return known;
    const ids = new Set<CallId>();
    const table = this.#self;
    const onAbort = () => {
      const owner = table.deref();
      if (owner) owner.#cancel(ids);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    this.#bySignal.set(signal, ids);
    return ids;
  }

  /** The signal of calls `ids` fired: give each up. */
  #cancel(ids: Set<CallId>): void {
    for (const id of [...ids]) {
      const call = this.take(id);
      if (!call) continue;
      this.#options.giveUp(
        id,
        call,
        new RpcError(ErrorCode.cancelled, `Call "${call.method}" was cancelled`),
      );
    }
  }

  /** Make sure the sweep fires by `deadline`; an earlier armed sweep is kept. */
  #arm(deadline: number): void {
    if (this.#sweep && this.#sweep.at <= deadline) return;
    this.#sweep?.cancel();
    const delay = Math.max(0, deadline - this.#now());
    const cancel = (this.#options.setTimer ?? defaultTimer)(delay, () => this.#expire());
    this.#sweep = { at: deadline, cancel };
  }

  #expire(): void {
    this.#sweep = undefined;
    const now = this.#now();
    let next = Infinity;
    for (const [id, call] of [...this.#calls]) {
      if (call.deadline === undefined) continue;
      if (call.deadline > now) next = Math.min(next, call.deadline);
      else {
        this.take(id);
        const message = `Call "${call.method}" timed out after ${call.timeoutMs} ms`;
        this.#options.giveUp(id, call, new RpcError(ErrorCode.timeout, message));
      }
    }
    if (next !== Infinity && !this.#closed) this.#arm(next);
  }
}
