/**
 * Running a Lua call that may wait on the host (wasmoon's `promise:await()` yields the thread
 * with the promise): every resume is one segment under the call's budget, and the waits between
 * them count against its wall cap only.
 */
import type { LuaThread } from "wasmoon";
import type { LuaBudget } from "./budget.ts";
import type { LuaCall } from "./call.ts";

const LUA_YIELD = 1;

/** How a resumed call ended: lua_resume's status and the number of results on the thread. */
export interface LuaResumeEnd {
  status: number;
  results: number;
}

/** Options of resumeUnderBudget. */
export interface ResumeOptions {
  /** Called when the call starts waiting on a promise of the host. */
  onWait?: () => void;
}

/**
 * Resume `thread`, whose function and `nargs` arguments are pushed, until it returns or fails;
 * never throws for a Lua error (the status says). Stops waiting with status -1 when `call` is
 * breached between segments (the thread is then abandoned mid-wait).
 */
export async function resumeUnderBudget(
  budget: LuaBudget,
  call: LuaCall,
  thread: LuaThread,
  nargs: number,
  options: ResumeOptions = {},
): Promise<LuaResumeEnd> {
  let args = nargs;
  for (;;) {
    const { result, resultCount } = budget.run(call, () => thread.resume(args));
    if (result !== LUA_YIELD) return { status: result, results: resultCount };
    const yielded: unknown = resultCount > 0 ? thread.getValue(-1) : undefined;
    if (resultCount > 0) thread.pop(resultCount);
    if (call.breach) return { status: -1, results: 0 };
    if (yielded instanceof Promise) {
      options.onWait?.();
      await yielded.catch(() => {});
    } else await new Promise((resolve) => queueMicrotask(() => resolve(undefined)));
    if (budget.expired(call)) return { status: -1, results: 0 };
    args = 0;
  }
}
