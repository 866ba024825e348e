/** StageHost: the seven pipeline stages and their concurrently run handlers. */
import { type EventBus, isStageName, type ReplyStatus, type StageName } from "../events.ts";
import type { ToolCall } from "../llm/provider.ts";
import type { ToolResult } from "./tools.ts";
import type { Input } from "../input.ts";
import type { MemorySection } from "../prompt/system_prompt.ts";
import { type Clock, type Logger, sleep } from "../ports.ts";
import { errorMessage } from "../errors.ts";
import { type BreakerChange, StageBreaker, type StageBreakerOptions } from "./stage_breaker.ts";

export type { StageBreakerOptions } from "./stage_breaker.ts";

/** The call a before/after_toolcall stage sees; `args` may be rewritten by before_toolcall. */
export interface StageToolCall {
  call: ToolCall;
  args: Record<string, unknown>;
  plugin: string;
}

/**
 * The one mutable context all handlers of a stage share. Setting `response` short-circuits
 * the pipeline to after_output; each field is meaningful in the stages named beside it.
 */
export interface StageContext {
  readonly stage: StageName;
  readonly turnId: string;
  /** on_input may rewrite `input.text`. */
  readonly input: Input;
  /** Short-circuit reply; any stage but after_output may set it. */
  response?: string;
  /** pre_action: extra system messages appended to the prompt (never cut: keep them short). */
  systemMessages: string[];
  /**
   * pre_action: titled sections for the prompt (a skill index, a plugin's reference data). Each
   * takes its kind's share of the token budget, or the "other" share, and is cut by relevance.
   */
  promptSections?: MemorySection[];
  /** post_action: the model's text and tool calls of this round (may be filtered). */
  llmText?: string;
  toolCalls?: ToolCall[];
  /** before_toolcall / after_toolcall: the call under way. */
  toolCall?: StageToolCall;
  /** before_toolcall: set to reject the call; the model reads the reason. */
  reject?: string;
  /** after_toolcall: the result, which handlers may rewrite. */
  toolResult?: ToolResult;
  /** before_output: the final text, which handlers may rewrite. after_output: read only. */
  output?: string;
  /** after_output: how the turn ended. */
  status?: ReplyStatus;
  /** Free-form data shared between handlers of one turn. */
  readonly shared: Map<string, unknown>;
}

/** A stage handler; it mutates the shared context. Throwing is isolated and logged. */
export type StageHandler = (context: StageContext) => void | Promise<void>;

/** Where a handler applies: every call, or only calls of its own plugin's tools. */
export type StageScope = "global" | "own_tools";

interface Registration {
  plugin: string;
  scope: StageScope;
  handler: StageHandler;
  breaker: StageBreaker;
}

const TOOL_STAGES = new Set<StageName>(["post_action", "before_toolcall", "after_toolcall"]);

/** Options of a StageHost. */
export interface StageHostOptions {
  clock: Clock;
  logger: Logger;
  /** A handler still running after this long is logged and no longer waited for. */
  handlerTimeoutMs?: number;
  /** Where breaker notices (`stage_breaker`) are published. */
  events?: EventBus;
  /** When a handler that keeps timing out is bypassed (each handler has its own breaker). */
  breaker?: StageBreakerOptions;
}

/** A handler error that means it ran out of time (a DOMException named TimeoutError). */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}

/**
 * Holds stage handlers and runs a stage's handlers concurrently on one shared context. A
 * handler that times out repeatedly is bypassed by its breaker for a cool-off (with a log line
 * and a `stage_breaker` event naming plugin and stage), so chats do not pay its timeout.
 */
export class StageHost {
  #stages = new Map<StageName, Registration[]>();
  #options: StageHostOptions;
  #clock: Clock;
  #logger: Logger;
  #timeoutMs: number;

  constructor(options: StageHostOptions) {
    this.#options = options;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#timeoutMs = options.handlerTimeoutMs ?? 30_000;
  }

