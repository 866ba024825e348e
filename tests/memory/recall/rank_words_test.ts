/**
 * rankMemory scores a document by the content words its store kept (DocHit.words) instead of
 * cutting the content again: the ranking must be the one it gives from the text itself, in the
 * words-only recipe (hash space) and in the dense/keyword mix (a space that knows meaning).
 */
import assert from "node:assert/strict";
import type { Embedder } from "../../../core/mod.ts";
import {
  createHashEmbedder,
  createTextAnalyzer,
  DocStore,
  rankMemory,
} from "../../../memory/mod.ts";
import { defaultRecallSettings } from "../../../memory/recall/config.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";
import { inputEvent } from "./_rank.ts";

const DOCS = [
  "[2026-11-30 18:00] you: 我家的猫叫咪咪，最喜欢吃金枪鱼\n[2026-11-30 18:01] agent: 记住了",
  "明天北京会下大雨，记得带伞",
  "My sister Ann moved to Oslo last spring and works as a nurse",
  "The cat's vet said Mimi needs less tuna",
  "周末和朋友去爬香山，看红叶，猫留在家里",
  "ΟΔΟΣ ΣΟΦΙΑΣ: the doctor's address",
];
const TURNS = [
  "咪咪还是不吃金枪鱼",
  "Mimi and the tuna: what did the doctor say? 北京 下雨 sister",
];

/** A space that knows meaning, as far as recall can tell (the hash vectors underneath). */
function semantic(): Embedder {
  return { ...createHashEmbedder({ dim: 256 }), fingerprint: "onnx/test-model:v1:256" };
}

for (
  const [space, embedder] of [["hash", createHashEmbedder({ dim: 256 })], [
    "mixed",
    semantic(),
  ]] as const
) {
  Deno.test(`rankMemory ranks by a document's kept words as by its text (${space})`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "homeagent-rank-" });
    const analyzer = await createTextAnalyzer();
    const documents = await DocStore.open({
      dir,
      embedder,
      analyzer,
      clock: new ManualClock(Date.UTC(2026, 5, 1)),
      logger: new MemoryLogger(),
    });
    try {
      await documents.insertMany(DOCS.map((content) => ({ content, source: "cli" })));
      const events = [inputEvent("e1", "Mimi slept all day"), inputEvent("e2", "带伞了吗")];
      const settings = { ...defaultRecallSettings(embedder), languages: ["zh", "en"] };
      let kept = 0;
      const withWords = {
        query: async (text: string, options?: Parameters<DocStore["query"]>[1]) => {
          const hits = await documents.query(text, options);
          kept += hits.filter((h) => h.words !== undefined).length;
          return hits;
        },
      };
      const withoutWords = {
        query: async (text: string, options?: Parameters<DocStore["query"]>[1]) =>
          (await documents.query(text, options)).map(({ words: _, ...hit }) => hit),
      };
      const rank = (docs: typeof withWords) =>
        rankMemory(TURNS, {
          embedder,
          analyzer,
          events,
          documents: Object.assign(Object.create(documents), docs),
        }, { settings });
      const fast = await rank(withWords);
      const slow = await rank(withoutWords);
      assert.ok(kept >= 3, `the store kept the words of its hits (${kept})`);
      const view = (items: typeof fast) => items.map((i) => [i.text, i.score, i.turnIds]);
      assert.deepEqual(view(fast), view(slow));
      assert.ok(fast.some((i) => i.tier === "documents" && i.score > 0));
    } finally {
      documents.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
