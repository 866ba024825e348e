/** Whether a daemon already serves a home: asked by the guard first, and by the agent's claim. */

/** The run files of a home this needs. */
export interface RunFileNames {
  root: string;
  socket: string;
  pidFile: string;
}

/**
 * Throw HomeAgentError "already_running" (naming its pid) when a daemon answers on the home's
 * socket; resolves true when a socket file is there that nobody answers on (left by a crash).
 */
export async function refuseRunning(files: RunFileNames): Promise<boolean> {
  try {
    const conn = await Deno.connect({ transport: "unix", path: files.socket });
    conn.close();
  } catch (error) {
    return !(error instanceof Deno.errors.NotFound);
  }
  const pid = await Deno.readTextFile(files.pidFile).then((t) => t.trim(), () => "?");
  // Loaded only now: the guard asks this before anything else and must stay small. Not by a
  // literal specifier: Deno reads every literal import() ahead, so the guard's first import of
  // this file made it load core's ~90 modules and sync node_modules (15 times, ~0.1 s) beside
  // its starting agent (docs/benchmarks.md). esbuild folds the two strings into one, so the
  // bundle and the agent build still carry core/mod.ts.
  const { HomeAgentError }: typeof import("../../core/mod.ts") = await import(
    "../../core/" + "mod.ts"
  );
  throw new HomeAgentError(
    "already_running",
    `HomeAgent is already running on home "${files.root}" (pid ${pid})`,
  );
}
