/**
 * Running the figures of `deno task bench` and printing them. A bench that throws (no chromium,
 * a missing file, a bug) costs only its own figures: they are reported as `{error}` entries and
 * the other benches still run.
 */
import type { Figure, FigureFn, FigureResult } from "./_figure.ts";

/** Options of measureFigures. */
export interface MeasureOptions {
  /** Only these figure names (each must be a key of the bench table). */
  only?: readonly string[];
  /** Told before each measurement starts. */
  onStart?: (name: string) => void;
}

/**
 * Measure every figure of `benches` (name → function; one function may stand under several
 * names when one measurement yields them all). Never throws for a failing bench.
 */
export async function measureFigures(
  benches: Readonly<Record<string, FigureFn>>,
  options: MeasureOptions = {},
): Promise<Record<string, FigureResult>> {
  const wanted = (name: string) => !options.only || options.only.includes(name);
  const results: Record<string, FigureResult> = {};
  const done = new Set<FigureFn>();
  for (const [name, fn] of Object.entries(benches)) {
    if (!wanted(name) || done.has(fn)) continue;
    done.add(fn);
    const names = Object.keys(benches).filter((key) => benches[key] === fn && wanted(key));
    options.onStart?.(name);
    let produced: Record<string, Figure>;
    try {
      const out = await fn();
      produced = "value" in out ? { [name]: out as Figure } : out as Record<string, Figure>;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      for (const key of names) results[key] = { error: message || "bench threw" };
      continue;
    }
    for (const key of new Set([...names, ...Object.keys(produced)])) {
      if (!wanted(key)) continue;
      const figure = produced[key];
      results[key] = isFigure(figure)
        ? figure
        : { error: `its bench reported no finite value for "${key}"` };
    }
  }
  return results;
}

/** True for a measured figure (a finite number with a unit). */
export function isFigure(result: unknown): result is Figure {
  return typeof result === "object" && result !== null && "value" in result &&
    typeof result.value === "number" && Number.isFinite(result.value);
}

/** The table `deno task bench` prints: one line per figure, errors with their reason. */
export function formatTable(results: Readonly<Record<string, FigureResult>>): string {
  const width = Math.max(...Object.keys(results).map((k) => k.length), 6);
  const lines = [`${"figure".padEnd(width)}  ${"value".padStart(12)}  unit`];
  for (const [key, result] of Object.entries(results)) {
    if (!isFigure(result)) {
      const reason = "error" in result ? result.error : "not measured";
      lines.push(`${key.padEnd(width)}  ${"error".padStart(12)}  ${reason}`);
      continue;
    }
    const value = Number.isInteger(result.value) ? String(result.value) : result.value.toFixed(2);
    lines.push(`${key.padEnd(width)}  ${value.padStart(12)}  ${result.unit}`);
  }
  return lines.join("\n");
}

/** The names of the figures that could not be measured. */
export function failedFigures(results: Readonly<Record<string, FigureResult>>): string[] {
  return Object.entries(results).filter(([, r]) => !isFigure(r)).map(([name]) => name);
}
