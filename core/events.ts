/** The kernel event bus and the events it carries. */
import type { MediaRef } from "./memory/media.ts";
import type { ToolCall, Usage } from "./llm/provider.ts";
import type { Logger } from "./ports.ts";
import type { OwnerEvent } from "./kernel/questions.ts";
import { errorMessage } from "./errors.ts";

/**
 * The pipeline's stages, in order; each is published as a `stage` event while a turn runs.
 * The one definition: the plugin protocol (plugins/sdk/protocol.ts) restates the names on the
 * wire, because an SDK imports nothing outside itself, and plugins/host/stage_wire.ts makes a
 * difference between the two a type error.
 */
export const STAGES = [
  "on_input",
  "pre_action",
  "post_action",
  "before_toolcall",
  "after_toolcall",
  "before_output",
  "after_output",
] as const;

/** A pipeline stage's name. */
export type StageName = typeof STAGES[number];

/** Whether `name` names a stage (a name from a plugin, checked before use). */
export function isStageName(name: unknown): name is StageName {
  return (STAGES as readonly unknown[]).includes(name);
}

/** Every event the kernel publishes. `turnId` ties an event to the input that caused it. */
export type KernelEvent =
  | {
    type: "agent_llm_chain";
    turnId: string;
    round: number;
    source: string;
    model: string;
    text: string;
    reasoning?: string;
    toolCalls: ToolCall[];
    usage?: Usage;
    startedAt: number;
    durationMs: number;
    firstTokenMs?: number;
  }
  | { type: "content_delta"; turnId: string; text: string; reset?: boolean }
  | { type: "reasoning_delta"; turnId: string; text: string; reset?: boolean }
  | { type: "tool_call"; turnId: string; call: ToolCall; phase: "start" | "end"; ok?: boolean }
  | { type: "stage"; turnId: string; stage: StageName }
  | {
    type: "output";
    turnId: string;
    channel: string;
    text: string;
    status: ReplyStatus;
    /** Stored images attached to the reply. */
    media?: MediaRef[];
  }
  /**
   * An input was accepted or refused (its reply follows as `output`). Consolidation work and
   * ephemeral inputs (the OpenAI-compatible endpoint unless asked to remember) are not published.
   */
  | {
    type: "input";
    turnId: string;
    source: string;
    channel: string;
    sender?: string;
    text: string;
    level: number;
    receivedAt: number;
  }
  | { type: "status"; state: "idle" | "busy"; pending: number }
  /** A non-terminal message about input `turnId` ("busy, please wait"); its reply is still owed. */
  | { type: "notice"; turnId: string; channel: string; text: string }
  /** Turn `turnId` was suspended so that `by` (at `level`) runs first. */
  | { type: "preempted"; turnId: string; by: string; level: number }
  /** A suspended turn goes on. */
  | { type: "resumed"; turnId: string }
  | { type: "provider_fallback"; turnId: string; from: string; to: string; reason: string }
  | { type: "plugin_crashed"; plugin: string; reason: string }
  /** A plugin's stage handler timed out repeatedly and is bypassed for `retryInMs`. */
  | {
    type: "stage_breaker";
    plugin: string;
    stage: StageName;
    state: "open";
    timeouts: number;
    retryInMs: number;
  }
  /** A bypassed stage handler answered its probe and runs again. */
  | { type: "stage_breaker"; plugin: string; stage: StageName; state: "closed" }
  /** A kernel fault the owner must hear of; its text is injected at L4 from source "kernel". */
  | { type: "kernel_notice"; kind: KernelNoticeKind; subject: string; text: string }
  | OwnerEvent
  | { type: "custom"; name: string; source: string; data: unknown };

/** What a kernel notice is about (ARCHITECTURE.md: L4 is kernel-exclusive). */
export type KernelNoticeKind =
  | "plugin_gave_up"
  | "store_failed"
  | "provider_unusable"
  | "failback_boot";

/** How a turn ended. */
export type ReplyStatus = "ok" | "short_circuit" | "error" | "stopped" | "refused";

/** Type of an event by its tag. */
export type EventOf<T extends KernelEvent["type"]> = Extract<KernelEvent, { type: T }>;

/** A subscriber; exceptions it throws are logged and never reach the publisher. */
export type EventHandler<E extends KernelEvent = KernelEvent> = (event: E) => void;

/** Synchronous fan-out bus: publish never blocks on or fails because of a subscriber. */
export class EventBus {
  #handlers = new Map<string, Set<EventHandler>>();
  #logger: Logger;

  constructor(options: { logger: Logger }) {
    this.#logger = options.logger;
  }

  /** Subscribe to one event type, or "*" for all; returns the unsubscribe function. */
  subscribe<T extends KernelEvent["type"]>(
    type: T | "*",
    handler: EventHandler<EventOf<T>>,
  ): () => void {
    let set = this.#handlers.get(type);
    if (!set) this.#handlers.set(type, set = new Set());
    set.add(handler as EventHandler);
    return () => set.delete(handler as EventHandler);
  }

  /** Deliver `event` to its subscribers and the "*" subscribers, in subscription order. */
  publish(event: KernelEvent): void {
    for (const key of [event.type, "*"]) {
      const set = this.#handlers.get(key);
      if (!set) continue;
      for (const handler of [...set]) {
        try {
          handler(event);
        } catch (error) {
          this.#logger.error("Event subscriber threw", {
            event: event.type,
            error: errorMessage(error),
            stack: error instanceof Error ? error.stack : undefined,
          });
        }
      }
    }
  }
}
