/** The `resident_agents` tool: the parent's control plane over its residents. */
import { HomeAgentError } from "../errors.ts";
import type { RegisteredTool, ToolResult } from "../kernel/tools.ts";
import type { ResidentPool, ResidualPolicy } from "./residents.ts";
import { RESIDENT_AGENTS_TOOL } from "./children.ts";

const ACTIONS = ["list", "create", "send", "inspect", "compress", "reclaim", "destroy"] as const;
type Action = typeof ACTIONS[number];

/** Arguments each action needs besides `action`. */
const NEEDS: Record<Action, string[]> = {
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
  return {
    name: RESIDENT_AGENTS_TOOL,
    plugin: "core",
    description: DESCRIPTION,
    parameters: {
      type: "object",
      properties: {
        action: { type: "string", enum: [...ACTIONS] },
        name: { type: "string", pattern: "^[a-z0-9_-]{1,32}$", description: "Resident name" },
        instructions: { type: "string", description: "create: its persona and standing orders" },
        text: { type: "string", description: "send: the task" },
        residual: {
          type: "string",
          enum: ["keep", "drop"],
          description: 'reclaim/destroy: unfinished tasks, "keep" (default) or "drop"',
        },
        keep: {
          type: "integer",
          minimum: 0,
          maximum: 50,
          description: "compress: newest events kept verbatim (default 4)",
        },
      },
      required: ["action"],
      additionalProperties: false,
    },
    handler: async (args, context): Promise<ToolResult> => {
      const action = args.action as Action;
      const missing = NEEDS[action].filter((key) =>
        typeof args[key] !== "string" || args[key] === ""
      );
      if (missing.length > 0) {
        const needs = missing.map((k) => `"${k}"`).join(" and ");
        return { content: `Action "${action}" needs ${needs}`, isError: true };
      }
      try {
        return { content: JSON.stringify(await run(pool, action, args, context.signal)) };
      } catch (error) {
        if (error instanceof HomeAgentError || error instanceof RangeError) {
          return { content: error.message, isError: true };
        }
        throw error;
      }
    },
  };
}

async function run(
  pool: ResidentPool,
  action: Action,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  const name = String(args.name ?? "");
  const residual = (args.residual as ResidualPolicy | undefined) ?? "keep";
  switch (action) {
    case "list":
      return { residents: pool.list() };
    case "create":
      return { created: pool.create(name, String(args.instructions)) };
    case "send": {
      const task = pool.send(name, String(args.text));
      return {
        queued: task.id,
        resident: name,
        note: "Its result will arrive as a resident report.",
      };
    }
    case "inspect":
      return pool.inspect(name);
    case "compress":
      return await pool.compress(name, { keep: args.keep as number | undefined, signal });
    case "reclaim":
      return await pool.reclaim(name, residual);
    case "destroy":
      return await pool.destroy(name, residual);
  }
}
