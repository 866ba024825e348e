import assert from "node:assert/strict";
import { ensureHome, openMemory, registerMemoryDefaults } from "../../memory/mod.ts";
import { agentConsolidator, type Input } from "../../core/mod.ts";
import { openTestRegistry } from "../fakes/config.ts";
import { createTestKernel } from "../fakes/kernel.ts";
import { startFakeOpenAI } from "../fixtures/fake_llm.ts";

Deno.test("openMemory removes a document that doc_query had moved into the window before a crash", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-tiers-" });
  using config = openTestRegistry();
  registerMemoryDefaults(config.registry);
  const open = async () =>
    openMemory({
      paths: await ensureHome(home),
      config: config.registry,
      clock: config.clock,
      logger: config.logger,
    });
  try {
    const first = await open();
    const { id } = await first.documents.insert({ content: "Ann lives in Oslo", source: "web" });
    // doc_query's first half: the window holds the document; the process dies before the
    // document is deleted.
    first.context.insert({
      id: `doc:${id}`,
      role: "cold_storage",
      source: "web",
      channel: "memory",
      input: "Ann lives in Oslo",
      timestamp: 1000,
    });
    await first.close();
    const second = await open();
    try {
      assert.equal(second.documents.size(), 0, "the window's copy is the one kept");
      assert.deepEqual(second.context.events().map((e) => e.id), [`doc:${id}`]);
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("automatic recall leaves a document cold, and an unreachable LLM does not keep it from the graph", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-tiers-" });
  using config = openTestRegistry();
  registerMemoryDefaults(config.registry);
  const down = startFakeOpenAI();
  await down.close(); // configured, but nothing listens any more
  await using kernel = createTestKernel({ sources: [{ name: "main", server: down }] });
  const memory = await openMemory({
    paths: await ensureHome(home),
    config: config.registry,
    clock: config.clock,
    logger: config.logger,
  });
  try {
    const { id } = await memory.documents.insert({
      content: "[2026-01-01 10:00] web: 我叫小明，我住在成都。",
      source: "web",
      turnIds: ["t1"],
    });
    let shown = 0;
    for (let hour = 0; hour < 80; hour++) {
      config.clock.advance(HOUR);
      const sections = await memory.recall(input(`小明住在成都吗？(${hour})`), SIGNAL);
      if (sections.some((s) => s.kind === "documents")) shown++;
    }
    assert.ok(shown > 10, `the document was shown (${shown} times)`);
    const cold = await memory.documents.findCold({
      now: config.clock.now(),
      idleMs: 72 * HOUR,
      maxAccess: 2,
    });
    assert.deepEqual(cold.map((d) => d.id), [id], "being shown is no access");

    await memory.upkeep.attach({
      stages: kernel.agent.stages,
      consolidator: agentConsolidator(kernel.agent, () => kernel.providers.hasSources()),
    });
    const stats = await memory.upkeep.runHeartbeat("archive");
    assert.deepEqual([stats.last.archived, stats.last.fallback], [1, 1], JSON.stringify(stats));
    assert.equal(memory.documents.size(), 0);
    const facts = (await memory.graph.graph.history("owner")).map((r) => `${r.type} ${r.target}`);
    assert.ok(facts.includes("居住地 成都"), facts.join(", "));
  } finally {
    await memory.close();
    await Deno.remove(home, { recursive: true });
  }
});

const HOUR = 3_600_000;
const SIGNAL = new AbortController().signal;

function input(text: string): Input {
  return {
    id: crypto.randomUUID(),
    text,
    source: "web",
    channel: "web",
    priority: 0,
    interrupt: false,
    receivedAt: 0,
    meta: {},
  };
}
