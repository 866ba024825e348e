/** One round of tool calls inside a turn: before_toolcall → execute → after_toolcall per call. */
import type { EventBus, StageName } from "../events.ts";
import type { ToolCall } from "../llm/provider.ts";
import type { Input } from "../input.ts";
import type { StageContext } from "./stages.ts";
import { executeTool, parseToolArguments, type RegisteredTool, type ToolResult } from "./tools.ts";
import type { Clock, Logger } from "../ports.ts";
import { errorMessage } from "../errors.ts";

/** What a round needs from its turn: stage contexts and a stage runner that short-circuits. */
export interface RoundState {
  stage(name: StageName, extra?: Partial<StageContext>): StageContext;
  runStage(context: StageContext, plugins?: string[]): Promise<void>;
}

/** What a round needs from its turn's deps (TurnDeps has all of it). */
export interface RoundDeps {
  clock: Clock;
  logger: Logger;
  events: EventBus;
  settings: { toolTimeoutMs: number };
}

/** The result of one call as the model will read it. */
export interface CallOutcome {
  content: string;
  rejected: boolean;
}

/** Run a round's calls: runs of parallel-safe calls together, the others one at a time. */
export async function executeRound(
  input: Input,
  calls: ToolCall[],
  byName: Map<string, RegisteredTool>,
  signal: AbortSignal,
  deps: RoundDeps,
  state: RoundState,
): Promise<CallOutcome[]> {
  const outcomes: CallOutcome[] = [];
  let i = 0;
  while (i < calls.length) {
    let j = i + 1;
    if (byName.get(calls[i]!.name)?.parallelSafe) {
      while (j < calls.length && byName.get(calls[j]!.name)?.parallelSafe) j++;
    }
    const batch = calls.slice(i, j);
    outcomes.push(
      ...await Promise.all(batch.map((call) => runCall(input, call, byName, signal, deps, state))),
    );
    i = j;
  }
  return outcomes;
}

/** before_toolcall → execute → after_toolcall for one call. Short-circuits propagate. */
async function runCall(
  input: Input,
  call: ToolCall,
  byName: Map<string, RegisteredTool>,
  signal: AbortSignal,
  deps: RoundDeps,
  state: RoundState,
): Promise<CallOutcome> {
  const tool = byName.get(call.name);
  if (!tool) {
    return {
      content: `Error: unknown tool "${call.name}"; tool_search finds the tools there are`,
      rejected: false,
    };
  }
  const parsed = parseToolArguments(tool, call);
  if (!parsed.ok) return { content: `Error: ${parsed.error}`, rejected: false };

  const toolCall = { call, args: parsed.args, plugin: tool.plugin };
  const before = state.stage("before_toolcall", { toolCall });
  await state.runStage(before, [tool.plugin]);
  if (before.reject !== undefined) {
    deps.logger.info("Tool call rejected", { tool: call.name, reason: before.reject });
    return { content: `Rejected: ${before.reject}`, rejected: true };
  }

  deps.events.publish({ type: "tool_call", turnId: input.id, call, phase: "start" });
  const result: ToolResult = await executeTool(tool, toolCall.args, call, {
    clock: deps.clock,
    logger: deps.logger,
    turnId: input.id,
    signal,
    defaultTimeoutMs: deps.settings.toolTimeoutMs,
  });
  deps.events.publish({
    type: "tool_call",
    turnId: input.id,
    call,
    phase: "end",
    ok: !result.isError,
  });

  const after = state.stage("after_toolcall", { toolCall, toolResult: result });
  await state.runStage(after, [tool.plugin]);
  const final = after.toolResult ?? result;
  return { content: final.isError ? `Error: ${final.content}` : final.content, rejected: false };
}

/** Plugins owning the tools these calls name. */
export function ownersOf(calls: ToolCall[], byName: Map<string, RegisteredTool>): string[] {
  return [...new Set(calls.flatMap((c) => byName.get(c.name)?.plugin ?? []))];
}

/**
 * What the window keeps of a tool's output for relevance scoring, by the tool's memory policy:
 * nothing of a `noMemory` tool, a `cleaner`'s result (the model saw the output verbatim). A
 * cleaner that throws keeps nothing: what could not be cleaned is not remembered.
 */
export function memoryOutput(
  tool: RegisteredTool | undefined,
  output: string,
  deps: { logger: Logger },
): string | undefined {
  if (tool?.noMemory) return undefined;
  try {
    return tool?.cleaner ? tool.cleaner(output) : output;
  } catch (error) {
    deps.logger.error("Tool output cleaner failed; the output is not remembered", {
      tool: tool?.name,
      error: errorMessage(error),
    });
    return undefined;
  }
}
