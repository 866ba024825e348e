/**
 * The command line that runs `serve` the way this program is installed (the compiled binary,
 * deno running the bundle, or deno running the checkout), for the systemd unit and for the
 * guard, which starts the agent with it. Imports nothing of the daemon: the guard loads it.
 */
import { join } from "node:path";
import { type LaunchFacts, launchKind } from "./command_name.ts";

/**
 * The Deno permissions of the daemon when deno runs it (the checkout or the bundle); the same
 * list as `deno task start`, which a test keeps in step.
 */
export const DAEMON_PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
  "--allow-sys",
  // agentcli's pseudo-terminals: node-pty's Node-API binding loads through FFI.
  "--allow-ffi",
];

/**
 * The deno flags a bundle runs with in place of deno.json's: its unstable features (raw imports
 * are inlined by the bundler, so only the request-signal behaviour the web routes expect).
 */
export const BUNDLE_FLAGS = ["--no-config", "--unstable-no-legacy-abort"];

/**
 * The `serve` command line for how this program is installed: the compiled binary itself; deno
 * running the bundle (no config: a deno.json near the bundle must not change it); or deno
 * running the checkout's main.ts with its deno.json, as `deno task start` does.
 */
export function serviceCommand(facts: LaunchFacts): string[] {
  switch (launchKind(facts)) {
    case "compiled":
      return [facts.execPath, "serve"];
    case "bundle":
      return [
        facts.execPath,
        "run",
        ...BUNDLE_FLAGS,
        ...DAEMON_PERMISSIONS,
        facts.bundle!,
        "serve",
      ];
    case "checkout":
      return [
        facts.execPath,
        "run",
        `--config=${join(facts.repo, "deno.json")}`,
        ...DAEMON_PERMISSIONS,
        join(facts.repo, "main.ts"),
        "serve",
      ];
  }
}
