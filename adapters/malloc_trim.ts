/**
 * Freed native memory back to the system once the agent idles (glibc). glibc keeps what the
 * process frees in its heaps (the main one and one per thread that allocated) for the next
 * allocation, and returns only a free top of the main heap: after a burst of turns what Deno,
 * SQLite and the array buffers V8 has collected freed stays resident, unused (~5.5 MB of the 18–19 MB `rss_growth_1k_turns_mb` measured without a trim).
 * `malloc_trim(0)` hands every heap's free pages back (madvise); V8's own heap shrinks by itself
 * once idle, a few seconds before.
 */
import type { Clock, EventBus, Logger } from "../core/mod.ts";

/** The C library's trim, opened where the process may call it. */
export interface MallocTrim extends Disposable {
  /** Give free heap pages back; true when some were. */
  trim(): boolean;
}

/**
 * glibc's `malloc_trim`, or why there is none: another system or C library (musl has no
 * libc.so.6, macOS's allocator returns memory itself), or a process without `--allow-ffi`
 * (a bundle or compiled binary run without it). Never throws.
 */
export function openMallocTrim(): MallocTrim | { reason: string } {
  if (Deno.build.os !== "linux") return { reason: `no glibc on ${Deno.build.os}` };
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") {
    return { reason: "no --allow-ffi" };
  }
  let lib: Deno.DynamicLibrary<{ malloc_trim: { parameters: ["usize"]; result: "i32" } }>;
  try {
    lib = Deno.dlopen("libc.so.6", { malloc_trim: { parameters: ["usize"], result: "i32" } });
  } catch (error) {
    return { reason: `no glibc: ${error instanceof Error ? error.message : String(error)}` };
  }
  return { trim: () => lib.symbols.malloc_trim(0n) !== 0, [Symbol.dispose]: () => lib.close() };
}

/** Options of trimWhenIdle. */
export interface TrimWhenIdleOptions {
  /** The agent's events: its `status` says when it goes idle and busy. */
  events: Pick<EventBus, "subscribe">;
  clock: Clock;
  logger: Logger;
  /** Idle time after work before the trim, ms; default 15,000 (V8's idle collection is over). */
  delayMs?: number;
  /** Opens the trim at the first one; default openMallocTrim (tests count calls instead). */
  open?: () => MallocTrim | { reason: string };
}

/**
 * Trim once each time the agent has been idle for `delayMs` after work; a turn that starts
 * first puts it off. Nothing is opened before the first trim (start-up stays as it was), and
 * without a trim (see openMallocTrim) the reason is logged once at debug and nothing more runs.
 */
export function trimWhenIdle(options: TrimWhenIdleOptions): Disposable {
  const delay = options.delayMs ?? 15_000;
  let opened: MallocTrim | { reason: string } | undefined;
  let timer: ReturnType<Clock["setTimer"]> | undefined;
  const run = () => {
    timer = undefined;
    opened ??= (options.open ?? openMallocTrim)();
    if ("reason" in opened) {
      options.logger.debug("Native memory is not trimmed", { reason: opened.reason });
      return unsubscribe();
    }
    const started = options.clock.monotonic();
    const trimmed = opened.trim();
    options.logger.debug("Trimmed native memory", {
      trimmed,
      ms: Math.round(options.clock.monotonic() - started),
    });
  };
  const unsubscribe = options.events.subscribe("status", (event) => {
    timer?.cancel();
    timer = event.state === "idle" ? options.clock.setTimer(delay, run) : undefined;
  });
  return {
    [Symbol.dispose]() {
      timer?.cancel();
      unsubscribe();
      if (opened && !("reason" in opened)) opened[Symbol.dispose]();
    },
  };
}
