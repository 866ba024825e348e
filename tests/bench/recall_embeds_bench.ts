/**
 * `recall_embeds_per_turn` (issue 14): texts a chat turn hands the embedder interactively —
 * Context.Prune, the automatic recall of every tier and the prompt's relevance cuts — mean
 * over 30 turns of a home that holds documents, graph facts and a knowledge entry (real
 * kernel, fake LLM server on 127.0.0.1). Target ≤ 1: only the input is embedded; the window's
 * events, documents, entities and knowledge are scored by their stored vectors. A reply is
 * embedded once more, in the background, when it is stored (`recall_store_embeds_per_turn`).
 * The 30 turns fit the default window, so no prune archives (an archive embeds what it stores).
 * @module
 */
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { lastUserMessage } from "../fakes/brain.ts";
import { openTestHome } from "../fakes/memory_home.ts";
import { countingEmbedder } from "../fakes/counting_embedder.ts";
import { type Figure, round } from "./_figure.ts";

const TOPICS = ["cat Mimi", "猫", "sister Ann", "Oslo", "green tea", "花园", "the vet", "生日"];

async function embedsFigure(): Promise<Record<string, Figure>> {
  const counted = countingEmbedder();
  await using llm = startFakeOpenAI({
    fallback: (request) => reply.text(`Noted: ${lastUserMessage(request).slice(0, 40)}`),
  });
  await using home = await openTestHome({ llm, embedder: counted.embedder });
  const { memory } = home;
  await memory.documents.insertMany(
    TOPICS.map((t, i) => ({ content: `A note about ${t}, number ${i}`, source: "bench" })),
  );
  await memory.graph.graph.commit([
    { subject: "Ann", predicate: "sister_of", object: "owner" },
    { subject: "owner", predicate: "has_pet", object: "Mimi" },
  ]);
  await Deno.mkdir(join(home.paths.knowledge, "pets"), { recursive: true });
  await Deno.writeTextFile(join(home.paths.knowledge, "pets", "content.md"), "# Pets\nMimi.\n");
  await memory.upkeep.knowledge.scan();
  const from = counted.calls.length;
  const turns = 30;
  for (let i = 0; i < turns; i++) {
    await home.say(`What do you remember about ${TOPICS[i % TOPICS.length]}? (${i})`);
    await memory.context.flush();
  }
  const calls = counted.calls.slice(from);
  const count = (p: string) => calls.filter((c) => c.priority === p).length / turns;
  return {
    recall_embeds_per_turn: { value: round(count("interactive"), 2), unit: "texts" },
    recall_store_embeds_per_turn: { value: round(count("background"), 2), unit: "texts" },
  };
}

/** The figures of this module. */
export const figures = {
  "recall_embeds_per_turn": embedsFigure,
  "recall_store_embeds_per_turn": embedsFigure,
};
