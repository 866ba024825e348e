/**
 * The Agent: the kernel assembled from its parts. Every input enters its Scheduler; the
 * EventLoop runs one turn at a time, preempting for higher-level interrupts.
 */
import { EventBus, type KernelNoticeKind } from "../events.ts";
import type { Clock, Logger } from "../ports.ts";
import { StageHost } from "./stages.ts";
import { type RegisteredTool, ToolRegistry } from "./tools.ts";
import { OutputRegistry } from "./output.ts";
import { CONSOLIDATION_CHANNEL, Delivery } from "./delivery.ts";
import { NoticeGate } from "./notices.ts";
import { type ContextWindow, RecentContext } from "../prompt/context.ts";
import { createInput, type InjectOptions, type Input, type Reply } from "../input.ts";
import { EPHEMERAL_META, runTurn } from "./turn.ts";
import { schedulerSettings, turnSettings } from "./_agent_settings.ts";
import type { LlmCaller } from "../llm/call.ts";
import { Scheduler } from "./scheduler.ts";
import { EventLoop, type StopResult } from "./event_loop.ts";
import type { TurnControl } from "./turn_control.ts";
import type { TokenCounter } from "../prompt/budget.ts";
import { estimateTokens } from "../prompt/estimate.ts";
import { ToolCatalog } from "./tool_catalog.ts";
import type { TextRanker } from "../memory/ranker.ts";
import type {
  ConsolidationOptions,
  InjectResult,
  KernelConfig,
  KernelStatus,
  TakenInput,
} from "./agent_types.ts";
import type { MemorySection } from "../prompt/system_prompt.ts";
import { durableReply } from "../prompt/context_persistence.ts";
import { OwnerQuestions } from "./questions.ts";
import { RouteRegistry } from "./routes.ts";
import type { MediaStore } from "../memory/media.ts";
import { MediaOutbox } from "./media_turn.ts";

export { CONSOLIDATION_CHANNEL, mediaLink } from "./delivery.ts";
export type {
  ConsolidationOptions,
  InjectResult,
  KernelConfig,
  KernelStatus,
  TakenInput,
} from "./agent_types.ts";

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
  /** Ready-queue bound; default `core.agent.queue_capacity`. */
  queueCapacity?: number;
  /** Preemption cooldown; default `core.agent.preempt_cooldown_ms`. */
  preemptCooldownMs?: number;
  /** Kernel tool sources re-aggregated every round besides registered and channel tools. */
  toolSources?: (() => RegisteredTool[])[];
  /** Output channels; a resident shares its parent's registry. Default: a registry of its own. */
  outputs?: OutputRegistry;
  /** The media store: inputs' images reach the model (its tools come as a tool source). */
  media?: MediaStore;
  /** Where media_attach leaves a reply's images; default: an outbox of its own. */
  outbox?: MediaOutbox;
  /** What this agent's LLM calls count under (`resident`); default the input's source. */
  cause?: string;
  /** Relevance for tool_search and the prompt's cuts (the memory's hybrid search). */
  ranker?: TextRanker;
}

/** The kernel. Inputs go in through inject*(); replies come out through callbacks and channels. */
export class Agent {
  readonly events: EventBus;
  readonly stages: StageHost;
  readonly tools = new ToolRegistry();
  readonly outputs: OutputRegistry;
  readonly context: ContextWindow;
  /** The media store inputs' images live in; absent when the daemon has none. */
  readonly media?: MediaStore;
  /** Questions plugins put to the owner (cmd's "run this?"). */
  readonly questions: OwnerQuestions;
  /** HTTP routes plugins offer to the web page. */
  readonly routes = new RouteRegistry();
  /** Which tools a request carries (tools by need), and tool_search / tool_load. */
  readonly catalog: ToolCatalog;
  readonly #options: AgentOptions;
  readonly #loop: EventLoop;
  readonly #delivery: Delivery;
  readonly #notices: NoticeGate;
  #closed = false;
  /** Set by finish() and close(): new inputs are refused. */
  #refusing = false;
  readonly #outbox: MediaOutbox;

