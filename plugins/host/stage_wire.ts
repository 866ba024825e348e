/** StageContext ↔ wire: what a subprocess or Lua stage handler sees, and applying its mutations. */
import type { MemorySection, StageContext, StageName } from "../../core/mod.ts";
import type {
  StageMutation,
  StageName as WireStageName,
  WireStageContext,
} from "../sdk/protocol.ts";

/** True when A and B are the same union; the wire's stage names must be the kernel's. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
true satisfies Same<StageName, WireStageName>;

/** The JSON view of a stage context. */
export function stageToWire(context: StageContext): WireStageContext {
  const { input } = context;
  return {
    stage: context.stage,
    turnId: context.turnId,
    input: {
      id: input.id,
      text: input.text,
      source: input.source,
      channel: input.channel,
      priority: input.priority,
    },
    response: context.response,
    systemMessages: [...context.systemMessages],
    llmText: context.llmText,
    toolCalls: context.toolCalls?.map((c) => ({ ...c })),
    toolCall: context.toolCall
      ? {
        call: { ...context.toolCall.call },
        args: context.toolCall.args,
        plugin: context.toolCall.plugin,
      }
      : undefined,
    reject: context.reject,
    toolResult: context.toolResult ? { ...context.toolResult } : undefined,
    output: context.output,
  };
}

const isString = (v: unknown): v is string => typeof v === "string";

/** Sections one handler may add, and lines per section: the budget cuts them, this bounds work. */
const MAX_SECTIONS = 8;
const MAX_LINES = 500;
const KINDS = new Set(["graph", "documents", "knowledge", "skills"]);

function toSection(raw: unknown): MemorySection[] {
  if (typeof raw !== "object" || raw === null) return [];
  const r = raw as Record<string, unknown>;
  if (!isString(r.title) || !Array.isArray(r.lines)) return [];
  const lines = r.lines.filter(isString).slice(0, MAX_LINES);
  if (lines.length === 0) return [];
  const kind = isString(r.kind) && KINDS.has(r.kind) ? r.kind as MemorySection["kind"] : undefined;
  return [{
    title: r.title.slice(0, 100),
    lines,
    ...(kind ? { kind } : {}),
    ranked: r.ranked === true,
  }];
}

/** Apply a handler's mutations to the shared context; fields of the wrong type are ignored. */
export function applyMutation(context: StageContext, mutation: unknown): void {
  if (typeof mutation !== "object" || mutation === null) return;
  const m = mutation as StageMutation;
  if (isString(m.inputText) && context.stage === "on_input") context.input.text = m.inputText;
  if (Array.isArray(m.systemMessages)) {
    context.systemMessages.push(...m.systemMessages.filter(isString));
  }
  if (Array.isArray(m.promptSections) && context.stage === "pre_action") {
    context.promptSections?.push(...m.promptSections.slice(0, MAX_SECTIONS).flatMap(toSection));
  }
  if (isString(m.llmText)) context.llmText = m.llmText;
  if (Array.isArray(m.toolCalls) && context.toolCalls) {
    context.toolCalls = m.toolCalls.filter((c) =>
      c && isString(c.id) && isString(c.name) && isString(c.arguments)
    );
  }
  if (m.toolArgs && typeof m.toolArgs === "object" && context.toolCall) {
    context.toolCall.args = m.toolArgs;
  }
  if (isString(m.reject)) context.reject = m.reject;
  if (m.toolResult && isString(m.toolResult.content)) {
    context.toolResult = { content: m.toolResult.content, isError: m.toolResult.isError === true };
  }
  if (isString(m.output) && context.stage === "before_output") context.output = m.output;
  if (isString(m.response) && context.stage !== "after_output") context.response = m.response;
}
