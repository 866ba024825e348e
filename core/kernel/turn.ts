/**
 * One turn: the whole pipeline of ARCHITECTURE.md "Full Pipeline", from on_input to
 * after_output, with the tool loop in the middle. Reads top-down; the helpers below it are small.
 */
import type { EventBus, StageName } from "../events.ts";
import type { ChatMessage, ChatResponse } from "../llm/provider.ts";
import type { Clock, Logger } from "../ports.ts";
import type { ContextWindow } from "../prompt/context.ts";
import type { Input, Reply } from "../input.ts";
import type { StageContext, StageHost } from "./stages.ts";
import { type RegisteredTool, toSchema } from "./tools.ts";
import {
  type MemorySection,
  type PromptRelevance,
  promptRequest,
} from "../prompt/system_prompt.ts";
import type { SectionShares, TokenCounter } from "../prompt/budget.ts";
import type { TextRanker } from "../memory/ranker.ts";
import { promptRelevance } from "./_turn_relevance.ts";
import { pruneContext, recallMemory } from "./_turn_steps.ts";
import { callLlm, failureReply, ShortCircuit } from "./_turn_call.ts";
import { runUpkeepCall } from "./upkeep_call.ts";
import type { TurnControl } from "./turn_control.ts";
import { executeRound, memoryOutput, ownersOf } from "./tool_round.ts";
import type { MediaStore } from "../memory/media.ts";
import { loadTurnImages, type MediaOutbox } from "./media_turn.ts";
import type { ImagePart } from "../llm/provider.ts";
import type { LlmCaller, RequestBuilder } from "../llm/call.ts";
import type { TurnTools } from "./tool_catalog.ts";

/** Turn settings, read from config at the start of each turn. */
export interface TurnSettings {
  maxToolTurns: number;
  toolTimeoutMs: number;
  stream: boolean;
  /** Each prompt section's share of the budget (`core.prompt.shares`); default the built-in. */
  shares?: SectionShares;
}

/** Everything a turn touches, handed in by the Agent. */
export interface TurnDeps {
  clock: Clock;
  logger: Logger;
  events: EventBus;
  stages: StageHost;
  llm: LlmCaller;
  context: ContextWindow;
  /** Every tool the model may call this round, re-aggregated on each call. */
  tools(): RegisteredTool[];
  /** Which of them a request carries, per source window (tools by need); absent: all. */
  catalog?: TurnTools;
  persona(): string;
  /** Recalled memory for the prompt; absent until the memory tiers are wired. */
  recall?(input: Input, signal: AbortSignal): Promise<MemorySection[]>;
  countTokens: TokenCounter;
  /** What the prompt's sections are cut by when over their share; default shared words. */
  ranker?: TextRanker;
  /** The cause the turn's LLM calls are recorded under (the input's source, `heartbeat`, …). */
  cause?: string;
  settings: TurnSettings;
  /** Steering by the scheduler: suspension, `[打断消息]` notes, stop-while-queued. */
  control?: TurnControl;
  /** The media store: the input's images are linked and sent; absent, they are a note. */
  media?: MediaStore;
  /** Where media_attach leaves the reply's images. */
  outbox?: MediaOutbox;
}

/** `Input.meta` flag: answer and reply, but keep the input and reply out of the context window. */
export const EPHEMERAL_META = "ephemeral";
/**
 * `Input.meta` flag (the reference's NoMemory): the input and its reply stay in the window as
 * they are, but are never vectorised, archived to documents or distilled (a timer firing).
 */
export const NO_MEMORY_META = "noMemory";
/** `Input.meta` flag: answer without offering the model any tool. */
export const NO_TOOLS_META = "noTools";

/**
 * Run one turn for `input`. Never throws: every outcome becomes the returned Reply. A
 * consolidation input is no turn of the owner's: it gets the lean upkeep call instead.
 */
export async function runTurn(input: Input, signal: AbortSignal, deps: TurnDeps): Promise<Reply> {
  if (input.consolidation) return await runUpkeepCall(input, signal, deps);
  const shared = new Map<string, unknown>();
  const notes: string[] = [];
  const sections: MemorySection[] = [];
  const stage = (name: StageName, extra: Partial<StageContext> = {}): StageContext => ({
    stage: name,
    turnId: input.id,
    input,
    systemMessages: notes,
    promptSections: sections,
    shared,
    ...extra,
  });
  const runStage = async (context: StageContext, plugins: string[] = []) => {
    deps.events.publish({ type: "stage", turnId: input.id, stage: context.stage });
    await deps.stages.run(context, plugins);
    if (context.response !== undefined) throw new ShortCircuit(context.response);
  };

  let reply: Reply;
  try {
    await runStage(stage("on_input"));
    const eventId = `${input.id}:in`;
    // An ephemeral input (an OpenAI-compatible request not asked to be remembered) is answered
    // but not recorded: it does not stay in the owner's window.
    const record = input.meta[EPHEMERAL_META] !== true;
    const noMemory = input.meta[NO_MEMORY_META] === true ? { noMemory: true } : {};
    if (record) {
      deps.context.append({
        id: eventId,
        role: "user",
        source: input.source,
        channel: input.channel,
        input: input.text,
        turnIds: [input.id],
        timestamp: input.receivedAt,
        ...noMemory,
      });
      await pruneContext(input, signal, deps);
    }
    if (deps.control?.stopped) {
      // Queued when the owner pressed stop: heard and recorded, but not acted on.
      deps.events.publish({ type: "stage", turnId: input.id, stage: "pre_action" });
      throw new ShortCircuit("Stopped before it ran.", "stopped");
    }
    const recalled = await recallMemory(input, signal, deps);
    const media = await loadTurnImages(input, deps.media, deps.logger);
    notes.push(...media.notes);
    await runStage(stage("pre_action"));
    const memory = [...recalled, ...sections];
    const relevance = await promptRelevance(input, memory, signal, deps);

    const toolOutputs: { name: string; output: string }[] = [];
    const text = await toolLoop(input, signal, deps, {
      eventId,
      images: media.images,
      memory,
      relevance,
      notes,
      stage,
      runStage,
      toolOutputs,
    });

    if (record) {
      deps.context.append({
        id: `${input.id}:out`,
        role: "agent",
        source: input.source,
        channel: input.channel,
        response: text,
        tools: toolOutputs.length > 0 ? toolOutputs : undefined,
        turnIds: [input.id],
        timestamp: deps.clock.now(),
        ...noMemory,
      });
    }
    const before = stage("before_output", { output: text });
    await runStage(before);
    const attached = deps.outbox?.take(input.id) ?? [];
    reply = {
      inputId: input.id,
      channel: input.channel,
      text: before.output ?? text,
      status: "ok",
      ...(attached.length > 0 ? { media: attached } : {}),
    };
  } catch (error) {
    deps.outbox?.take(input.id);
    reply = failureReply(input, error, signal, deps.logger);
  }
  deps.events.publish({ type: "stage", turnId: input.id, stage: "after_output" });
  await deps.stages.run(stage("after_output", { output: reply.text, status: reply.status }));
  return reply;
}

