import assert from "node:assert/strict";
import { join } from "node:path";
import { silentLogger } from "../../../core/mod.ts";
import { systemClock } from "../../../adapters/mod.ts";
import {
  createHashEmbedder,
  createTextAnalyzer,
  EvalTurn,
  fuseRankings,
  readJsonl,
  recallAt,
  reciprocalRank,
  runMemoryEval,
} from "../../../memory/mod.ts";
import { questionTurns } from "../../../memory/eval/eval.ts";
import { runMain } from "../../fakes/daemon.ts";

const FIXTURES = new URL("../../fixtures/eval/", import.meta.url).pathname;

Deno.test("recall@k, MRR and rank fusion score as defined", () => {
  assert.equal(recallAt(["a", "b", "c"], ["c", "x"], 2), 0);
  assert.equal(recallAt(["a", "b", "c"], ["c", "x"], 3), 0.5);
  assert.equal(reciprocalRank(["a", "b", "c"], ["b"]), 0.5);
  assert.equal(reciprocalRank(["a"], ["z"]), 0);
  assert.deepEqual(
    fuseRankings([{ tier: "context", turnIds: ["a", "b"] }, {
      tier: "graph",
      turnIds: ["b", "c"],
    }]),
    ["b", "a", "c"],
  );
});

Deno.test("a transcript question is asked as a chat asks: its turns without speaker labels", () => {
  assert.deepEqual(
    questionTurns("Bart: I won!\nAssistant: Well done: tell me more.\nBart: A cup."),
    [
      "I won!",
      "Well done: tell me more.",
      "A cup.",
    ],
  );
  assert.deepEqual(questionTurns("Lisa：老师表扬我了\n助手：真棒！"), ["老师表扬我了", "真棒！"]);
  // Not a transcript: a label on some lines only, or one line, stays as written.
  assert.deepEqual(questionTurns("Note: buy milk\nand bread"), ["Note: buy milk", "and bread"]);
  assert.deepEqual(questionTurns("Note: buy milk"), ["Note: buy milk"]);
});

Deno.test("readJsonl names the file and line of a bad record", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "bad.jsonl");
    await Deno.writeTextFile(
      path,
      '{"turn_id":"a","speaker":"u","text":"x","timestamp":"2026"}\n{"turn_id":1}\n',
    );
    await assert.rejects(readJsonl(path, EvalTurn), new RegExp(`${path}:2: turn_id`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval memory runs the built-in bilingual set end to end through the CLI", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-eval-home-" });
  try {
    const set = await runMain([
      "config",
      "--home",
      home,
      "set",
      "core.agent.max_context_size",
      "2",
    ]);
    assert.equal(set.code, 0, set.stderr);
    const runOut = join(home, "run.jsonl");
    const result = await runMain([
      "eval",
      "memory",
      "--home",
      home,
      "--corpus",
      join(FIXTURES, "small_corpus.jsonl"),
      "--questions",
      join(FIXTURES, "small_questions.jsonl"),
      "--k",
      "1,5",
      "--run-out",
      runOut,
    ]);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.equal(report.questions, 8);
    assert.equal(report.scopes, 2);
    assert.match(report.embedder, /^hash-ngram:v1:\d+$/);
    assert.ok(report.overall["recall@5"] >= 0.75, JSON.stringify(report.overall));
    assert.ok(report.by_lang.en && report.by_lang.zh);
    assert.ok(report.by_tier.documents.questions === 8, "pruned turns were archived and asked");
    assert.ok(report.by_tier.documents["recall@5"] > 0, "some answers came from documents");
    const lines = (await Deno.readTextFile(runOut)).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.length, 8);
    assert.ok(lines.every((l) => typeof l.id === "string" && Array.isArray(l.ranked)));
    const bad = await runMain(["eval", "memory", "--home", home, "--corpus", "x"]);
    assert.equal(bad.code, 2);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("runMemoryEval skips questions with an empty gold list and counts them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-eval-gold-" });
  try {
    const questions = join(dir, "questions.jsonl");
    const given = await Deno.readTextFile(join(FIXTURES, "small_questions.jsonl"));
    const empty = [
      { id: "en:none", question: "What is my dog called?", lang: "en", gold_turn_ids: [] },
      { id: "zh:none", question: "我的狗叫什么？", lang: "zh", gold_turn_ids: [], scope: "s-zh" },
    ].map((q) => JSON.stringify(q)).join("\n");
    await Deno.writeTextFile(questions, `${given.trimEnd()}\n${empty}\n`);
    const runOut = join(dir, "run.jsonl");
    const analyzer = await createTextAnalyzer();
    const result = await runMemoryEval({
      corpusPath: join(FIXTURES, "small_corpus.jsonl"),
      questionsPath: questions,
      ks: [5],
      embedder: createHashEmbedder({ analyzer }),
      analyzer,
      clock: systemClock,
      logger: silentLogger,
      contextSize: 2,
      runOut,
    });
    assert.equal(result.questions, 8);
    assert.equal(result.skipped_empty_gold, 2);
    assert.equal(result.overall.questions, 8);
    assert.ok(Number.isFinite(result.overall["recall@5"]), JSON.stringify(result.overall));
    const ids = (await Deno.readTextFile(runOut)).trim().split("\n").map((l) => JSON.parse(l).id);
    assert.equal(ids.length, 8);
    assert.ok(!ids.includes("en:none") && !ids.includes("zh:none"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval's graph tier holds archived memories told in the third person, as the archive loop commits them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-eval-graph-" });
  try {
    const texts = [
      "Bart danced at the Christmas party and felt very happy.",
      "Bart visited the aquarium with his grandmother.",
      "Bart broke his bicycle on the way to school.",
      "Bart baked cookies with his sister for the bake sale.",
      "Bart watched the fireworks on the beach.",
      // The window keeps its newest 10 events: these push the first ones into documents.
      ...Array.from({ length: 12 }, (_, i) => `Bart read chapter ${i + 1} of a pirate novel.`),
    ];
    const corpus = join(dir, "corpus.jsonl");
    await Deno.writeTextFile(
      corpus,
      texts.map((text, i) =>
        JSON.stringify({
          turn_id: `m${i}`,
          session_id: "bart",
          speaker: "memory",
          text,
          timestamp: new Date(Date.UTC(2023, 0, i + 1)).toISOString(),
        })
      ).join("\n"),
    );
    const questions = join(dir, "questions.jsonl");
    await Deno.writeTextFile(
      questions,
      JSON.stringify({
        id: "q",
        question:
          "Bart: My bicycle needs a new tyre.\nAssistant: Oh no!\nBart: The bicycle shop is closed.",
        gold_turn_ids: ["m2"],
      }),
    );
    const analyzer = await createTextAnalyzer();
    const report = await runMemoryEval({
      corpusPath: corpus,
      questionsPath: questions,
      ks: [5],
      embedder: createHashEmbedder({ analyzer }),
      analyzer,
      clock: systemClock,
      logger: silentLogger,
      contextSize: 1,
    });
    // No sentence here says "I like" or "my name is": before, the graph tier stayed empty.
    assert.equal(report.by_tier.graph!["recall@5"], 1, JSON.stringify(report.by_tier));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
