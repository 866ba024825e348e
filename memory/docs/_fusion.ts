/** Reciprocal rank fusion of a document query's dense and keyword hit lists. */

/** Fuse the dense and keyword lists by rank; a dense-only hit needs `minDense`. */
export function fuse(
  dense: { id: string; score: number }[],
  keyword: { id: string; score: number }[],
  k: number,
  minDense: number,
): { id: string; score: number; dense?: number; keyword: boolean }[] {
  const hits = new Map<string, { id: string; score: number; dense?: number; keyword: boolean }>();
  dense.forEach((d, rank) => {
    hits.set(d.id, { id: d.id, score: 1 / (k + rank + 1), dense: d.score, keyword: false });
  });
  keyword.forEach((w, rank) => {
    const hit = hits.get(w.id) ?? { id: w.id, score: 0, keyword: false };
    hit.score += 1 / (k + rank + 1);
    hit.keyword = true;
    hits.set(w.id, hit);
  });
  return [...hits.values()].filter((h) => h.keyword || (h.dense ?? 0) >= minDense)
    .sort((a, b) => b.score - a.score);
}
