/**
 * When a timer is due: a duration ("10m", "1h30m", "90s", "2d"), a time ("2026-05-01T09:00",
 * "09:30", ISO with or without an offset; local time when none), or a cron expression, whose
 * next run croner computes. Nothing here keeps time: callers pass `now`.
 */
import { Cron } from "croner";
import { HomeAgentError } from "../../../core/mod.ts";

/** A timer request that cannot be scheduled; the message says why and what is expected. */
export class TimerSpecError extends HomeAgentError {
  constructor(message: string) {
    super("timer_invalid", message);
  }
}

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};
const MAX_DELAY_MS = 400 * 86_400_000;
/** The shortest interval a repeating timer may have: each firing is an L3 interrupt. */
export const MIN_REPEAT_MS = 60_000;

/** Milliseconds of a duration such as "1h30m", "45 s" or "PT10M". */
export function parseDuration(text: string): number {
  const iso = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/i.exec(text.trim());
  let total = 0;
  if (iso && text.trim().length > 1) {
    const [d, h, m, s] = iso.slice(1).map((v) => Number(v ?? 0));
    total = d! * UNITS.d! + h! * UNITS.h! + m! * UNITS.m! + s! * UNITS.s!;
  } else {
    const rest = text.trim().toLowerCase().replace(
      /(\d+(?:\.\d+)?)\s*(ms|sec|min|hr|s|m|h|d|w)\b\s*/g,
      (_, n: string, unit: string) => {
        total += Number(n) * UNITS[unit]!;
        return "";
      },
    );
    if (rest !== "" || text.trim() === "") {
      throw new TimerSpecError(
        `Cannot read duration "${text}"; expected e.g. "90s", "10m", "1h30m", "2d"`,
      );
    }
  }
  if (!(total >= 1000) || total > MAX_DELAY_MS) {
    throw new TimerSpecError(`Duration "${text}" must be between 1 s and 400 days`);
  }
  return Math.round(total);
}

/** The epoch ms of `text` ("2026-05-01T09:00[:ss][Z|±hh:mm]" or "HH:MM" = next such time). */
export function parseAt(text: string, now: number): number {
  const clock = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (clock) {
    const [h, m] = [Number(clock[1]), Number(clock[2])];
    if (h > 23 || m > 59) throw new TimerSpecError(`"${text}" is not a time of day`);
    const at = new Date(now);
    at.setHours(h, m, 0, 0);
    if (at.getTime() <= now) at.setDate(at.getDate() + 1);
    return at.getTime();
  }
  if (
    !/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(text.trim())
  ) {
    throw new TimerSpecError(
      `Cannot read time "${text}"; expected "2026-05-01T09:00" (local), with an optional offset, or "09:30"`,
    );
  }
  const at = new Date(text.trim().replace(" ", "T")).getTime();
  if (!Number.isFinite(at)) throw new TimerSpecError(`"${text}" is not a valid date`);
  if (at <= now) throw new TimerSpecError(`Time "${text}" is in the past`);
  if (at - now > MAX_DELAY_MS) {
    throw new TimerSpecError(`Time "${text}" is more than 400 days away`);
  }
  return at;
}

/** The next run of `pattern` strictly after `now`; throws TimerSpecError for a bad pattern. */
export function nextCron(pattern: string, now: number, timezone?: string): number {
  let cron: Cron;
  try {
    cron = new Cron(pattern, { paused: true, ...(timezone ? { timezone } : {}) });
  } catch (error) {
    throw new TimerSpecError(`Bad cron expression "${pattern}": ${(error as Error).message}`);
  }
  try {
    const runs = cron.nextRuns(2, new Date(now));
    if (runs.length === 0) {
      throw new TimerSpecError(`Cron expression "${pattern}" never runs again`);
    }
    if (runs.length === 2 && runs[1]!.getTime() - runs[0]!.getTime() < MIN_REPEAT_MS) {
      throw new TimerSpecError(`Cron expression "${pattern}" runs more often than once a minute`);
    }
    return runs[0]!.getTime();
  } finally {
    cron.stop();
  }
}