interface LoopState {
  eventId: string;
  /** The input's images, sent with the user message (as each source's vision allows). */
  images: ImagePart[];
  /** Every tool result of the turn, kept with the reply for relevance scoring. */
  toolOutputs: { name: string; output: string }[];
  memory: MemorySection[];
  relevance: PromptRelevance;
  notes: string[];
  stage(name: StageName, extra?: Partial<StageContext>): StageContext;
  runStage(context: StageContext, plugins?: string[]): Promise<void>;
}

/** The inner loop: post_action → [before_toolcall → execute → after_toolcall] → post_action. */
async function toolLoop(
  input: Input,
  signal: AbortSignal,
  deps: TurnDeps,
  state: LoopState,
): Promise<string> {
  const rounds: ChatMessage[] = [];
  let lastText = "";
  for (let round = 1;; round++) {
    let result: ChatResponse | undefined;
    let byName = new Map<string, RegisteredTool>();
    while (!result) { // a call cancelled by preemption is retried here once the turn resumes
      if (deps.control) rounds.push(...await deps.control.checkpoint(signal));
      const tools = input.meta[NO_TOOLS_META] === true ? [] : deps.tools();
      byName = new Map(tools.map((t) => [t.name, t]));
      const request = requestBuilder(input, deps, state, rounds, tools);
      result = await callLlm(input, round, request, signal, deps);
    }
    const post = state.stage("post_action", {
      llmText: result.text,
      toolCalls: result.toolCalls,
    });
    await state.runStage(post, ownersOf(post.toolCalls ?? [], byName));
    const calls = post.toolCalls ?? [];
    lastText = post.llmText ?? "";
    if (calls.length === 0) return lastText;
    deps.catalog?.called(calls.map((c) => c.name).filter((name) => byName.has(name)));
    if (round >= deps.settings.maxToolTurns) {
      deps.logger.warn("Tool round limit reached", { turnId: input.id, rounds: round });
      return lastText.trim() !== ""
        ? lastText
        : `I stopped after ${round} rounds of tool calls without reaching an answer.`;
    }

    rounds.push({ role: "assistant", content: lastText, toolCalls: calls });
    const results = await executeRound(input, calls, byName, signal, deps, state);
    for (const [i, call] of calls.entries()) {
      const r = results[i]!;
      rounds.push({ role: "tool", toolCallId: call.id, name: call.name, content: r.content });
      const kept = r.rejected ? undefined : memoryOutput(byName.get(call.name), r.content, deps);
      if (kept !== undefined) state.toolOutputs.push({ name: call.name, output: kept });
    }
    if (results.every((r) => r.rejected)) {
      return lastText.trim() !== "" ? lastText : `I could not proceed: ${results[0]!.content}`;
    }
  }
}

/** The request of one LLM call — system prompt, the input, this turn's rounds — per source. */
function requestBuilder(
  input: Input,
  deps: TurnDeps,
  state: LoopState,
  rounds: ChatMessage[],
  tools: RegisteredTool[],
): RequestBuilder {
  return promptRequest({
    persona: deps.persona(),
    now: deps.clock.now(),
    memory: state.memory,
    relevance: state.relevance,
    shares: deps.settings.shares,
    notes: state.notes,
    context: deps.context,
    currentEventId: state.eventId,
    count: deps.countTokens,
    messages: [
      state.images.length > 0
        ? { role: "user", content: input.text, images: state.images }
        : { role: "user", content: input.text },
      ...rounds,
    ],
    tools: (window) => {
      const sent = deps.catalog ? deps.catalog.visible(tools, window) : tools;
      return sent.length > 0 ? sent.map(toSchema) : undefined;
    },
  }, (prompt, fit) => {
    if (prompt.cuts.length === 0) return;
    deps.logger.debug("Prompt sections cut to their budget", {
      turnId: input.id,
      source: fit.source,
      window: fit.window,
      cuts: prompt.cuts.map((c) => `${c.title}: ${c.kept} kept, ${c.cut} left out`),
    });
  });
}
