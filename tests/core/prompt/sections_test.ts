/** Prompt sections over their share of the budget are cut by relevance, and say so. */
import assert from "node:assert/strict";
import {
  buildSystemPrompt,
  type ContextEvent,
  estimateTokens,
  fitLines,
  fitPersona,
  personaParagraphs,
  RecentContext,
} from "../../../core/mod.ts";

const count = estimateTokens;

Deno.test("fitLines keeps the most relevant lines that fit, in their own order, skipping long ones", () => {
  const lines = ["alpha one", `beta ${"long ".repeat(50)}`, "gamma three", "delta four"];
  const score = new Map([["alpha one", 1], [lines[1]!, 9], ["gamma three", 5], ["delta four", 3]]);
  const fitted = fitLines(lines, 8, count, (line) => score.get(line));
  assert.deepEqual(fitted.lines, ["gamma three", "delta four"], "beta does not fit, alpha is last");
  assert.equal(fitted.cut, 2);
  assert.deepEqual(fitLines(lines, 1000, count).lines, lines, "within budget: all, untouched");
  // Without relevance the lines are taken to be ranked already: the first that fit.
  assert.deepEqual(fitLines(lines, 8, count).lines, ["alpha one", "gamma three"]);
});

Deno.test("fitPersona keeps the first paragraph and the most relevant others", () => {
  const persona =
    "# Persona\n\nYou are Kit, the house agent.\n\nYou love gardening and plants.\n\n" +
    `You know ${"a lot about cars and engines ".repeat(10)}.\n\nYou answer in English.`;
  assert.deepEqual(personaParagraphs(persona).slice(0, 2), [
    "# Persona\n\nYou are Kit, the house agent.",
    "You love gardening and plants.",
  ], "a heading stays with its text");
  const relevance = (p: string) => p.includes("gardening") ? 2 : p.includes("English") ? 1 : 0;
  const fitted = fitPersona(persona, 40, count, relevance);
  assert.equal(
    fitted.text,
    "# Persona\n\nYou are Kit, the house agent.\n\nYou love gardening and plants.\n\n" +
      "You answer in English.",
  );
  assert.deepEqual([fitted.kept, fitted.cut], [3, 1]);
  assert.equal(fitPersona(persona, 10_000, count).text, persona, "within its share: whole");
});

function window(events: number): RecentContext {
  const context = new RecentContext({ capacity: 500 });
  for (let i = 0; i < events; i++) {
    const topic = i === 3 ? "the blue bicycle in the shed" : `weather report number ${i}`;
    const event: ContextEvent = {
      id: `e${i}`,
      role: "user",
      source: "cli",
      channel: "cli",
      input: `${topic} ${"and more words ".repeat(20)}`,
      timestamp: Date.UTC(2026, 0, 1, 0, i),
    };
    context.append(event);
  }
  return context;
}

Deno.test("buildSystemPrompt cuts skills and timeline by relevance and says what it left out", () => {
  const skills = Array.from({ length: 40 }, (_, i) => `- skill${i}: does thing number ${i} well`);
  skills[33] = "- bike_repair: fix a bicycle's chain, brakes and tyres";
  const context = window(60);
  const prompt = buildSystemPrompt({
    persona: "You are Kit.",
    now: Date.UTC(2026, 0, 2),
    memory: [{
      title: "Skills",
      hint: "Call skill_load with a name.",
      lines: skills,
      kind: "skills",
      ranked: false,
    }],
    notes: [],
    context,
    currentEventId: "e59",
    maxContextTokens: 8192,
    count,
    relevance: {
      text: (line) => line.includes("bicycle") ? 1 : 0,
      events: new Map(context.events().map((e) => [e.id, e.id === "e3" ? 1 : 0])),
    },
  });
  const skillsBlock = prompt.text.slice(prompt.text.indexOf("[Skills]"));
  assert.match(skillsBlock, /^\[Skills\] \(\d+ lines not shown\) Call skill_load with a name\.\n/);
  assert.match(skillsBlock, /bike_repair/, "the relevant skill is kept, though 34th by name");
  const ids = prompt.timeline.map((e) => e.id);
  assert.deepEqual(ids.slice(-4), ["e55", "e56", "e57", "e58"], "the newest four first");
  assert.ok(ids.includes("e3"), "then the most relevant, however old");
  assert.ok(!ids.includes("e20"), "not the other old ones");
  assert.deepEqual(ids, [...ids].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))));
  const left = 59 - ids.length;
  assert.match(
    prompt.text,
    new RegExp(`\\[Conversation so far\\] \\(${left} other events not shown\\)`),
  );
  assert.deepEqual(prompt.cuts.map((c) => c.section).sort(), ["skills", "timeline"]);
  assert.ok(prompt.tokens <= prompt.budget.target, "in budget");
});

Deno.test("buildSystemPrompt gives a persona over its share room from the other sections", () => {
  const persona = `You are Kit. ${"Always be kind and careful. ".repeat(200)}`; // one paragraph
  const prompt = buildSystemPrompt({
    persona,
    now: 0,
    memory: [],
    notes: [],
    context: window(200),
    currentEventId: "none",
    maxContextTokens: 8192,
    count,
  });
  assert.ok(prompt.text.startsWith(persona.trim()), "the first paragraph is never cut");
  assert.ok(prompt.tokens <= prompt.budget.target, `in budget: ${prompt.tokens}`);
});
