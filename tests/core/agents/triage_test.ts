import assert from "node:assert/strict";
import { BacklogTriage, BUSY_NOTICE, type ChatRequest, ConfigError } from "../../../core/mod.ts";
import { openTestRegistry } from "../../fakes/config.ts";
import {
  createScriptedAgent,
  inputText,
  type ScriptedAgent,
  settle,
} from "../../fakes/scripted_agent.ts";
import type { ScriptedAnswer } from "../../fakes/scripted_llm.ts";

const isAssistant = (request: ChatRequest) =>
  String(request.messages[0]?.content ?? "").startsWith("You are the triage assistant");

/** The assistant answers "simple …" inputs and defers the rest; the main agent holds "hold …". */
function respond(request: ChatRequest): ScriptedAnswer | "hold" {
  const text = inputText(request);
  if (isAssistant(request)) {
    return text.startsWith("simple") ? { text: `quick: ${text}` } : { text: "DEFER" };
  }
  return text.startsWith("hold") ? "hold" : { text: `main: ${text}` };
}

function triageFor(k: ScriptedAgent): BacklogTriage {
  const triage = new BacklogTriage({
    agent: k.agent,
    clock: k.clock,
    logger: k.logger,
    config: k.config.registry,
    llm: k.llm,
    persona: () => "Be kind.",
  });
  triage.start();
  return triage;
}

const TEXTS = ["simple hi", "complex plan", "simple time", "complex essay"];
const notices = (k: ScriptedAgent) =>
  k.events.flatMap((e) => e.type === "notice" ? [[e.turnId, e.text]] : []);
const assistantCalls = (k: ScriptedAgent) => k.llm.calls.filter((c) => isAssistant(c.request));

Deno.test("BacklogTriage is off by default: the main agent answers every queued input", async () => {
  await using k = createScriptedAgent({ respond });
  const triage = triageFor(k);
  k.inject("hold long job");
  await k.llm.waitForCalls(1);
  const ids = TEXTS.map((t) => k.inject(t, 0, { source: "qq" }));
  await k.clock.tick(600_000, 60);
  await triage.idle();
  assert.equal(assistantCalls(k).length, 0);
  assert.deepEqual(notices(k), []);
  k.llm.calls[0]!.release({ text: "done" });
  await k.agent.whenIdle();
  assert.deepEqual(
    ids.map((id) => k.replies.get(id)?.map((r) => r.text)),
    TEXTS.map((t) => [`main: ${t}`]),
  );
  await triage.close();
});

Deno.test("BacklogTriage answers simple inputs and tells the rest to wait once busy long enough", async () => {
  await using k = createScriptedAgent({ respond, config: { "core.agent.offload_enabled": true } });
  const triage = triageFor(k);
  k.inject("hold long job");
  await k.llm.waitForCalls(1);
  const [hi, plan, time, essay] = TEXTS.map((t) => k.inject(t, 0, { source: "qq" }));

  await k.clock.tick(290_000, 29);
  await triage.idle();
  assert.equal(assistantCalls(k).length, 0, "not before offload_busy_after");

  await k.clock.tick(10_000);
  await triage.idle();
  await settle();
  assert.equal(assistantCalls(k).length, 4);
  assert.deepEqual(k.replies.get(hi!), [
    { inputId: hi, channel: "qq", text: "quick: simple hi", status: "ok" },
  ]);
  assert.equal(k.replies.get(time!)?.[0]?.text, "quick: simple time");
  assert.equal(k.replies.get(plan!), undefined, "deferred: no terminal reply yet");
  assert.deepEqual(notices(k), [[plan, BUSY_NOTICE], [essay, BUSY_NOTICE]]);
  assert.deepEqual(
    k.agent.pendingPlain().map((i) => i.id),
    [plan, essay],
    "still queued, in order",
  );
  assert.ok(String(assistantCalls(k)[0]!.request.messages[0]!.content).includes("Be kind."));

  await k.clock.tick(30_000, 3);
  await triage.idle();
  assert.equal(notices(k).length, 2, "each input is triaged once");

  k.llm.calls[0]!.release({ text: "done" });
  await k.agent.whenIdle();
  assert.deepEqual(k.replies.get(plan!)?.map((r) => r.text), ["main: complex plan"]);
  assert.deepEqual(k.replies.get(essay!)?.map((r) => r.text), ["main: complex essay"]);
  for (const id of [hi, plan, time, essay]) assert.equal(k.replies.get(id!)?.length, 1);
  const main = k.llm.calls.filter((c) => !isAssistant(c.request)).map((c) => inputText(c.request));
  assert.deepEqual(main, ["hold long job", "complex plan", "complex essay"]);
  await triage.close();
  assert.equal(k.clock.pending, 0, "close cancels the check timer");
});

