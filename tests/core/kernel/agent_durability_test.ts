import assert from "node:assert/strict";
import {
  type ContextRecord,
  type ContextSnapshot,
  type ContextStore,
  type KernelEvent,
  RelevanceContext,
  type Reply,
  type StoredContext,
} from "../../../core/mod.ts";
import { createHashEmbedder } from "../../../memory/embed/hash.ts";
import { systemClock } from "../../../adapters/mod.ts";
import { createTestKernel } from "../../fakes/kernel.ts";
import { MemoryLogger } from "../../fakes/logger.ts";
import { reply, startFakeOpenAI } from "../../fixtures/fake_llm.ts";

/** A store whose journal writes wait for `release()` (a slow disk) or fail (a broken one). */
class GatedStore implements ContextStore {
  appended: ContextRecord[][] = [];
  fail?: Error;
  #gate = Promise.withResolvers<void>();
  #arrived = Promise.withResolvers<void>();
  load(): Promise<StoredContext> {
    return Promise.resolve({ journal: [] });
  }
  save(_snapshot: ContextSnapshot): Promise<void> {
    return Promise.resolve();
  }
  async append(records: readonly ContextRecord[]): Promise<void> {
    this.#arrived.resolve();
    await this.#gate.promise;
    if (this.fail) throw this.fail;
    this.appended.push([...records]);
  }
  arrived(): Promise<void> {
    return this.#arrived.promise;
  }
  release(): void {
    this.#gate.resolve();
  }
}

async function kernelWith(store: GatedStore) {
  const server = startFakeOpenAI({ fallback: reply.text("Noted.") });
  const context = await RelevanceContext.load({
    clock: systemClock,
    logger: new MemoryLogger(),
    embedder: createHashEmbedder(),
    store,
    archive: () => Promise.resolve(),
    topK: () => 30,
    debounceMs: 3_600_000,
  });
  const kernel = createTestKernel({ sources: [{ name: "main", server }], context });
  return {
    kernel,
    context,
    async [Symbol.asyncDispose]() {
      await kernel[Symbol.asyncDispose]();
      await context.flush();
      await server.close();
    },
  };
}

Deno.test("Agent acknowledges a reply only once its turn is in the context journal", async () => {
  const store = new GatedStore();
  await using k = await kernelWith(store);
  const outputs: KernelEvent[] = [];
  k.kernel.agent.events.subscribe("output", (e) => void outputs.push(e));
  const replies: Reply[] = [];
  const { inputId } = k.kernel.agent.injectInput("web", "remember the milk", {
    onReply: (r) => void replies.push(r),
  });
  await store.arrived();
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(replies.length, 0, "no reply while the journal write is under way");
  assert.equal(outputs.length, 0, "no SSE output event either");
  store.release();
  await k.kernel.agent.whenIdle();
  assert.deepEqual(replies.map((r) => [r.status, r.text]), [["ok", "Noted."]]);
  const written = store.appended.flat();
  const ids = written.flatMap((r) => r.op === "add" ? [r.event.id] : []);
  assert.deepEqual(ids, [`${inputId}:in`, `${inputId}:out`]);
  assert.equal(store.appended.length, 1, "one journal write for the whole turn");
});

Deno.test("Agent marks a reply whose turn could not be saved as an error that says so", async () => {
  const store = new GatedStore();
  store.fail = new Error("No space left on device (os error 28)");
  store.release();
  await using k = await kernelWith(store);
  const answer = await k.kernel.agent.injectInputSync("web", "remember the milk");
  assert.equal(answer.status, "error");
  assert.equal(answer.errorCode, "context_not_saved");
  assert.match(answer.text, /^Noted\.\n\n\(Cannot save this turn to memory: No space left/);
});
