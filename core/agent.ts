/** The Agent: the kernel assembled from its parts, running one turn at a time from its inbox. */
import { EventBus } from "./events.ts";
import type { Clock, Logger } from "./ports.ts";
import { StageHost } from "./stages.ts";
import { type RegisteredTool, ToolRegistry } from "./tools.ts";
import { OutputRegistry } from "./output.ts";
import { type ContextWindow, RecentContext } from "./context.ts";
import { Inbox } from "./inbox.ts";
import type { InjectOptions, Input, PriorityLevel, Reply } from "./input.ts";
import { type LlmCaller, runTurn, type TurnSettings } from "./turn.ts";
import { estimateTokens, type TokenCounter } from "./budget.ts";
import type { MemorySection } from "./prompt.ts";
import { errorMessage } from "./errors.ts";

/** The part of the ConfigRegistry the kernel reads. */
export interface KernelConfig {
  get<T = unknown>(key: string): T;
}

/** Outcome of injecting an input. */
export type InjectResult =
  | { accepted: true; inputId: string }
  | { accepted: false; inputId: string; reason: string };

/** Options of an Agent. */
export interface AgentOptions {
  clock: Clock;
  logger: Logger;
  config: KernelConfig;
  llm: LlmCaller;
  persona: () => string;
  context?: ContextWindow;
  recall?: (input: Input, signal: AbortSignal) => Promise<MemorySection[]>;
  countTokens?: TokenCounter;
  newId?: () => string;
  inboxCapacity?: number;
  /** Kernel tool sources re-aggregated every round besides registered and channel tools. */
  toolSources?: (() => RegisteredTool[])[];
}

/** What `status` reports about the kernel itself. */
export interface KernelStatus {
  state: "idle" | "busy";
  pending: number;
  currentTurn?: string;
  turns: number;
  tools: number;
  channels: string[];
  contextEvents: number;
}

/** The kernel. Inputs go in through inject*(); replies come out through callbacks and channels. */
export class Agent {
  readonly events: EventBus;
  readonly stages: StageHost;
  readonly tools = new ToolRegistry();
  readonly outputs = new OutputRegistry();
  readonly context: ContextWindow;
  readonly #options: AgentOptions;
  readonly #inbox: Inbox;
  readonly #replyTo = new Map<string, (reply: Reply) => void>();
  #current?: { input: Input; controller: AbortController };
  #pumping = false;
  #closed = false;
  #turns = 0;
  #idle: (() => void)[] = [];

  constructor(options: AgentOptions) {
    this.#options = options;
    this.events = new EventBus({ logger: options.logger });
    this.stages = new StageHost({ clock: options.clock, logger: options.logger });
    this.context = options.context ?? new RecentContext();
    this.#inbox = new Inbox({ capacity: options.inboxCapacity });
  }

  /** Queue a plain input (level 0). A refusal still produces its one reply, through onReply. */
  injectInput(source: string, text: string, options: InjectOptions = {}): InjectResult {
    return this.#accept(source, text, options, false);
  }

  /** Queue an interrupt; it runs before waiting plain inputs. */
  injectInterrupt(source: string, text: string, options: InjectOptions = {}): InjectResult {
    return this.#accept(source, text, { priority: 1, ...options }, true);
  }

  /** Queue a plain input and wait for its reply. */
  injectInputSync(source: string, text: string, options: InjectOptions = {}): Promise<Reply> {
    return new Promise((resolve) => {
      this.injectInput(source, text, {
        ...options,
        onReply: (reply) => {
          options.onReply?.(reply);
          resolve(reply);
        },
      });
    });
  }

  /** Cancel the running turn (its reply is "stopped"); returns whether one was running. */
  stopCurrentTurn(): boolean {
    if (!this.#current) return false;
    this.#current.controller.abort(new DOMException("Stopped by the user", "AbortError"));
    return true;
  }

  /** The kernel's own status. */
  status(): KernelStatus {
    return {
      state: this.#current ? "busy" : "idle",
      pending: this.#inbox.size,
      currentTurn: this.#current?.input.id,
      turns: this.#turns,
      tools: this.allTools().length,
      channels: this.outputs.list().map((c) => c.name),
      contextEvents: this.context.size(),
    };
  }

  /** Every tool the model can see now, re-aggregated from all sources. */
  allTools(): RegisteredTool[] {
    const sources = this.#options.toolSources ?? [];
    return [...this.tools.list(), ...this.outputs.tools(), ...sources.flatMap((s) => s())];
  }

  /** Resolves when no turn is running and nothing waits. */
  whenIdle(): Promise<void> {
    if (!this.#current && this.#inbox.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Stop accepting, stop the running turn and answer every waiting input "stopped". */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.stopCurrentTurn();
    for (const input of this.#inbox.drain()) {
      this.#deliver(input, {
        inputId: input.id,
        channel: input.channel,
        text: "The agent is shutting down.",
        status: "stopped",
      });
    }
    await this.whenIdle();
  }

