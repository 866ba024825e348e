/** StageHost: the seven pipeline stages and their concurrently run handlers. */
import type { StageName } from "./events.ts";
import type { ToolCall } from "./provider.ts";
import type { ToolResult } from "./tools.ts";
import type { Input } from "./input.ts";
import { type Clock, type Logger, sleep } from "./ports.ts";
import { errorMessage } from "./errors.ts";

/** Every stage, in pipeline order. */
export const STAGES: readonly StageName[] = [
  "on_input",
  "pre_action",
  "post_action",
  "before_toolcall",
  "after_toolcall",
  "before_output",
  "after_output",
];

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
  /** pre_action: extra system messages appended to the prompt. */
  systemMessages: string[];
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
}

const TOOL_STAGES = new Set<StageName>(["post_action", "before_toolcall", "after_toolcall"]);

/** Options of a StageHost. */
export interface StageHostOptions {
  clock: Clock;
  logger: Logger;
  /** A handler still running after this long is logged and no longer waited for. */
  handlerTimeoutMs?: number;
}

/** Holds stage handlers and runs a stage's handlers concurrently on one shared context. */
export class StageHost {
  #stages = new Map<StageName, Registration[]>();
  #clock: Clock;
  #logger: Logger;
  #timeoutMs: number;

  constructor(options: StageHostOptions) {
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
    if (!STAGES.includes(stage)) throw new TypeError(`Unknown stage "${stage}"`);
    const scope = options.scope ?? "global";
    if (scope === "own_tools" && !TOOL_STAGES.has(stage)) {
      throw new TypeError(
        `Stage scope "own_tools" applies only to post_action, before_toolcall and after_toolcall, not "${stage}"`,
      );
    }
    const registration = { plugin: options.plugin, scope, handler };
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
   * rejects or overruns the timeout is logged with its stack; the others' effects stand.
   * `toolPlugins` are the owners of the tools involved, for "own_tools" handlers.
   */
  async run(context: StageContext, toolPlugins: readonly string[] = []): Promise<void> {
    const list = (this.#stages.get(context.stage) ?? []).filter((r) =>
      r.scope === "global" || toolPlugins.includes(r.plugin)
    );
    if (list.length === 0) return;
    await Promise.all(list.map((r) => this.#runOne(r, context)));
  }

  async #runOne(registration: Registration, context: StageContext): Promise<void> {
    const timeout = new AbortController();
    try {
      const outcome = await Promise.race([
        Promise.resolve().then(() => registration.handler(context)).then(() => "done" as const),
        sleep(this.#clock, this.#timeoutMs, timeout.signal).then(
          () => "timeout" as const,
          () => "cancelled" as const, // the handler finished first
        ),
      ]);
      if (outcome === "timeout") {
        this.#logger.error("Stage handler timed out", {
          stage: context.stage,
          plugin: registration.plugin,
          timeoutMs: this.#timeoutMs,
        });
      }
    } catch (error) {
      this.#logger.error("Stage handler failed", {
        stage: context.stage,
        plugin: registration.plugin,
        error: errorMessage(error),
        stack: error instanceof Error ? error.stack : undefined,
      });
    } finally {
      timeout.abort();
    }
  }
}