  constructor(options: AgentOptions) {
    this.#options = options;
    this.#outbox = options.outbox ?? new MediaOutbox();
    this.media = options.media;
    this.events = new EventBus({ logger: options.logger });
    this.stages = new StageHost({
      clock: options.clock,
      logger: options.logger,
      events: this.events,
    });
    this.context = options.context ?? new RecentContext();
    this.outputs = options.outputs ?? new OutputRegistry();
    this.catalog = new ToolCatalog({
      sources: [() => this.tools.list(), () => this.outputs.tools(), ...options.toolSources ?? []],
      config: options.config,
      ranker: options.ranker,
      logger: options.logger,
    });
    this.#notices = new NoticeGate({
      events: this.events,
      logger: options.logger,
      inject: (text, meta, done) =>
        this.#accept("kernel", text, { channel: "kernel", meta, onReply: done }, 4).accepted,
    });
    this.#delivery = new Delivery({
      events: this.events,
      outputs: this.outputs,
      logger: options.logger,
    });
    this.questions = new OwnerQuestions({
      clock: options.clock,
      events: this.events,
      logger: options.logger,
    });
    this.#loop = new EventLoop({
      clock: options.clock,
      logger: options.logger,
      events: this.events,
      scheduler: new Scheduler({
        clock: options.clock,
        ...schedulerSettings(options.config, options),
      }),
      run: (input, signal, control) => this.#run(input, signal, control),
      deliver: (input, reply) => this.#delivery.reply(input, reply),
      onChange: () => this.#publishStatus(),
    });
  }

  /** Queue a plain input (level 0). A refusal still produces its one reply, through onReply. */
  injectInput(source: string, text: string, options: InjectOptions = {}): InjectResult {
    return this.#accept(source, text, options, options.priority ?? 0);
  }

  /** Inject an interrupt (default L1); it preempts a running task of a lower effective level. */
  injectInterrupt(source: string, text: string, options: InjectOptions = {}): InjectResult {
    return this.#accept(source, text, options, Math.max(1, options.priority ?? 1));
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

  /**
   * Internal self-input for consolidation work (memory merges, distillation callbacks). Its
   * reply goes to `_consolidation_`; an LLM call cancelled by preemption is not retried.
   */
  injectConsolidation(text: string, options: ConsolidationOptions = {}): InjectResult {
    return this.#accept(
      CONSOLIDATION_CHANNEL,
      text,
      {
        ...options,
        channel: CONSOLIDATION_CHANNEL,
      },
      options.priority ?? 0,
      true,
    );
  }

  /**
   * A kernel fault the owner must hear of (a plugin that gave up restarting, a store that
   * failed to open, an LLM source that went unusable): published as `kernel_notice` and
   * injected at L4 from source "kernel", which no plugin can reach (external plugins are
   * clamped to L3). One notice per kind and subject is in flight at a time; the injection
   * happens on a later microtask, so a caller deep in a turn is never re-entered.
   */
  kernelNotice(kind: KernelNoticeKind, subject: string, text: string): void {
    if (!this.#closed) this.#notices.raise(kind, subject, text);
  }

  /**
   * The owner's stop: cancel the current inference (and suspended turns) and short-circuit at
   * pre_action exactly the inputs queued now; each still gets one "stopped" reply.
   */
  stop(): StopResult {
    return this.#loop.stop();
  }

  /** stop(), returning whether a turn was running (the SDK's and the CLI's stop). */
  stopCurrentTurn(): boolean {
    return this.stop().wasRunning;
  }

  /** The kernel's own status. */
  status(): KernelStatus {
    const scheduler = this.#loop.scheduler.snapshot();
    return {
      state: scheduler.running ? "busy" : "idle",
      pending: scheduler.waiting,
      currentTurn: scheduler.running?.id,
      scheduler,
      turns: this.#loop.turns,
      tools: this.allTools().length,
      channels: this.outputs.list().map((c) => c.name),
      contextEvents: this.context.size(),
    };
  }

  /** Queued plain inputs not marked stopped, oldest first (for triage). */
  pendingPlain(): Input[] {
    return this.#loop.scheduler.pendingPlain().map((t) => t.input);
  }

  /** Take queued inputs out of the scheduler; the taker owes each its one reply. */
  takePending(ids: Iterable<string>): TakenInput[] {
    const taken = this.#loop.scheduler.take(ids).map((task) => {
      let replied = false;
      return {
        input: task.input,
        reply: (reply: Reply) => {
          if (replied) return;
          replied = true;
          this.#delivery.reply(task.input, reply);
        },
      };
    });
    if (taken.length > 0) this.#publishStatus();
    return taken;
  }

  /**
   * Send a non-terminal message about a queued or running `input` (triage's "busy, please
   * wait"): to its `onNotice`, else through its channel, and always as a `notice` event. The
   * input's one terminal reply is still owed.
   */
  notify(input: Input, text: string): void {
    this.#delivery.notice(input, text);
  }

  /** Every tool the model can see now, re-aggregated from all sources. */
  allTools(): RegisteredTool[] {
    return this.catalog.all();
  }

  /** Resolves when no turn runs or is suspended and nothing waits. */
  whenIdle(): Promise<void> {
    return this.#loop.whenIdle();
  }

  /**
   * Stop accepting (every new input is refused aloud) and resolve once the work in hand, the
   * running turn and what waits, is done. Pair it with a deadline, then close().
   */
  finish(): Promise<void> {
    this.#refusing = true;
    return this.whenIdle();
  }

  /** Stop accepting, cancel running turns and answer every waiting input "stopped". */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#refusing = true;
    for (const task of this.#loop.shutdown()) {
      this.#delivery.reply(task.input, {
        inputId: task.input.id,
        channel: task.input.channel,
        text: "The agent is shutting down.",
        status: "stopped",
      });
    }
    await this.whenIdle();
  }

  #accept(
    source: string,
    text: string,
    options: InjectOptions,
    level: number,
    consolidation = false,
  ): InjectResult {
    const id = this.#options.newId?.() ?? crypto.randomUUID();
    const receivedAt = this.#options.clock.now();
    const input = createInput({ id, source, text, level, consolidation, receivedAt }, options);
    this.#delivery.expect(input.id, options);
    if (!consolidation && input.meta[EPHEMERAL_META] !== true) this.#publishInput(input);
    const reason = this.#refusing
      ? "The agent is shutting down."
      : !this.#loop.submit(input, input.priority, options.signal)
      ? `The input queue is full (${this.#loop.scheduler.capacity} waiting); please try again shortly.`
      : undefined;
    if (reason) {
      this.#options.logger.warn("Input refused", { source, inputId: input.id, reason });
      this.#delivery.reply(input, {
        inputId: input.id,
        channel: input.channel,
        text: reason,
        status: "refused",
        errorCode: "refused",
      });
      return { accepted: false, inputId: input.id, reason };
    }
    return { accepted: true, inputId: input.id };
  }

  async #run(input: Input, signal: AbortSignal, control: TurnControl): Promise<Reply> {
    this.#loop.scheduler.configure(schedulerSettings(this.#options.config, this.#options));
    const catalog = this.catalog.forTurn(input);
    const reply = await runTurn(input, signal, {
      clock: this.#options.clock,
      logger: this.#options.logger.child({ turnId: input.id }),
      events: this.events,
      stages: this.stages,
      llm: this.#options.llm,
      context: this.context,
      tools: () => this.allTools(),
      catalog,
      persona: this.#options.persona,
      recall: this.#options.recall,
      countTokens: this.#options.countTokens ?? estimateTokens,
      ranker: this.#options.ranker,
      cause: this.#options.cause ?? (input.consolidation ? "heartbeat" : input.source),
      settings: turnSettings(this.#options.config),
      control,
      media: this.#options.media,
      outbox: this.#outbox,
    }).finally(() => catalog.close());
    return await durableReply(this.context, reply);
  }

  /** Before the scheduler sees it, so every page shows the input ahead of its turn's events. */
  #publishInput(input: Input): void {
    this.events.publish({
      type: "input",
      turnId: input.id,
      source: input.source,
      channel: input.channel,
      ...(input.sender === undefined ? {} : { sender: input.sender }),
      text: input.text,
      level: input.priority,
      receivedAt: input.receivedAt,
    });
  }

  #publishStatus(): void {
    const scheduler = this.#loop.scheduler;
    this.events.publish({
      type: "status",
      state: scheduler.running ? "busy" : "idle",
      pending: scheduler.waiting,
    });
  }
}
