/**
 * What the memory heartbeats remember between runs and restarts, in memory/heartbeat.json
 * (atomic writes): the text log watermark of the rule distiller, the review cursor, merge pairs
 * the model refused, and each loop's stats for `memory stats`.
 */
import {
  errorMessage,
  type HeartbeatStats,
  type Logger,
  type TextRedactor,
} from "../../core/mod.ts";
import { writeFileAtomic } from "../home.ts";
import type { TextWatermark } from "../log/text_log.ts";

/** The persisted state. */
export interface HeartbeatSnapshot {
  version: 1;
  textWatermark?: TextWatermark;
  /** The review loop goes on after this relation id (0: from the start). */
  reviewCursor: number;
  /** Entity pairs ("a\u0000b", normalised, sorted) the model said not to merge; newest last. */
  rejectedPairs: string[];
  stats: HeartbeatStats[];
}

const MAX_REJECTED = 5000;

/** The state file, loaded once and written after each change. */
export class HeartbeatState {
  readonly path: string;
  data: HeartbeatSnapshot;
  #logger: Logger;
  #redactor?: TextRedactor;
  #saving: Promise<void> = Promise.resolve();

  private constructor(
    path: string,
    data: HeartbeatSnapshot,
    logger: Logger,
    redactor?: TextRedactor,
  ) {
    this.path = path;
    this.data = data;
    this.#logger = logger;
    this.#redactor = redactor;
  }

  /**
   * Load `path`; a missing file is a fresh state, a corrupt one is moved aside and logged. With
   * `redactor`, every save leaves out forgotten names (merge pairs naming one, error texts).
   */
  static async load(
    path: string,
    logger: Logger,
    redactor?: TextRedactor,
  ): Promise<HeartbeatState> {
    return new HeartbeatState(path, await readSnapshot(path, logger), logger, redactor);
  }

  /** Remember that `a` and `b` are not one entity. */
  reject(a: string, b: string): void {
    const key = pairKey(a, b);
    if (this.data.rejectedPairs.includes(key)) return;
    this.data.rejectedPairs.push(key);
    if (this.data.rejectedPairs.length > MAX_REJECTED) this.data.rejectedPairs.shift();
  }

  /** Whether the model refused to merge `a` and `b` before. */
  rejected(a: string, b: string): boolean {
    return this.data.rejectedPairs.includes(pairKey(a, b));
  }

  /** Write the state (serialised; later calls write the newest data). */
  save(): Promise<void> {
    const run = this.#saving.then(() => {
      if (this.#redactor) this.#redact(this.#redactor);
      return writeFileAtomic(this.path, JSON.stringify(this.data, null, 1) + "\n");
    });
    this.#saving = run.catch((error) =>
      this.#logger.error("Cannot save the heartbeat state", { error: errorMessage(error) })
    );
    return run;
  }

  #redact(redactor: TextRedactor): void {
    this.data.rejectedPairs = this.data.rejectedPairs.filter((p) => !redactor.mentions(p));
    for (const stats of this.data.stats) {
      if (stats.lastError !== undefined) stats.lastError = redactor.redact(stats.lastError);
    }
  }

  /** Wait for writes under way. */
  async flush(): Promise<void> {
    await this.#saving;
  }
}

/** Read the heartbeat stats a daemon left in `path` (for `memory stats`); [] when none. */
export async function readHeartbeatStats(path: string): Promise<HeartbeatStats[]> {
  try {
    const data = JSON.parse(await Deno.readTextFile(path)) as Partial<HeartbeatSnapshot>;
    return Array.isArray(data.stats) ? data.stats : [];
  } catch {
    return [];
  }
}

function pairKey(a: string, b: string): string {
  const [x, y] = [a.toLowerCase().trim(), b.toLowerCase().trim()].sort();
  return `${x}\u0000${y}`;
}

async function readSnapshot(path: string, logger: Logger): Promise<HeartbeatSnapshot> {
  const fresh: HeartbeatSnapshot = { version: 1, reviewCursor: 0, rejectedPairs: [], stats: [] };
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return fresh;
    throw error;
  }
  try {
    const data = JSON.parse(text) as Partial<HeartbeatSnapshot>;
    if (data.version !== 1) throw new SyntaxError(`unknown version ${data.version}`);
    return {
      ...fresh,
      ...data,
      rejectedPairs: Array.isArray(data.rejectedPairs) ? data.rejectedPairs : [],
      stats: Array.isArray(data.stats) ? data.stats : [],
    };
  } catch (error) {
    const aside = `${path}.corrupt-${Date.now()}`;
    await Deno.rename(path, aside);
    logger.error("Heartbeat state unreadable; moved aside, starting fresh", {
      path,
      movedTo: aside,
      error: errorMessage(error),
    });
    return fresh;
  }
}
