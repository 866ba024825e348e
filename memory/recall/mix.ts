/**
 * The one way recall mixes its two signals (issue 15): a dense cosine in the current vector
 * space and a BM25 keyword score, each min-max normalised over the candidates that have it, then
 * added with weights. Measured on MADial-Bench, this beat reciprocal rank fusion (which throws
 * the scores' margins away) by about 0.04 recall@10; see docs/memory.md "Hybrid recall".
 * @module
 */

/** A candidate's raw scores; a side that did not see it leaves its score out. */
export interface MixCandidate {
  id: string;
  /** Cosine with the query vector. */
  dense?: number;
  /** BM25 of the query's words. */
  keyword?: number;
}

/** A mixed candidate, best first. */
export interface MixedScore {
  id: string;
  /** `dense weight × normalised dense + (1 − dense weight) × normalised keyword`, in [0, 1]. */
  score: number;
  dense?: number;
  keyword?: number;
}

/** Weight of the dense side, in [0, 1]; the keyword side gets the rest. */
export interface MixWeights {
  dense: number;
}

/**
 * Mix `candidates` (ids distinct) best first. A side's scores are mapped onto [0, 1] by min-max
 * over the candidates that have one; a candidate the side did not see scores 0 there, as the
 * side's lowest does. When all of a side's scores are equal they count fully (1), so a lone hit
 * is not mistaken for the worst.
 */
export function mixScores(
  candidates: readonly MixCandidate[],
  weights: MixWeights,
): MixedScore[] {
  const dense = normaliser(candidates.map((c) => c.dense));
  const keyword = normaliser(candidates.map((c) => c.keyword));
  const w = Math.min(1, Math.max(0, weights.dense));
  return candidates.map((c) => ({
    ...c,
    score: w * dense(c.dense) + (1 - w) * keyword(c.keyword),
  })).sort((a, b) => b.score - a.score || closer(a, b));
}

/**
 * A tie on the mix goes to the closer vector, then the better keyword score: with the dense
 * weight at 0 (query words in a script the model was not trained for) and no word in common,
 * the vectors still order what the words cannot.
 */
function closer(a: MixCandidate, b: MixCandidate): number {
  return (b.dense ?? -Infinity) - (a.dense ?? -Infinity) ||
    (b.keyword ?? -Infinity) - (a.keyword ?? -Infinity) || 0;
}

/** Min-max over the defined values; undefined maps to 0. */
function normaliser(values: readonly (number | undefined)[]): (v: number | undefined) => number {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v === undefined || !Number.isFinite(v)) continue;
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  const span = hi - lo;
  return (v) => {
    if (v === undefined || !Number.isFinite(v)) return 0;
    return span > 0 ? (v - lo) / span : 1;
  };
}

/** Candidates from a dense and a keyword hit list (each `{id, score}`), by id. */
export function mergeHits(
  dense: readonly { id: string; score: number }[],
  keyword: readonly { id: string; score: number }[],
): MixCandidate[] {
  const byId = new Map<string, MixCandidate>();
  for (const d of dense) byId.set(d.id, { id: d.id, dense: d.score });
  for (const k of keyword) {
    const c = byId.get(k.id) ?? { id: k.id };
    c.keyword = k.score;
    byId.set(k.id, c);
  }
  return [...byId.values()];
}