  /** Add a handler to `stage`; returns a function that removes it. */
  register(
    stage: StageName,
    handler: StageHandler,
    options: { plugin: string; scope?: StageScope },
  ): () => void {
    if (!isStageName(stage)) throw new TypeError(`Unknown stage "${stage}"`);
    const scope = options.scope ?? "global";
    if (scope === "own_tools" && !TOOL_STAGES.has(stage)) {
      throw new TypeError(
        `Stage scope "own_tools" applies only to post_action, before_toolcall and after_toolcall, not "${stage}"`,
      );
    }
    const breaker = new StageBreaker(this.#clock, this.#options.breaker);
    const registration = { plugin: options.plugin, scope, handler, breaker };
    const list = this.#stages.get(stage) ?? [];
    list.push(registration);
    this.#stages.set(stage, list);
    return () => {
      const current = this.#stages.get(stage);
      if (current) this.#stages.set(stage, current.filter((r) => r !== registration));
    };
  }

  /** Remove every handler registered by `plugin`; returns how many were removed. */
  unregisterPlugin(plugin: string): number {
    let removed = 0;
    for (const [stage, list] of this.#stages) {
      const kept = list.filter((r) => r.plugin !== plugin);
      removed += list.length - kept.length;
      this.#stages.set(stage, kept);
    }
    return removed;
  }

  /** Number of handlers on `stage`. */
  count(stage: StageName): number {
    return this.#stages.get(stage)?.length ?? 0;
  }

  /**
   * Run every applicable handler of `context.stage` concurrently. A handler that throws,
   * rejects or overruns the timeout is logged with its stack; the others' effects stand. A
   * handler whose breaker is open is skipped. `toolPlugins` are the owners of the tools
   * involved, for "own_tools" handlers.
   */
  async run(context: StageContext, toolPlugins: readonly string[] = []): Promise<void> {
    const list = (this.#stages.get(context.stage) ?? []).filter((r) =>
      r.scope === "global" || toolPlugins.includes(r.plugin)
    );
    if (list.length === 0) return;
    await Promise.all(list.map((r) => this.#runOne(r, context)));
  }

  async #runOne(registration: Registration, context: StageContext): Promise<void> {
    const admission = registration.breaker.admit();
    if (admission === "skip") return;
    const timedOut = await this.#attempt(registration, context);
    const change = registration.breaker.record(admission, timedOut);
    if (change) this.#announce(registration.plugin, context.stage, change);
  }

  /** Run one handler under the timeout; true when it ran out of time. */
  async #attempt(registration: Registration, context: StageContext): Promise<boolean> {
    const timeout = new AbortController();
    const where = { stage: context.stage, plugin: registration.plugin };
    try {
      const outcome = await Promise.race([
        Promise.resolve().then(() => registration.handler(context)).then(() => "done" as const),
        sleep(this.#clock, this.#timeoutMs, timeout.signal).then(
          () => "timeout" as const,
          () => "cancelled" as const, // the handler finished first
        ),
      ]);
      if (outcome !== "timeout") return false;
      this.#logger.error("Stage handler timed out", { ...where, timeoutMs: this.#timeoutMs });
      return true;
    } catch (error) {
      if (isTimeout(error)) {
        this.#logger.error("Stage handler timed out", { ...where, error: errorMessage(error) });
        return true;
      }
      this.#logger.error("Stage handler failed", {
        ...where,
        error: errorMessage(error),
        stack: error instanceof Error ? error.stack : undefined,
      });
      return false;
    } finally {
      timeout.abort();
    }
  }

  #announce(plugin: string, stage: StageName, change: BreakerChange): void {
    if (change.state === "open") {
      this.#logger.warn("Stage handler bypassed after repeated timeouts", {
        plugin,
        stage,
        timeouts: change.timeouts,
        retryInMs: change.retryInMs,
      });
    } else this.#logger.info("Stage handler answered again; no longer bypassed", { plugin, stage });
    this.#options.events?.publish({ type: "stage_breaker", plugin, stage, ...change });
  }
}
