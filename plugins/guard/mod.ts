/**
 * The guard's entry, beside plugins/mod.ts: what `serve` runs as the guard process. main.ts
 * imports it directly so that the guard never evaluates the daemon's modules (plugins/mod.ts
 * would load every built-in, and core/mod.ts zod and the kernel): everything reachable from
 * here imports only types from core/.
 */
export { runGuard, type RunGuardOptions } from "./run.ts";
export { type LogSink, openLogSink } from "./log_file.ts";
export { refuseRunning } from "./running.ts";
export { sameAgent } from "./first_agent.ts";
export { agentCommand } from "./agent_cache.ts";
export { launchKind, serviceCommand } from "../builtin/cli/launch.ts";
export { commandName, processLaunchFacts, PROGRAM } from "../builtin/cli/command_name.ts";
export { CLI_OPTIONS, cliUsage, isGuard, parseCommandLine } from "../builtin/cli/usage.ts";
