/**
 * The index keeps a document's words as the summary's then the content's (docs/_terms.ts), and
 * recall's ranking reads the content's back instead of cutting the content again: they must be
 * exactly what `tokenize(textForScoring(content))` gives now, after every write of the row.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { textForScoring } from "../../../core/mod.ts";
import { createHashEmbedder } from "../../../memory/embed/hash.ts";
import { createTextAnalyzer } from "../../../memory/text/keywords.ts";
import { type DocHit, DocStore } from "../../../memory/docs/store.ts";
import { docTerms } from "../../../memory/docs/_terms.ts";
import { newDocument } from "../../../memory/docs/_files.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";

const analyzer = await createTextAnalyzer();
const words = (text: string) => analyzer.tokenize(textForScoring(text));

/** Texts whose pieces sit at a line break: stamps, final sigma, NFKC, Han runs, apostrophes. */
const CONTENTS = [
  "我家的猫叫咪咪，最喜欢吃金枪鱼",
  "[2026-11-30 18:00] you: 我家的猫叫咪咪\n[2026-11-30 18:01] agent: 记住了",
  "ΟΔΟΣ\nΣΟΦΙΑ said ΣΑΣ",
  "ﬁne ＡＢＣ １２３ cafe\u0301 Ⅻ",
  "don’t stop the cities' buses",
  "北京\n上海 Beijing's 2026",
  "",
  "   leading and trailing spaces   ",
  "[2026-11-30 18:00] x\nfoo: bar [2026-12-01 09:15] agent: 好的",
];
const SUMMARIES = [
  "",
  "猫",
  "ΣΟΦΙΑΣ",
  "[2026-11-30 18:00] you: 你好",
  "ends with a stamp [2026-11-30 18:00] you:",
  "…",
  "ﬁ",
];

Deno.test("docTerms gives the words of summary and content as cut together, the content's last", () => {
  for (const content of CONTENTS) {
    for (const summary of [...SUMMARIES, content.replace(/\s+/g, " ").trim()]) {
      const doc = newDocument({ content, summary, source: "cli" }, content, 0);
      doc.summary = summary; // newDocument fills an empty one
      const terms = docTerms(analyzer, doc);
      assert.deepEqual(terms.words, words(`${summary}\n${content}`), `${summary} | ${content}`);
      assert.deepEqual(terms.words.slice(terms.words.length - terms.content), words(content));
    }
  }
});

async function withStore(fn: (store: DocStore, dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-docs-" });
  const store = await DocStore.open({
    dir,
    embedder: createHashEmbedder({ dim: 256 }),
    analyzer,
    clock: new ManualClock(Date.UTC(2026, 5, 1)),
    logger: new MemoryLogger(),
  });
  try {
    await fn(store, dir);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The hit of document `id` for `query` (k large enough to reach it). */
async function hitOf(store: DocStore, query: string, id: string): Promise<DocHit | undefined> {
  return (await store.query(query, { k: 20, minDense: -1 })).find((h) => h.document.id === id);
}

Deno.test("DocStore hands back each hit's content words, and the new ones after a rewrite (a purge's redaction)", async () => {
  await withStore(async (store) => {
    const ids = await store.insertMany(
      CONTENTS.filter((c) => c.trim() !== "").map((content) => ({
        content,
        source: "cli",
        summary: "猫 summary ΣΟΦΙΑΣ",
      })),
    );
    for (const { id } of ids) {
      const document = (await store.get(id))!;
      const hit = await hitOf(store, "猫 cities 咪咪 sofia", id);
      assert.deepEqual(hit?.words, words(document.content), document.content);
    }
    const cat = ids[0]!.id;
    const before = (await store.get(cat))!;
    // A forget blanks a name out of the content by a rewrite: the words must follow it.
    await store.rewrite(cat, { ...before, content: "我家的猫叫▇▇，最喜欢吃金枪鱼" });
    const hit = await hitOf(store, "猫 金枪鱼", cat);
    assert.deepEqual(hit?.words, words("我家的猫叫▇▇，最喜欢吃金枪鱼"));
    assert.ok(!hit?.words?.includes("咪咪"), "no word of the old content");
  });
});

Deno.test("DocStore keeps a re-embedded row's words only when its body is what they were cut from", async () => {
  await withStore(async (store, dir) => {
    const [a, b] = await store.insertMany([
      { content: "我家的猫叫咪咪，最喜欢吃金枪鱼", source: "cli" },
      { content: "My sister Ann moved to Oslo last spring", source: "cli" },
    ]);
    // Both rows lose their space (a model switch); b's body is out of step with its file.
    const db = new DatabaseSync(join(dir, "index.db"));
    db.exec("update docs set fingerprint = null");
    db.prepare("update docs set content = 'stale body' where id = ?").run(b!.id);
    db.close();
    assert.equal(await store.reembedStale(), 2);
    assert.deepEqual(
      (await hitOf(store, "猫", a!.id))?.words,
      words("我家的猫叫咪咪，最喜欢吃金枪鱼"),
    );
    const stale = await hitOf(store, "sister Ann Oslo", b!.id);
    assert.ok(stale, "still found by its words");
    assert.equal(stale.words, undefined, "its words are not the body's: the ranking cuts the body");
  });
});

Deno.test("DocStore hands back no words for rows indexed before they were kept", async () => {
  await withStore(async (store, dir) => {
    const [a] = await store.insertMany([{ content: "我家的猫叫咪咪", source: "cli" }]);
    const db = new DatabaseSync(join(dir, "index.db"));
    db.exec("update docs set content_terms = null");
    db.close();
    const hit = await hitOf(store, "猫", a!.id);
    assert.equal(hit?.document.content, "我家的猫叫咪咪");
    assert.equal(hit?.words, undefined);
  });
});
