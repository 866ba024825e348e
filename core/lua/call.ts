/** The terms of the Lua budget: limits, breaches and one call's accounting (see budget.ts). */

/** What one call into a Lua VM may spend. */
export interface LuaLimits {
  /** VM instructions per call. */
  instructions: number;
  /** Wall time per call, ms (time spent waiting on the host counts). */
  timeMs: number;
  /** Bytes the VM may hold at once. */
  memoryBytes: number;
}

/** Which budget a call ran out of. */
export type LuaBudgetKind = "instructions" | "time" | "memory";

/** A call that ran out of a budget: which, its limit, and where the script was. */
export interface LuaBreach {
  kind: LuaBudgetKind;
  limit: number;
  /** `chunk:line` of the script when known. */
  where?: string;
  /** What asked for too much (`string.rep of 1000000000 bytes`). */
  detail?: string;
}

/** "time limit of 1000 ms exceeded at main.lua:3", for error messages. */
export function describeBreach(breach: LuaBreach): string {
  const limit = breach.kind === "time"
    ? `time limit of ${breach.limit} ms`
    : breach.kind === "memory"
    ? `memory limit of ${formatBytes(breach.limit)}`
    : `instruction limit of ${breach.limit}`;
  const detail = breach.detail ? ` (${breach.detail})` : "";
  return `${limit} exceeded${detail}${breach.where ? ` at ${breach.where}` : ""}`;
}

function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return Number.isInteger(mb) ? `${mb} MB` : `${bytes} bytes`;
}

/** Options of one call: its limits where they differ from the VM's. */
export interface LuaCallOptions {
  /** The Lua thread the call runs on (default the main one). */
  thread?: number;
  /** Execution time of this call, ms. */
  timeMs?: number;
  /** Wall time of this call including its waits on the host, ms (default: no cap). */
  wallMs?: number;
}

/**
 * One call into Lua, possibly resumed several times around waits on the host. Its time budget
 * counts the time it runs, not the time it waits; the wall cap counts both. A segment's clock
 * starts at its first check (count hook, charge or allocation slice), so a short call never
 * reads the clock at all; what runs before that first check is bounded by those same checks.
 */
export class LuaCall {
  readonly started: number;
  readonly timeMs: number;
  readonly wallMs: number;
  /** The Lua thread the call runs on: where a refused allocation is located. */
  readonly thread: number;
  /** Milliseconds run in finished segments. */
  spent = 0;
  count = 0;
  breach?: LuaBreach;
  /** An allocation refused once: a breach unless Lua's retry after collecting fits. */
  refused?: { size: number; where?: string };
  /** The last script line seen while the call was past half of a limit. */
  lastWhere?: string;
  #running = false;
  #segment = NaN;

  constructor(started: number, thread: number, timeMs: number, wallMs: number) {
    this.started = started;
    this.thread = thread;
    this.timeMs = timeMs;
    this.wallMs = wallMs;
  }

  /** Milliseconds run so far, at time `now`. */
  ran(now: number): number {
    if (!this.#running) return this.spent;
    if (Number.isNaN(this.#segment)) this.#segment = now;
    return this.spent + now - this.#segment;
  }

  /** Record a time breach when the call is over either time budget at `now`. */
  overTime(now: number): boolean {
    if (this.breach) return true;
    if (this.ran(now) > this.timeMs) this.breach = { kind: "time", limit: this.timeMs };
    else if (now - this.started > this.wallMs) {
      this.breach = { kind: "time", limit: this.wallMs, detail: "waits on the host included" };
    }
    return this.breach !== undefined;
  }

  /** Mark a segment begun (its clock not read yet). */
  resume(): void {
    this.#running = true;
    this.#segment = NaN;
  }

  /** Mark the segment ended; reads the clock only when the segment had started one. */
  pause(now: () => number): void {
    if (!Number.isNaN(this.#segment)) this.spent += now() - this.#segment;
    this.#running = false;
    this.#segment = NaN;
  }
}
