/**
 * `<home>/timers.json`: the pending timers, written atomically and validated with zod on read.
 * A file that does not validate is moved aside (`timers.json.corrupt-<time>`) with a log line.
 */
import { z } from "zod";
import { errorMessage, type Logger } from "../../../core/mod.ts";
import { writeAtomic } from "../_fs.ts";

/** One pending timer. */
export const TimerRecord = z.lazy(() =>
  z.object({
    id: z.string().regex(/^[a-z0-9]{6,16}$/),
    message: z.string().min(1).max(2000),
    kind: z.enum(["once", "every", "cron"]),
    dueAt: z.number(),
    everyMs: z.number().int().positive().optional(),
    cron: z.string().max(200).optional(),
    timezone: z.string().max(100).optional(),
    /** Where the reply goes: the channel of the turn that set it. */
    channel: z.string().max(100),
    createdAt: z.number(),
    fired: z.number().int().min(0),
  })
);

/** One pending timer. */
export type TimerRecord = z.infer<typeof TimerRecord>;

const TimerFile = z.lazy(() => z.object({ version: z.literal(1), timers: z.array(TimerRecord) }));

/** Reads and writes the timers file. */
export class TimerStore {
  #path: string;
  #logger: Logger;
  #queue: Promise<void> = Promise.resolve();

  constructor(options: { path: string; logger: Logger }) {
    this.#path = options.path;
    this.#logger = options.logger;
  }

  /**
   * The saved timers; none when the file is missing or was corrupt, in which case it was moved
   * aside and `movedTo` names where.
   */
  async load(now: number): Promise<{ timers: TimerRecord[]; movedTo?: string }> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.#path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return { timers: [] };
      throw error;
    }
    let problem: string;
    try {
      const parsed = TimerFile.safeParse(JSON.parse(text));
      if (parsed.success) return { timers: parsed.data.timers };
      problem = parsed.error.message;
    } catch (error) {
      problem = errorMessage(error);
    }
    const movedTo = `${this.#path}.corrupt-${now}`;
    await Deno.rename(this.#path, movedTo);
    this.#logger.error("Corrupt timers file moved aside; starting with no timers", {
      path: this.#path,
      movedTo,
      problem,
    });
    return { timers: [], movedTo };
  }

  /** Resolves once every save asked for so far has finished (or failed). */
  settled(): Promise<void> {
    return this.#queue;
  }

  /** Save `timers` (writes are serialised, the last one wins). */
  save(timers: readonly TimerRecord[]): Promise<void> {
    const text = JSON.stringify({ version: 1, timers }, null, 1);
    const run = this.#queue.then(() => writeAtomic(this.#path, text, { mode: 0o600 }));
    this.#queue = run.catch(() => {});
    return run;
  }
}
