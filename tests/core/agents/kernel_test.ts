import assert from "node:assert/strict";
import { createKernel, InMemoryGraph, RecentContext } from "../../../core/mod.ts";
import type { KernelMemory } from "../../../core/agents/kernel.ts";
import { openTestRegistry } from "../../fakes/config.ts";
import { MemoryLogger } from "../../fakes/logger.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { openTestMedia } from "../../fakes/media.ts";
import { ScriptedLlm } from "../../fakes/scripted_llm.ts";

function kernelOver(memory: Partial<KernelMemory>) {
  const config = openTestRegistry();
  const llm = Object.assign(new ScriptedLlm(), { health: () => [], hasSources: () => true });
  const kernel = createKernel({
    clock: new ManualClock(),
    logger: new MemoryLogger(),
    config: config.registry,
    llm,
    persona: () => "You are a test agent.",
    memory: {
      context: new RecentContext(),
      recall: () => Promise.resolve([]),
      tools: () => [],
      ...memory,
    },
    graph: new InMemoryGraph(),
    unwindMs: 0,
  });
  return {
    kernel,
    names: () => kernel.agent.allTools().map((t) => t.name),
    async [Symbol.asyncDispose]() {
      await kernel[Symbol.asyncDispose]();
      config[Symbol.dispose]();
    },
  };
}

Deno.test("createKernel offers the media tools over the memory's media store, and none without", async () => {
  await using media = await openTestMedia();
  await using withMedia = kernelOver({ media: media.tier });
  for (
    const name of ["media_find", "media_info", "media_attach", "resident_agents", "spawn_child"]
  ) {
    assert.ok(withMedia.names().includes(name), name);
  }
  assert.ok(withMedia.names().some((n) => n.startsWith("llm_")));
  await using without = kernelOver({});
  assert.deepEqual(without.names().filter((n) => n.startsWith("media_")), []);
});
