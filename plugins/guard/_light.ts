/**
 * The two helpers of core/ the guard needs, written here because the guard process must not
 * evaluate core/mod.ts (zod and the kernel: ~15 MB it would hold for nothing).
 */
import type { Clock } from "../../core/mod.ts";

/** An error's message, or the thrown value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Resolve after `ms` on `clock`; reject with the signal's reason when it aborts first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener("abort", abort);
      resolve();
    });
    const abort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
}
