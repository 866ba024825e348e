/**
 * run/guard.json: what the guard tells the agent it starts (the boot, and why fail-back boot)
 * and what `status` shows of the guard (its pid, restarts, the last crash). Written atomically
 * by the guard before each start (run.ts); read here by the agent, which never writes it.
 */
import { z } from "zod";
import { errorMessage, HomeAgentError } from "../../core/mod.ts";
import type { GuardState } from "./guard.ts";

const GuardStateSchema = z.lazy(() =>
  z.object({
    pid: z.number().int(),
    boot: z.enum(["normal", "failback"]),
    restarts: z.number().int().nonnegative(),
    lastCrash: z.object({ at: z.string(), reason: z.string() }).optional(),
    failback: z.object({
      since: z.string(),
      windowMs: z.number(),
      crashes: z.array(z.string()),
    }).optional(),
  })
);

/**
 * The guard's state at `path`; undefined when there is none (a daemon run without a guard).
 * Throws HomeAgentError "guard_state" for a file that is not the guard's.
 */
export async function readGuardState(path: string): Promise<GuardState | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  try {
    return GuardStateSchema.parse(JSON.parse(text));
  } catch (error) {
    throw new HomeAgentError(
      "guard_state",
      `Cannot read the guard's state "${path}": ${errorMessage(error)}`,
      { cause: error },
    );
  }
}

/**
 * The L4 notice of a fail-back boot: why (the crashes the guard saw) and what is off (the
 * installed plugins not started), for the model to tell the owner.
 */
export function failbackNotice(state: GuardState | undefined, disabled: readonly string[]): string {
  const crashes = state?.failback?.crashes ?? [];
  const minutes = Math.round((state?.failback?.windowMs ?? 5 * 60_000) / 60_000);
  const why = crashes.length > 0
    ? `the agent crashed ${crashes.length} times within ${minutes} minutes (${crashes.join("; ")})`
    : "the agent kept crashing";
  const off = disabled.length > 0
    ? `the installed plugins ${disabled.map((n) => `"${n}"`).join(", ")} are not started`
    : "no installed plugins were there to leave out";
  return `HomeAgent restarted in fail-back boot because ${why}. Only the built-in plugins and ` +
    `memory run; ${off}. They start again when HomeAgent is restarted (for a service: ` +
    `systemctl --user restart homeagent). Tell the owner.`;
}
