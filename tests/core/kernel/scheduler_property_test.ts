/**
 * Property: 10,000 inputs from 10 concurrent sources with random levels, interrupts, stops and
 * clock jumps (cooldowns) — every input gets exactly one terminal reply, none is lost, none
 * runs twice, and each source's level-0 inputs run and are answered in the order sent.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { ChatRequest, PriorityLevel, Reply } from "../../../core/mod.ts";
import { createScriptedAgent, inputText } from "../../fakes/scripted_agent.ts";

const SOURCES = 10;
const PER_SOURCE = 1000;

interface Step {
  level: PriorityLevel;
  consolidation: boolean;
  tool: boolean;
  gap: number;
  action: "none" | "stop" | "advance";
  advanceMs: number;
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  level: fc.oneof(
    { weight: 6, arbitrary: fc.constant(0 as PriorityLevel) },
    { weight: 4, arbitrary: fc.constantFrom<PriorityLevel>(1, 2, 3, 4) },
  ),
  consolidation: fc.nat(19).map((n) => n === 0),
  tool: fc.boolean(),
  gap: fc.nat(800),
  action: fc.oneof(
    { weight: 2000, arbitrary: fc.constant("none" as const) },
    { weight: 1, arbitrary: fc.constant("stop" as const) },
    { weight: 3, arbitrary: fc.constant("advance" as const) },
  ),
  advanceMs: fc.nat(3000),
});

/** Answers "re: <input>"; inputs ending in "#t" make one tool round first, where tools are offered. */
function respond(request: ChatRequest) {
  const text = inputText(request);
  const hadTool = request.messages.some((m) => m.role === "tool");
  const offered = request.tools?.some((t) => t.name === "prop_echo") ?? false;
  if (text.endsWith("#t") && offered && !hadTool) {
    return { toolCalls: [{ id: "t1", name: "prop_echo", arguments: "{}" }] };
  }
  return { text: `re: ${text}` };
}

interface Sent {
  id: string;
  source: string;
  level: number;
  consolidation: boolean;
  seq: number;
  text: string;
}

async function runScenario(plans: Step[][]): Promise<void> {
  await using k = createScriptedAgent({
    respond,
    latency: 20,
    config: { "core.agent.queue_capacity": 400, "core.agent.preempt_cooldown_ms": 2000 },
  });
  k.agent.tools.register({
    name: "prop_echo",
    description: "echo",
    parameters: { type: "object", properties: {} },
    handler: () => "echoed",
  });
  const sent = new Map<string, Sent>();
  const replies = new Map<string, Reply[]>();
  const started: string[] = [];
  const answered: string[] = [];
  const stops: number[] = [];
  let seq = 0;
  k.agent.events.subscribe("stage", (e) => {
    if (e.stage === "on_input") started.push(e.turnId);
  });
  const onReply = (reply: Reply) => {
    replies.set(reply.inputId, [...replies.get(reply.inputId) ?? [], reply]);
    answered.push(reply.inputId);
  };
  const producer = async (source: number, plan: Step[]) => {
    for (const [i, step] of plan.entries()) {
      for (let g = 0; g < step.gap; g++) await Promise.resolve();
      if (step.action === "stop") {
        stops.push(seq++);
        k.agent.stop();
      } else if (step.action === "advance") {
        k.clock.advance(step.advanceMs);
      }
      const text = `s${source}-${i}${step.tool ? "#t" : ""}`;
      const options = { onReply };
      const result = step.consolidation
        ? k.agent.injectConsolidation(text, options)
        : step.level === 0
        ? k.agent.injectInput(`s${source}`, text, options)
        : k.agent.injectInterrupt(`s${source}`, text, { ...options, priority: step.level });
      sent.set(result.inputId, {
        id: result.inputId,
        source: step.consolidation ? "_consolidation_" : `s${source}`,
        level: step.consolidation ? 0 : step.level,
        consolidation: step.consolidation,
        seq: seq++,
        text,
      });
    }
  };
  await Promise.all(plans.map((plan, source) => producer(source, plan)));
  await k.agent.whenIdle();

  assert.equal(sent.size, SOURCES * PER_SOURCE);
  const starts = new Map<string, number>();
  for (const id of started) starts.set(id, (starts.get(id) ?? 0) + 1);
  const lastStop = stops.at(-1) ?? -1;
  for (const input of sent.values()) {
    const got = replies.get(input.id) ?? [];
    assert.equal(got.length, 1, `input ${input.text} got ${got.length} replies`);
    const reply = got[0]!;
    if (input.consolidation) {
      // A lean upkeep call has no stages: it ran when it called the model, at most once.
      const calls = k.llm.calls.filter((c) => inputText(c.request) === input.text).length;
      assert.ok(calls <= (reply.status === "refused" ? 0 : 1), `${input.text} called ${calls}×`);
      if (reply.status === "ok") assert.equal(calls, 1, `${input.text} answered without a call`);
    } else {
      const runs = starts.get(input.id) ?? 0;
      assert.equal(
        runs,
        reply.status === "refused" ? 0 : 1,
        `input ${input.text} ran ${runs} times`,
      );
    }
    if (reply.status === "ok") assert.equal(reply.text, `re: ${input.text}`);
    if (reply.status === "stopped" && reply.errorCode !== "preempted") {
      assert.ok(stops.some((s) => s > input.seq), `${input.text} stopped without a stop after it`);
    }
    if (reply.errorCode === "preempted") assert.ok(input.consolidation);
    if (input.seq > lastStop && !input.consolidation) {
      assert.ok(reply.status === "ok" || reply.status === "refused", `${input.text} after stop`);
    }
  }
  for (const source of new Set([...sent.values()].map((s) => s.source))) {
    const plain = (ids: string[]) =>
      ids.filter((id) => {
        const s = sent.get(id);
        return s?.source === source && s.level === 0;
      });
    const sentOrder = [...sent.values()].filter((s) => s.source === source && s.level === 0)
      .sort((a, b) => a.seq - b.seq).map((s) => s.id);
    const accepted = sentOrder.filter((id) => replies.get(id)![0]!.status !== "refused");
    if (source === "_consolidation_") {
      // Upkeep calls have no stages: their model calls show the order they ran in.
      const byText = new Map([...sent.values()].map((s) => [s.text, s.id]));
      const called = k.llm.calls.map((c) => byText.get(inputText(c.request))!);
      const ran = accepted.filter((id) => called.includes(id));
      assert.deepEqual(plain(called), ran, `${source}: upkeep calls ran in order`);
    } else {
      assert.deepEqual(plain(started), accepted, `${source}: level-0 inputs started in order`);
    }
    assert.deepEqual(
      plain(answered).filter((id) => accepted.includes(id)),
      accepted,
      `${source}: level-0 inputs answered in order`,
    );
  }
  assert.equal(k.agent.status().scheduler.stack.length, 0);
}

Deno.test("Scheduler property: 10,000 inputs from 10 sources each get exactly one reply, in order", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(stepArb, { minLength: PER_SOURCE, maxLength: PER_SOURCE }), {
        minLength: SOURCES,
        maxLength: SOURCES,
      }),
      runScenario,
    ),
    { numRuns: 2, endOnFailure: true },
  );
});
