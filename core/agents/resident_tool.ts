/** The `resident_agents` tool: the parent's control plane over its residents. */
import { z } from "zod";
import { HomeAgentError } from "../errors.ts";
import type { RegisteredTool, ToolResult } from "../kernel/tools.ts";
import { defineTool } from "../kernel/define_tool.ts";
import type { ResidentPool } from "./residents.ts";
import { RESIDENT_AGENTS_TOOL } from "./children.ts";

const ACTIONS = ["list", "create", "send", "inspect", "compress", "reclaim", "destroy"] as const;
type Action = typeof ACTIONS[number];

const INPUT = () =>
  z.object({
    action: z.enum(ACTIONS),
    name: z.string().regex(/^[a-z0-9_-]{1,32}$/).optional().describe("Resident name"),
    instructions: z.string().optional().describe("create: its persona and standing orders"),
    text: z.string().optional().describe("send: the task"),
    residual: z.enum(["keep", "drop"]).optional()
      .describe('reclaim/destroy: unfinished tasks, "keep" (default) or "drop"'),
    keep: z.int().min(0).max(50).optional()
      .describe("compress: newest events kept verbatim (default 4)"),
  });
type Args = z.output<ReturnType<typeof INPUT>>;

/** Arguments each action needs besides `action`. */
const NEEDS: Record<Action, ("name" | "instructions" | "text")[]> = {
  list: [],
  create: ["name", "instructions"],
  send: ["name", "text"],
  inspect: ["name"],
  compress: ["name"],
  reclaim: ["name"],
  destroy: ["name"],
};

const DESCRIPTION =
  "Manage resident sub-agents: long-lived helpers with their own queue, persona " +
  "and scratch memory, sharing your output channels. Actions: list; create {name, " +
  "instructions}; send {name, text} (queues a task; its result reaches you later as a resident " +
  "report); inspect {name}; compress {name, keep?} (summarise its context); reclaim {name, " +
  "residual?} (end it and merge its memory into yours); destroy {name, residual?} (end it, " +
  'discard its memory). residual "keep" (default) hands unfinished tasks back to you; ' +
  '"drop" discards them.';

/** The `resident_agents` tool over `pool`. Misuse and refusals come back as error results. */
export function residentAgentsTool(pool: ResidentPool): RegisteredTool {
  return defineTool({
    name: RESIDENT_AGENTS_TOOL,
    description: DESCRIPTION,
    input: INPUT,
    handler: async (args, context): Promise<ToolResult> => {
      const missing = NEEDS[args.action].filter((key) => !args[key]);
      if (missing.length > 0) {
        const needs = missing.map((k) => `"${k}"`).join(" and ");
        return { content: `Action "${args.action}" needs ${needs}`, isError: true };
      }
      try {
        return { content: JSON.stringify(await run(pool, args, context.signal)) };
      } catch (error) {
        if (error instanceof HomeAgentError || error instanceof RangeError) {
          return { content: error.message, isError: true };
        }
        throw error;
      }
    },
  });
}

async function run(pool: ResidentPool, args: Args, signal: AbortSignal): Promise<unknown> {
  const name = args.name ?? "";
  const residual = args.residual ?? "keep";
  switch (args.action) {
    case "list":
      return { residents: pool.list() };
    case "create":
      return { created: pool.create(name, args.instructions ?? "") };
    case "send": {
      const task = pool.send(name, args.text ?? "");
      return {
        queued: task.id,
        resident: name,
        note: "Its result will arrive as a resident report.",
      };
    }
    case "inspect":
      return pool.inspect(name);
    case "compress":
      return await pool.compress(name, { keep: args.keep, signal });
    case "reclaim":
      return await pool.reclaim(name, residual);
    case "destroy":
      return await pool.destroy(name, residual);
  }
}
