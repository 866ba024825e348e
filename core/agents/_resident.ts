/** One resident: its own Agent (scheduler, context, persona) over an overlay graph. */
import { Agent } from "../kernel/agent.ts";
import { RecentContext } from "../prompt/context.ts";
import type { GraphMemory } from "../memory/graph.ts";
import { OverlayGraph } from "../memory/graph_overlay.ts";
import { graphMemoryTools } from "../memory/graph_tools.ts";
import type { OutputRegistry } from "../kernel/output.ts";
import { z } from "zod";
import type { RegisteredTool } from "../kernel/tools.ts";
import { defineTool } from "../kernel/define_tool.ts";
import { type HelperDeps, UNLENT_TOOLS } from "./children.ts";

/** A task sent to a resident and its one terminal outcome. */
export interface ResidentTask {
  readonly id: string;
  readonly resident: string;
  readonly text: string;
  /** answered: by the resident, reported to the parent; handed_back: answered by the parent. */
  outcome?: "answered" | "handed_back" | "dropped";
  reply?: import("../input.ts").Reply;
}

/** A resident as `list` shows it. */
export interface ResidentSummary {
  name: string;
  state: "idle" | "busy";
  openTasks: number;
  contextEvents: number;
  pendingTriples: number;
  createdAt: string;
}

/** A live resident. */
export interface Resident {
  name: string;
  instructions: string;
  createdAt: number;
  agent: Agent;
  context: RecentContext;
  graph: OverlayGraph;
  /** Tasks sent and not yet settled, by id (= the resident agent's input id). */
  open: Map<string, ResidentTask>;
  log: string[];
}

/** What building a resident needs besides the shared helper deps. */
export interface BuildResidentOptions extends HelperDeps {
  /** The parent's output channels, shared. */
  outputs: OutputRegistry;
  graph: GraphMemory;
  parentTools?: () => RegisteredTool[];
  /** Sends `text` to the parent as a report (the `report_to_parent` tool). */
  report(text: string): boolean;
}

const LOG_LINES = 50;
/**
 * Parent tools a resident never borrows: channel tools (it has them through the shared
 * registry) and the graph and social tools, which would write to the main graph directly —
 * a resident reaches the graph only through its overlay.
 */
const UNBORROWED_PREFIXES = ["output_send__", "memory_", "person_"];

/**
 * A resident agent: its own scheduler and context, persona from `instructions`, memory tools
 * over an overlay of the main graph, `report_to_parent`, and the parent's borrowed tools
 * minus spawning, channel, graph and social tools.
 */
export function buildResident(
  name: string,
  instructions: string,
  options: BuildResidentOptions,
): Resident {
  const context = new RecentContext({ capacity: 100 });
  const overlay = new OverlayGraph(options.graph, { clock: options.clock });
  const own = [...graphMemoryTools(overlay), reportTool(name, options.report)];
  const ownNames = new Set(own.map((t) => t.name));
  const borrowed = () =>
    (options.parentTools?.() ?? []).filter((t) =>
      !UNLENT_TOOLS.has(t.name) && !ownNames.has(t.name) &&
      !UNBORROWED_PREFIXES.some((prefix) => t.name.startsWith(prefix))
    );
  const agent = new Agent({
    clock: options.clock,
    logger: options.logger.child({ resident: name }),
    config: options.config,
    llm: options.llm,
    persona: () => residentPersona(name, instructions),
    cause: "resident",
    context,
    outputs: options.outputs,
    toolSources: [() => own, borrowed],
  });
  return {
    name,
    instructions,
    createdAt: options.clock.now(),
    agent,
    context,
    graph: overlay,
    open: new Map(),
    log: [],
  };
}

const REPORT = () => z.object({ text: z.string().min(1) });

function reportTool(name: string, report: (text: string) => boolean): RegisteredTool {
  return defineTool({
    name: "report_to_parent",
    always: true, // how a resident speaks up mid-task: never left for it to find
    description: "Tell the main agent something it must hear before your current task ends " +
      "(your final reply to each task is reported automatically)",
    input: REPORT,
    handler: ({ text }) =>
      report(`[resident report] "${name}": ${text}`)
        ? "Reported to the main agent."
        : { content: "This resident has ended", isError: true },
  });
}

/** The persona of resident `name`. */
export function residentPersona(name: string, instructions: string): string {
  return [
    `You are "${name}", a resident sub-agent working for the main agent (your parent).`,
    instructions.trim(),
    "Your final reply to each task is reported to the parent automatically. Facts you commit " +
    "to memory stay yours until the parent reclaims you. You may send to any output channel.",
  ].join("\n\n");
}

/** `list`'s view of a resident. */
export function summarize(r: Resident): ResidentSummary {
  const status = r.agent.status();
  return {
    name: r.name,
    state: status.state,
    openTasks: r.open.size,
    contextEvents: r.context.size(),
    pendingTriples: r.graph.pending().length,
    createdAt: new Date(r.createdAt).toISOString(),
  };
}

/** Append a line to the resident's bounded log. */
export function note(r: Resident, line: string): void {
  r.log.push(line);
  if (r.log.length > LOG_LINES) r.log.splice(0, r.log.length - LOG_LINES);
}

/** `text` cut to `max` characters. */
export function clip(text: string, max = 120): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