Deno.test("BacklogTriage waits for offload_min_pending inputs and splits work among assistants", async () => {
  await using k = createScriptedAgent({
    respond,
    config: {
      "core.agent.offload_enabled": true,
      "core.agent.offload_busy_after": 60_000,
      "core.agent.offload_max_residents": 2,
    },
  });
  const triage = triageFor(k);
  k.inject("hold long job");
  await k.llm.waitForCalls(1);
  const first = ["simple a", "simple b"].map((t) => k.inject(t, 0, { source: "qq" }));
  await k.clock.tick(120_000, 12);
  await triage.idle();
  assert.equal(assistantCalls(k).length, 0, "two waiting is below the minimum of three");

  const rest = ["simple c", "complex d", "simple e"].map((t) => k.inject(t, 0, { source: "qq" }));
  await k.clock.tick(10_000);
  await triage.idle();
  await settle();
  assert.equal(assistantCalls(k).length, 5);
  const lanes = k.logger.find("Backlog triage")[0]?.fields;
  assert.deepEqual(lanes, { inputs: 5, assistants: 2 });
  assert.deepEqual(k.agent.pendingPlain().map((i) => i.text), ["complex d"]);
  k.llm.calls[0]!.release({ text: "done" });
  await k.agent.whenIdle();
  for (const id of [...first, ...rest]) assert.equal(k.replies.get(id)?.length, 1);
  await triage.close();
});

Deno.test("core.agent.offload_* settings have their defaults and refuse bad values", () => {
  using t = openTestRegistry();
  assert.deepEqual(
    ["enabled", "busy_after", "min_pending", "max_residents"].map((k) =>
      t.registry.get(`core.agent.offload_${k}`)
    ),
    [false, 300_000, 3, 2],
  );
  assert.throws(() => t.registry.set("core.agent.offload_max_residents", 0), ConfigError);
  assert.throws(() => t.registry.setFromText("core.agent.offload_enabled", "maybe"), ConfigError);
  t.registry.setFromText("core.agent.offload_enabled", "true");
  assert.equal(t.registry.get("core.agent.offload_enabled"), true);
});

Deno.test("BacklogTriage.close cancels a round in flight without notices or replies", async () => {
  await using k = createScriptedAgent({
    respond: (request) => isAssistant(request) ? "hold" : respond(request),
    config: { "core.agent.offload_enabled": true },
  });
  const triage = triageFor(k);
  k.inject("hold long job");
  await k.llm.waitForCalls(1);
  const ids = TEXTS.map((t) => k.inject(t, 0, { source: "qq" }));
  await k.clock.tick(300_000, 30);
  await k.llm.waitForCalls(3);
  await triage.close();
  assert.equal(assistantCalls(k).every((c) => c.outcome === "aborted"), true);
  assert.deepEqual(notices(k), []);
  assert.equal(k.agent.pendingPlain().length, 4, "every input is still the main agent's");
  k.llm.calls[0]!.release({ text: "done" });
  await k.agent.whenIdle();
  for (const id of ids) assert.equal(k.replies.get(id)?.length, 1);
});
