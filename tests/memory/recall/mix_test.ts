import assert from "node:assert/strict";
import { mergeHits, mixScores } from "../../../memory/recall/mix.ts";

Deno.test("mixScores min-max normalises each side and adds them with the dense weight", () => {
  const mixed = mixScores([
    { id: "a", dense: 0.9, keyword: 2 },
    { id: "b", dense: 0.5, keyword: 10 },
    { id: "c", dense: 0.7 },
  ], { dense: 0.7 });
  // a: 0.7·1 + 0.3·0 = 0.7; b: 0.7·0 + 0.3·1 = 0.3; c: 0.7·0.5 + 0 = 0.35
  assert.deepEqual(mixed.map((m) => m.id), ["a", "c", "b"]);
  assert.ok(Math.abs(mixed[0]!.score - 0.7) < 1e-9);
  assert.ok(Math.abs(mixed[1]!.score - 0.35) < 1e-9);
  // The keyword side alone: raw BM25 margins decide, not ranks.
  assert.deepEqual(
    mixScores([{ id: "x", keyword: 1 }, { id: "y", keyword: 9 }], { dense: 0 })
      .map((m) => [m.id, m.score]),
    [["y", 1], ["x", 0]],
  );
});

Deno.test("mixScores counts a lone or tied side fully and clamps the weight", () => {
  const lone = mixScores([{ id: "a", keyword: 3 }, { id: "b", dense: 0.2 }], { dense: 0.5 });
  assert.deepEqual(lone.map((m) => m.score), [0.5, 0.5]);
  const clamped = mixScores([{ id: "a", dense: 1 }, { id: "b", dense: 0, keyword: 1 }], {
    dense: 7,
  });
  assert.deepEqual(clamped.map((m) => m.id), ["a", "b"]);
  assert.equal(clamped[1]!.score, 0);
});

Deno.test("mergeHits joins the two hit lists by id", () => {
  assert.deepEqual(
    mergeHits([{ id: "a", score: 0.8 }, { id: "b", score: 0.4 }], [{ id: "b", score: 5 }, {
      id: "c",
      score: 1,
    }]),
    [{ id: "a", dense: 0.8 }, { id: "b", dense: 0.4, keyword: 5 }, { id: "c", keyword: 1 }],
  );
});

Deno.test("a tie on the mix goes to the closer vector, then the better keyword score", () => {
  // The dense weight at 0 and no word in common: every score is 0, the vectors still order.
  const words = mixScores([
    { id: "far", dense: 0.1 },
    { id: "near", dense: 0.9 },
    { id: "none" },
  ], { dense: 0 });
  assert.deepEqual(words.map((m) => [m.id, m.score]), [["near", 0], ["far", 0], ["none", 0]]);
  const keyword = mixScores([{ id: "a", keyword: 1 }, { id: "b", keyword: 4 }, { id: "c" }], {
    dense: 1,
  });
  assert.deepEqual(keyword.map((m) => m.id), ["b", "a", "c"]);
});
