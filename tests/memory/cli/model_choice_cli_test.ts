/**
 * `memory model install` without a name takes the model for the language of the home's own
 * memories (a real context journal and real document files), says why on stderr, and asks the
 * hub for that model's files (a fetch that records and refuses: nothing is downloaded here).
 */
import assert from "node:assert/strict";
import { JsonContextStore, registerMemoryDefaults } from "../../../memory/mod.ts";
import { catalogModel, ensureHome } from "../../../memory/mod.ts";
import { contentHash, writeDocFile } from "../../../memory/docs/_files.ts"; // the files as the store writes them
import { memoryModelCommand } from "../../../memory/cli/model.ts";
import { openTestRegistry } from "../../fakes/config.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";

async function nameless(texts: { context: string[]; docs: string[] }, locale: string) {
  const root = await Deno.makeTempDir({ prefix: "model-choice-" });
  try {
    const paths = await ensureHome(root);
    const store = new JsonContextStore({ path: paths.context, logger: new MemoryLogger() });
    await store.append(texts.context.map((input, i) => ({
      op: "add" as const,
      seq: i + 1,
      event: {
        id: `e${i}`,
        role: "user" as const,
        source: "owner",
        channel: "web",
        input,
        timestamp: i,
      },
    })));
    for (const [i, content] of texts.docs.entries()) {
      const document = {
        id: `d${i}`,
        summary: content,
        content,
        tags: [],
        entities: [],
        source: "archive",
        createdAt: 0,
        updatedAt: 0,
        accessCount: 0,
        turnIds: [],
      };
      await writeDocFile(paths.docs, { document, hash: await contentHash(content) });
    }
    using config = openTestRegistry();
    registerMemoryDefaults(config.registry);
    const asked: string[] = [];
    let stderr = "";
    const context = {
      paths,
      config: config.registry,
      clock: new ManualClock(),
      logger: new MemoryLogger(),
    };
    await assert.rejects(
      memoryModelCommand(context, { action: "install" }, {
        stderr: { write: (s: string) => void (stderr += s), isTerminal: false },
        daemonRunning: () => Promise.resolve(false),
        env: (name) => name === "LANG" ? locale : undefined,
        fetch: (input) => {
          asked.push(String(input instanceof Request ? input.url : input));
          return Promise.reject(new TypeError("offline"));
        },
      }),
    );
    return { asked, stderr };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("install without a name takes the English model for a home that talks English", async () => {
  const english = Array.from({ length: 8 }, (_, i) => `Day ${i}: Mimi the kitten slept all day.`);
  const { asked, stderr } = await nameless({ context: english, docs: english }, "zh_CN.UTF-8");
  assert.match(stderr, /Choosing e5-small-v2-q: this home's memories are mostly English/);
  assert.match(stderr, /bge-small-zh-v15-q for Chinese/);
  assert.equal(asked[0], catalogModel("e5-small-v2-q")!.model.url);
});

Deno.test("install without a name takes the Chinese model for a Chinese home", async () => {
  const chinese = Array.from({ length: 12 }, (_, i) => `第${i}天：小猫咪咪睡了一整天。`);
  const { asked, stderr } = await nameless({ context: [], docs: chinese }, "en_US.UTF-8");
  assert.match(stderr, /Choosing bge-small-zh-v15-q: this home's memories are mostly Chinese/);
  assert.equal(asked[0], catalogModel("bge-small-zh-v15-q")!.model.url);
});

Deno.test("a new home takes its locale's model", async () => {
  const { asked, stderr } = await nameless({ context: [], docs: [] }, "en_US.UTF-8");
  assert.match(stderr, /Choosing e5-small-v2-q: the locale is English/);
  assert.equal(asked[0], catalogModel("e5-small-v2-q")!.model.url);
});
