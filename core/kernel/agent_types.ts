/** The types of the Agent's surface: its options' parts, what inject* and status return. */
import type { Input, PriorityLevel, Reply } from "../input.ts";
import type { SchedulerSnapshot } from "./scheduler.ts";

/** The part of the ConfigRegistry the kernel reads. */
export interface KernelConfig {
  get<T = unknown>(key: string): T;
}

/** Options of an internal consolidation input. */
export interface ConsolidationOptions {
  /** Level; default 0, so it waits behind the owner's queued inputs and any interrupt cuts it. */
  priority?: PriorityLevel;
  meta?: Record<string, unknown>;
  /** Receives the terminal reply; else it goes to the `_consolidation_` channel, if any. */
  onReply?: (reply: Reply) => void;
}

/** A queued input taken out of the scheduler; its taker owes it exactly one `reply`. */
export interface TakenInput {
  input: Input;
  /** Deliver the terminal reply to the input's sender; later calls are ignored. */
  reply(reply: Reply): void;
}

/** Outcome of injecting an input. */
export type InjectResult =
  | { accepted: true; inputId: string }
  | { accepted: false; inputId: string; reason: string };

/** What `status` reports about the kernel itself. */
export interface KernelStatus {
  state: "idle" | "busy";
  /** Inputs waiting in the ready queue. */
  pending: number;
  currentTurn?: string;
  /** Running task, interrupt stack and queue by level. */
  scheduler: SchedulerSnapshot;
  turns: number;
  tools: number;
  channels: string[];
  contextEvents: number;
}
