/**
 * An Agent over a ScriptedLlm and a ManualClock, for scheduler tests that need many turns
 * fast and no HTTP: records every reply per input and every kernel event.
 */
import { Agent, type InjectOptions, type KernelEvent, type Reply } from "../../core/mod.ts";
import { ManualClock } from "./clock.ts";
import { openTestRegistry, type TestRegistry } from "./config.ts";
import { MemoryLogger } from "./logger.ts";
import { type Respond, ScriptedLlm } from "./scripted_llm.ts";

/** Options of createScriptedAgent. */
export interface ScriptedAgentOptions {
  respond?: Respond;
  latency?: number;
  /** Config values set first (`core.agent.preempt_cooldown_ms`, …). */
  config?: Record<string, unknown>;
}

/** A running scripted agent; dispose it to close the agent and the database. */
export interface ScriptedAgent extends AsyncDisposable {
  agent: Agent;
  llm: ScriptedLlm;
  clock: ManualClock;
  logger: MemoryLogger;
  config: TestRegistry;
  events: KernelEvent[];
  /** Every reply each input received, by input id. */
  replies: Map<string, Reply[]>;
  /** Inject `text` at `level` (0 plain, 1–4 interrupt) from `source`; returns the input id. */
  inject(text: string, level?: number, options?: InjectOptions & { source?: string }): string;
  /** The one reply of `id`, once it has arrived. */
  reply(id: string): Promise<Reply>;
}

/** Build an Agent over a ScriptedLlm. */
export function createScriptedAgent(options: ScriptedAgentOptions = {}): ScriptedAgent {
  const config = openTestRegistry();
  for (const [key, value] of Object.entries(options.config ?? {})) config.registry.set(key, value);
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  const llm = new ScriptedLlm({ respond: options.respond, latency: options.latency });
  const agent = new Agent({
    clock,
    logger,
    config: config.registry,
    llm,
    persona: () => "You are a scripted test agent.",
  });
  const events: KernelEvent[] = [];
  agent.events.subscribe("*", (event) => void events.push(event));
  const replies = new Map<string, Reply[]>();
  const waiters = new Map<string, (reply: Reply) => void>();
  const record = (reply: Reply) => {
    replies.set(reply.inputId, [...replies.get(reply.inputId) ?? [], reply]);
    waiters.get(reply.inputId)?.(reply);
  };
  return {
    agent,
    llm,
    clock,
    logger,
    config,
    events,
    replies,
    inject(text, level = 0, opts = {}) {
      const source = opts.source ?? "test";
      const injectOptions: InjectOptions = {
        ...opts,
        ...(level > 0 ? { priority: level as 1 | 2 | 3 | 4 } : {}),
        onReply: (reply) => {
          record(reply);
          opts.onReply?.(reply);
        },
      };
      const result = level > 0
        ? agent.injectInterrupt(source, text, injectOptions)
        : agent.injectInput(source, text, injectOptions);
      return result.inputId;
    },
    reply(id) {
      const got = replies.get(id)?.[0];
      if (got) return Promise.resolve(got);
      return new Promise((resolve) => waiters.set(id, resolve));
    },
    async [Symbol.asyncDispose]() {
      for (const call of llm.open) call.release({ text: "released at dispose" });
      await agent.close();
      config[Symbol.dispose]();
    },
  };
}

/** The text of the input a request answers (the first user message). */
export function inputText(request: { messages: { role: string; content?: unknown }[] }): string {
  return String(request.messages.find((m) => m.role === "user")?.content ?? "");
}

/** Let pending promise callbacks run (a macrotask turn). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
