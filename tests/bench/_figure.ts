/** Shared types and statistics of the benchmarks. */

/** One measured figure. */
export interface Figure {
  value: number;
  unit: string;
}

/** A figure that could not be measured, and why (a bench that threw, no chromium, …). */
export interface FigureError {
  error: string;
}

/** What the harness reports under a figure's name. */
export type FigureResult = Figure | FigureError;

/** Measures one figure, or several figures from one measurement (keyed by name). */
export type FigureFn = () => Promise<Figure | Record<string, Figure>>;

/** The q-quantile (0..1) of `samples` by nearest rank. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** Round to `digits` decimals. */
export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
