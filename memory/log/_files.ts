/** The text log's file names: one file per start time, `20260101T000000000Z.jsonl`. */

/** A log file's name. */
export const LOG_FILE = /^(\d{8}T\d{9}Z)\.jsonl$/;

/** The log files of `dir`, oldest first (names sort by their start time). */
export async function listLogFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && LOG_FILE.test(entry.name)) names.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

/** `20260101T000000000Z.jsonl` for a start time. */
export function fileName(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:.]/g, "") + ".jsonl";
}

/** The start time a file name carries, or undefined for another name. */
export function parseStart(name: string): number | undefined {
  const stamp = LOG_FILE.exec(name)?.[1];
  if (!stamp) return undefined;
  const iso = `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T` +
    `${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}.${stamp.slice(15, 18)}Z`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}
