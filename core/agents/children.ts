/**
 * `spawn_child`: a bounded one-shot child agent. It runs one task with the parent's tools
 * (minus the agent-spawning tools, so recursion stays one level deep) and the channel send
 * tools, answers within `max_turns` LLM calls, and is cancelled with the calling turn.
 */
import { Agent, type KernelConfig } from "../kernel/agent.ts";
import type { Clock, Logger } from "../ports.ts";
import type { LlmCaller } from "../llm/call.ts";
import { z } from "zod";
import type { RegisteredTool, ToolResult } from "../kernel/tools.ts";
import { defineTool } from "../kernel/define_tool.ts";
import type { Reply } from "../input.ts";
import { TOOL_LOAD, TOOL_SEARCH } from "../kernel/tool_catalog.ts";

/** What the kernel's helper agents (children, residents, triage assistants) are built from. */
export interface HelperDeps {
  clock: Clock;
  logger: Logger;
  /** The parent's config; helpers read the same `core.agent.*` settings. */
  config: KernelConfig;
  /** The parent's LLM caller (the ProviderManager in the daemon). */
  llm: LlmCaller;
}

/** Name of the child-spawning tool. */
export const SPAWN_CHILD_TOOL = "spawn_child";
/** Name of the resident control tool. */
export const RESIDENT_AGENTS_TOOL = "resident_agents";
/** Tools a helper agent never gets: they would let it spawn helpers of its own. */
export const SPAWNING_TOOLS: ReadonlySet<string> = new Set([
  SPAWN_CHILD_TOOL,
  RESIDENT_AGENTS_TOOL,
]);
/**
 * Tools a helper agent never borrows from its parent: the spawning ones, and the parent's
 * tool_search / tool_load (a helper is an agent with a catalog of its own).
 */
export const UNLENT_TOOLS: ReadonlySet<string> = new Set([
  ...SPAWNING_TOOLS,
  TOOL_SEARCH,
  TOOL_LOAD,
]);
/** Default, smallest and largest `max_turns` of a child. */
export const CHILD_MAX_TURNS = { default: 5, min: 1, max: 30 } as const;
/** How long one spawn_child call may run before the tool times out (ms). */
export const CHILD_TIMEOUT_MS = 600_000;

/** A config that answers `key` with `value` and defers every other key to `base`. */
export function overrideConfig(base: KernelConfig, values: Record<string, unknown>): KernelConfig {
  return {
    get: <T = unknown>(key: string): T => (key in values ? values[key] : base.get(key)) as T,
  };
}

/** Options of runChild. */
export interface RunChildOptions extends HelperDeps {
  /** The parent's tools now (spawning tools are removed here). */
  tools: () => RegisteredTool[];
  /** Most LLM calls the child may make; default 5, 1–30. */
  maxTurns?: number;
  /** Extra instructions for the child besides the task. */
  instructions?: string;
  /** The calling turn's signal: aborting it stops the child. */
  signal?: AbortSignal;
}

/**
 * Run `task` in a fresh child agent and resolve with its one reply. Never rejects on the
 * child's failure (that is the reply's status); throws RangeError on a bad `maxTurns`.
 */
export async function runChild(task: string, options: RunChildOptions): Promise<Reply> {
  const maxTurns = options.maxTurns ?? CHILD_MAX_TURNS.default;
  if (
    !Number.isInteger(maxTurns) || maxTurns < CHILD_MAX_TURNS.min || maxTurns > CHILD_MAX_TURNS.max
  ) {
    throw new RangeError(`Cannot spawn a child: max_turns ${maxTurns} is not an integer 1–30`);
  }
  const child = new Agent({
    clock: options.clock,
    logger: options.logger.child({ component: "child" }),
    config: overrideConfig(options.config, { "core.agent.max_tool_turns": maxTurns }),
    llm: options.llm,
    persona: () => childPersona(maxTurns, options.instructions),
    cause: "child",
    toolSources: [() => options.tools().filter((t) => !UNLENT_TOOLS.has(t.name))],
  });
  const onAbort = () => child.stop();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const reply = child.injectInputSync("parent", task, { channel: "_child_" });
    if (options.signal?.aborted) onAbort();
    return await reply;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    await child.close();
  }
}

function childPersona(maxTurns: number, instructions?: string): string {
  return [
    "You are a child agent spawned by the main agent for one task. Do the task with the tools " +
    `you have, within ${maxTurns} model calls, and reply with the result only: your reply is ` +
    "handed back to the main agent as the result of its tool call.",
    instructions?.trim() ?? "",
  ].filter((s) => s !== "").join("\n\n");
}

/** Options of spawnChildTool. */
export interface SpawnChildToolOptions extends HelperDeps {
  /** The parent's tools at call time (e.g. `() => agent.allTools()`). */
  tools: () => RegisteredTool[];
}

/** The `spawn_child` tool: runs a child for the task and returns its final text. */
export function spawnChildTool(options: SpawnChildToolOptions): RegisteredTool {
  return defineTool({
    name: SPAWN_CHILD_TOOL,
    description: "Spawn a one-shot child agent that does one self-contained task with your " +
      "tools (it cannot spawn agents itself) and returns its final answer. Bounded by " +
      `max_turns model calls (default ${CHILD_MAX_TURNS.default}); cancelled if you are stopped.`,
    input: () =>
      z.object({
        task: z.string().min(1).describe("The task, self-contained"),
        instructions: z.string().optional().describe("How the child should work (optional)"),
        max_turns: z.int().min(CHILD_MAX_TURNS.min).max(CHILD_MAX_TURNS.max).optional()
          .describe(`Most model calls of the child (default ${CHILD_MAX_TURNS.default})`),
      }),
    timeoutMs: CHILD_TIMEOUT_MS,
    handler: async (args, context): Promise<ToolResult> => {
      const reply = await runChild(args.task, {
        ...options,
        maxTurns: args.max_turns,
        instructions: args.instructions,
        signal: context.signal,
      });
      if (reply.status === "ok") return { content: reply.text };
      return {
        content: `The child ended with status "${reply.status}": ${reply.text}`,
        isError: true,
      };
    },
  });
}