  #accept(source: string, text: string, options: InjectOptions, interrupt: boolean): InjectResult {
    const input: Input = {
      id: this.#options.newId?.() ?? crypto.randomUUID(),
      text,
      source,
      channel: options.channel ?? source,
      sender: options.sender,
      priority: (options.priority ?? 0) as PriorityLevel,
      interrupt,
      receivedAt: this.#options.clock.now(),
      meta: options.meta ?? {},
    };
    if (options.onReply) this.#replyTo.set(input.id, options.onReply);
    const reason = this.#closed
      ? "The agent is shutting down."
      : !this.#inbox.push(input)
      ? `The input queue is full (${this.#inbox.capacity} waiting); please try again shortly.`
      : undefined;
    if (reason) {
      this.#options.logger.warn("Input refused", { source, inputId: input.id, reason });
      this.#deliver(input, {
        inputId: input.id,
        channel: input.channel,
        text: reason,
        status: "refused",
        errorCode: "refused",
      });
      return { accepted: false, inputId: input.id, reason };
    }
    this.#publishStatus();
    queueMicrotask(() => void this.#pump()); // never start a turn inside the caller's stack
    return { accepted: true, inputId: input.id };
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      for (let input = this.#inbox.shift(); input; input = this.#inbox.shift()) {
        const controller = new AbortController();
        this.#current = { input, controller };
        this.#publishStatus();
        const reply = await runTurn(input, controller.signal, {
          clock: this.#options.clock,
          logger: this.#options.logger.child({ turnId: input.id }),
          events: this.events,
          stages: this.stages,
          llm: this.#options.llm,
          context: this.context,
          tools: () => this.allTools(),
          persona: this.#options.persona,
          recall: this.#options.recall,
          countTokens: this.#options.countTokens ?? estimateTokens,
          settings: this.#settings(),
        });
        this.#current = undefined;
        this.#turns++;
        this.#deliver(input, reply);
      }
    } finally {
      this.#pumping = false;
      this.#current = undefined;
      this.#publishStatus();
      for (const resolve of this.#idle.splice(0)) resolve();
    }
  }

  #settings(): TurnSettings {
    const config = this.#options.config;
    return {
      maxToolTurns: config.get<number>("core.agent.max_tool_turns"),
      toolTimeoutMs: config.get<number>("core.agent.tool_timeout_ms"),
      stream: config.get<boolean>("core.agent.stream"),
    };
  }

  /** Hand the terminal reply to its sender, or else to the channel's output handler. */
  #deliver(input: Input, reply: Reply): void {
    this.events.publish({
      type: "output",
      turnId: input.id,
      channel: reply.channel,
      text: reply.text,
      status: reply.status,
    });
    const callback = this.#replyTo.get(input.id);
    this.#replyTo.delete(input.id);
    if (callback) {
      try {
        callback(reply);
      } catch (error) {
        this.#options.logger.error("Reply callback threw", {
          inputId: input.id,
          error: errorMessage(error),
        });
      }
      return;
    }
    const channel = this.outputs.get(reply.channel);
    if (!channel) {
      this.#options.logger.warn("No output channel for reply", {
        inputId: input.id,
        channel: reply.channel,
      });
      return;
    }
    Promise.resolve()
      .then(() =>
        channel.handler({
          payload: reply.text,
          meta: { ...input.meta },
          type: "text",
          inputId: input.id,
        })
      )
      .catch((error) =>
        this.#options.logger.error("Output channel failed", {
          channel: channel.name,
          error: errorMessage(error),
        })
      );
  }

  #publishStatus(): void {
    this.events.publish({
      type: "status",
      state: this.#current ? "busy" : "idle",
      pending: this.#inbox.size,
    });
  }
}
