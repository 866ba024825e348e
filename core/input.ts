/** Inputs that enter the kernel and the one terminal reply each of them gets. */
import type { ReplyStatus } from "./events.ts";
import type { MediaRef } from "./memory/media.ts";

/** Interrupt urgency L1–L4; 0 is a plain queued input (ARCHITECTURE.md "Input Scheduler"). */
export type PriorityLevel = 0 | 1 | 2 | 3 | 4;

/** One input as the kernel sees it. */
export interface Input {
  /** Unique id of this input; also the id of the turn that answers it. */
  readonly id: string;
  /** Text of the message; on_input handlers may rewrite it. */
  text: string;
  /** Who injected it: a plugin name ("cli", "web", "timer", …). */
  readonly source: string;
  /** Where the reply goes: an output channel name. */
  readonly channel: string;
  /** Person or account that spoke, when the channel knows. */
  readonly sender?: string;
  /** Scheduling level: 0 queued (TaskQueued), 1–4 an interrupt (TaskInterrupt). */
  readonly priority: PriorityLevel;
  /** Injected as an interrupt (priority ≥ 1) rather than queued. */
  readonly interrupt: boolean;
  /**
   * Internal self-input (memory merges, distillation callbacks): replies go to the
   * `_consolidation_` channel, it stays out of the context window, and an LLM call that
   * preemption cancels is not retried.
   */
  readonly consolidation?: boolean;
  readonly receivedAt: number;
  readonly meta: Readonly<Record<string, unknown>>;
  /** Images that came with it, already in the media store (the channel put them there). */
  readonly media?: readonly MediaRef[];
}

/** The terminal reply of one input. Every accepted input gets exactly one. */
export interface Reply {
  inputId: string;
  channel: string;
  text: string;
  status: ReplyStatus;
  /** Machine-readable error code when status is "error" or "refused". */
  errorCode?: string;
  /** Stored images the model attached to the reply (`media_attach`). */
  media?: MediaRef[];
}

/** What a source passes when it injects an input. */
export interface InjectOptions {
  /** Channel for the reply; defaults to the source name. */
  channel?: string;
  sender?: string;
  /**
   * Declared urgency; defaults to L1 for interrupts and 0 for plain inputs. An interrupt is at
   * least L1; a plain input declaring L1–L4 is scheduled as an interrupt of that level.
   */
  priority?: PriorityLevel;
  meta?: Record<string, unknown>;
  /** Images that came with the input, already stored (MediaStore.put). */
  media?: readonly MediaRef[];
  /** Receives the terminal reply; without it the reply goes to the channel's output handler. */
  onReply?: (reply: Reply) => void;
  /**
   * Receives non-terminal notices about this input (backlog triage's "busy, please wait");
   * without it they go to the channel's output handler. The terminal reply still follows.
   */
  onNotice?: (text: string) => void;
  /**
   * The sender gave up (an HTTP client went away): a queued input is answered "stopped" at once,
   * a running or suspended turn is cancelled as by stop(). Its one reply still follows.
   */
  signal?: AbortSignal;
}

/** What the kernel decides about an input it accepts, besides what its source gave. */
export interface NewInput {
  id: string;
  source: string;
  text: string;
  /** 0 queued, 1–4 an interrupt of that level. */
  level: number;
  /** An internal consolidation input (see Input.consolidation). */
  consolidation?: boolean;
  receivedAt: number;
}

/** The Input made of `facts` and its source's `options`. Throws RangeError for a level not 0–4. */
export function createInput(facts: NewInput, options: InjectOptions): Input {
  const { level, source } = facts;
  if (!Number.isInteger(level) || level < 0 || level > 4) {
    throw new RangeError(`Cannot inject from "${source}": priority ${level} is not 0–4`);
  }
  return {
    id: facts.id,
    text: facts.text,
    source,
    channel: options.channel ?? source,
    sender: options.sender,
    priority: level as PriorityLevel,
    interrupt: level > 0,
    ...(facts.consolidation ? { consolidation: true } : {}),
    receivedAt: facts.receivedAt,
    meta: options.meta ?? {},
    ...(options.media?.length ? { media: [...options.media] } : {}),
  };
}
