/**
 * How the event loop steers a running turn from outside: suspension (the in-flight LLM call
 * is aborted and the turn holds at its next checkpoint), resumption, and the notes of the
 * interrupts that ran meanwhile, which the turn adds to its history as `[打断消息]` entries.
 */
import type { ChatMessage } from "../llm/provider.ts";
import type { ReplyStatus } from "../events.ts";
import { AbortedError } from "../errors.ts";

/** An interrupt that ran while a turn was suspended, and how it ended. */
export interface InterruptNote {
  source: string;
  text: string;
  reply: { status: ReplyStatus; text: string };
}

/** One LLM call under a control: its signal and whether preemption cancelled it. */
export interface ControlledCall {
  readonly signal: AbortSignal;
  /** True once a suspension aborted this call. */
  preempted(): boolean;
  /** The call is over; later suspensions no longer touch it. */
  end(): void;
}

/** Options of a TurnControl. */
export interface TurnControlOptions {
  /** Retry an LLM call cancelled by preemption after resuming (false on the consolidation path). */
  retryCancelled?: boolean;
  /** Stopped while queued: the turn short-circuits at pre_action with status "stopped". */
  stopped?: boolean;
}

const PREEMPTED = "Preempted by a higher-priority input";
const NOTE_REPLY_CHARS = 300;

/** The handle a turn is steered by. Methods never throw except checkpoint() on abort. */
export class TurnControl {
  /** Retry an LLM call cancelled by preemption once resumed. */
  readonly retryCancelled: boolean;
  /** Short-circuit at pre_action: the input was queued when the owner pressed stop. */
  readonly stopped: boolean;
  #suspended = false;
  #resumed?: PromiseWithResolvers<void>;
  #call?: AbortController;
  #notes: InterruptNote[] = [];

  constructor(options: TurnControlOptions = {}) {
    this.retryCancelled = options.retryCancelled ?? true;
    this.stopped = options.stopped ?? false;
  }

  /** Whether the turn is held. */
  get suspended(): boolean {
    return this.#suspended;
  }

  /** Hold the turn at its next checkpoint and abort its in-flight LLM call, if any. */
  suspend(): void {
    if (this.#suspended) return;
    this.#suspended = true;
    this.#resumed = Promise.withResolvers<void>();
    this.#call?.abort(new DOMException(PREEMPTED, "AbortError"));
  }

  /** Let a held turn go on. */
  resume(): void {
    if (!this.#suspended) return;
    this.#suspended = false;
    this.#resumed?.resolve();
    this.#resumed = undefined;
  }

  /** Record an interrupt that ran while this turn was suspended. */
  note(note: InterruptNote): void {
    this.#notes.push(note);
  }

  /**
   * Before each LLM call: wait while suspended, then hand over (and forget) the interrupt
   * notes as history messages. Rejects with AbortedError once `signal` aborts.
   */
  async checkpoint(signal: AbortSignal): Promise<ChatMessage[]> {
    while (this.#suspended && !signal.aborted) await untilAborted(this.#resumed!.promise, signal);
    if (signal.aborted) throw new AbortedError("Turn stopped", { cause: signal.reason });
    return this.#notes.splice(0).map(interruptMessage);
  }

  /** Start one LLM call: its signal aborts on `signal` (stop) or on suspension. */
  beginCall(signal: AbortSignal): ControlledCall {
    const controller = new AbortController();
    this.#call = controller;
    let preempted = false;
    controller.signal.addEventListener("abort", () => void (preempted = true), { once: true });
    if (this.#suspended) controller.abort(new DOMException(PREEMPTED, "AbortError"));
    return {
      signal: AbortSignal.any([signal, controller.signal]),
      preempted: () => preempted,
      end: () => {
        if (this.#call === controller) this.#call = undefined;
      },
    };
  }
}

/** How an interrupt note's history entry begins. */
export const INTERRUPT_NOTE_TAG = "[打断消息]";

/** The `[打断消息]` history entry of one interrupt note. */
export function interruptMessage(note: InterruptNote): ChatMessage {
  const reply = note.reply.text.length > NOTE_REPLY_CHARS
    ? `${note.reply.text.slice(0, NOTE_REPLY_CHARS)}…`
    : note.reply.text;
  return {
    role: "user",
    content: `${INTERRUPT_NOTE_TAG} ${note.source}: ${note.text}\n` +
      `(This arrived while you were working on the request above and was handled separately; ` +
      `status ${note.reply.status}, reply sent: ${JSON.stringify(reply)}. ` +
      `Continue with the request above.)`,
  };
}

function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    promise.then(done);
  });
}
