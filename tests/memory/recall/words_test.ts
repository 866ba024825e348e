import assert from "node:assert/strict";
import { createHashEmbedder, createTextAnalyzer } from "../../../memory/mod.ts";
import { wordScores } from "../../../memory/recall/words.ts";
import { inputEvent, rankEvents } from "./_rank.ts";

async function rankedIds(turns: string[], texts: Record<string, string>): Promise<string[]> {
  const events = Object.entries(texts).map(([id, text]) => inputEvent(id, text));
  const ranked = await rankEvents(createHashEmbedder(), turns, events);
  return ranked.map((item) => item.event?.id ?? "");
}

Deno.test("A words-only space counts a word of an earlier turn as much as one of the input", async () => {
  // The violin is named two turns back; "practice" and "schedule" come in the input. Recency
  // weights let the commoner "schedule" outweigh the rarer "violin" (the hybrid mix did).
  const ids = await rankedIds(
    [
      "I started violin lessons last month",
      "that sounds lovely",
      "what about my practice schedule",
    ],
    {
      gold: "violin practice every evening after dinner",
      soccer: "soccer practice schedule on saturdays",
      swim: "swim practice schedule moved to mondays",
      cake: "baked a lemon cake for the neighbours",
      bus: "the bus was late again this morning",
      plants: "watered the plants on the balcony",
    },
  );
  assert.equal(ids[0], "gold");
});

Deno.test("Feedback lends the best items' words: a memory sharing no query word still ranks", async () => {
  const analyzer = await createTextAnalyzer();
  const texts = [
    "Mimi my kitten went to the vet clinic",
    "Mimi the kitten hates the vet clinic",
    "the vet clinic opens at nine",
    "bought bread and eggs at the market",
  ];
  const scores = wordScores(texts, ["how is Mimi the kitten"], analyzer);
  assert.equal(scores.get(0) === 1 || scores.get(1) === 1, true, "the best scores 1");
  assert.ok((scores.get(2) ?? 0) > 0, "the clinic, reached through the feedback words");
  assert.equal(scores.get(3), undefined, "the market shares nothing");
  const none = wordScores(texts, ["how is Mimi the kitten"], analyzer, {
    items: 0,
    terms: 10,
    weight: 0.3,
  });
  assert.equal(none.get(2), undefined, "without feedback the clinic is not reached");
});
