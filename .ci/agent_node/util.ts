/**
 * `node:util` for the agent build cache (see path.ts): `parseArgs` from node:util itself,
 * loaded on its first call. The agent's own command line does not call it (main.ts reads the
 * guard's `serve --agent` line itself); every other command does.
 */
import type * as nodeUtil from "node:util";

/** node:util's parseArgs. */
export const parseArgs: typeof nodeUtil.parseArgs = ((config: nodeUtil.ParseArgsConfig) => {
  const util = globalThis.process.getBuiltinModule("node:util") as typeof nodeUtil;
  return util.parseArgs(config);
}) as typeof nodeUtil.parseArgs;
