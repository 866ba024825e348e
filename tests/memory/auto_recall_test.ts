/**
 * A chat turn embeds only its input (issue 14, `recall_embeds_per_turn`): through a whole home
 * (real kernel, fake LLM server, every tier holding something to recall) each turn hands the
 * embedder its input's text once, interactively, and its reply once, in the background when it
 * is stored; the window's earlier events, the documents, the graph and the knowledge base reuse
 * their stored vectors and the turn's one query vector.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { lastUserMessage } from "../fakes/brain.ts";
import { openTestHome } from "../fakes/memory_home.ts";
import { countingEmbedder } from "../fakes/counting_embedder.ts";
import type { Embedder } from "../../core/mod.ts";
import { createHashEmbedder } from "../../memory/mod.ts";

const TURNS = [
  "My cat Mimi stopped eating today",
  "我的猫今天不吃饭",
  "Should I call the vet about Mimi?",
  "my sister Ann says take her to the doctor",
  "what did the vet say last spring?",
  "does Ann still live in Oslo?",
  "remind me what tea Ann likes",
  "我们上次去花园是什么时候？",
  "Mimi is eating again, good news",
  "what else do you remember about Mimi?",
];

Deno.test("a turn embeds its input once and its reply once; every other vector is a stored one", async () => {
  const counted = countingEmbedder();
  await using llm = startFakeOpenAI({
    fallback: (request) => reply.text(`Noted: ${lastUserMessage(request).slice(0, 40)}`),
  });
  await using home = await openTestHome({ llm, embedder: counted.embedder });
  const { memory } = home;
  await memory.documents.insertMany([
    {
      content: "Mimi the cat saw the vet last spring: a sore tooth, soft food for a week",
      source: "t",
    },
    { content: "Ann lives in Oslo and likes green tea", source: "t" },
    { content: "我们五月去了植物园的花园", source: "t" },
  ]);
  await memory.graph.graph.commit([
    { subject: "Ann", predicate: "sister_of", object: "owner" },
    { subject: "Ann", predicate: "likes", object: "green tea" },
    { subject: "owner", predicate: "has_pet", object: "Mimi" },
  ]);
  await Deno.mkdir(join(home.paths.knowledge, "pets"), { recursive: true });
  await Deno.writeTextFile(
    join(home.paths.knowledge, "pets", "content.md"),
    "# Pets\nMimi: a cat, eats soft food.\n",
  );
  await memory.upkeep.knowledge.scan();
  const stored = counted.calls.length;
  for (const [i, text] of TURNS.entries()) {
    const from = counted.calls.length;
    const answer = await home.say(text);
    await memory.context.flush(); // the reply's vector is made in the background
    const calls = counted.calls.slice(from);
    assert.deepEqual(
      calls.filter((c) => c.priority === "interactive").map((c) => c.text),
      [text],
      `turn ${i + 1} embeds its input, once`,
    );
    assert.deepEqual(
      calls.filter((c) => c.priority === "background").map((c) => c.text),
      [answer.text],
      `turn ${i + 1} embeds its reply, once, when it is stored`,
    );
  }
  assert.ok(stored > 0, "the stored memories were embedded when they were stored");
  const prompt = JSON.stringify(llm.requests.map((r) => r.body.messages));
  assert.match(prompt, /Memory Index/, "the graph was recalled in a turn");
  assert.match(prompt, /sore tooth/, "a document was recalled in a turn");
  assert.match(prompt, /soft food/, "the knowledge base was recalled in a turn");
});

Deno.test("the tiers' keyword work runs while the turn's input is embedded", async () => {
  const input = "did Mimi eat her soft food today?";
  const hash = createHashEmbedder({ dim: 128 });
  const gate = Promise.withResolvers<void>();
  let waiting = 0;
  const embedder: Embedder = {
    ...hash,
    async embed(texts, options) {
      if (texts.includes(input)) waiting++, await gate.promise, waiting--;
      return await hash.embed(texts, options);
    },
  };
  await using home = await openTestHome({ embedder });
  const { memory } = home;
  await memory.documents.insert({ content: "Mimi eats soft food after the vet", source: "t" });
  await memory.graph.graph.commit([{ subject: "owner", predicate: "has_pet", object: "Mimi" }]);
  const analyzed: string[] = [];
  const { analyzer } = memory;
  const { keywords, tokenize } = analyzer;
  analyzer.keywords = (text, options) => (analyzed.push(text), keywords(text, options));
  analyzer.tokenize = (text, options) => (analyzed.push(text), tokenize(text, options));
  memory.context.append({
    id: "t1:in",
    role: "user",
    source: "cli",
    channel: "cli",
    input,
    turnIds: ["t1"],
    timestamp: 1,
  });
  const recall = memory.recall({
    id: "t1",
    text: input,
    source: "cli",
    channel: "cli",
    priority: 0,
    interrupt: false,
    receivedAt: 1,
    meta: {},
  }, new AbortController().signal);
  assert.equal(waiting, 1, "the input is being embedded");
  assert.ok(analyzed.includes(input), "its keywords and words were taken meanwhile");
  gate.resolve();
  const sections = JSON.stringify(await recall);
  assert.match(sections, /Memory Index/);
  assert.match(sections, /soft food after the vet/);
});
