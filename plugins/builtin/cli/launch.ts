/**
 * The command line that runs `serve` the way this program is installed (the compiled binary,
 * deno running the bundle, or deno running the checkout), for the systemd unit and for the
 * guard, which starts the agent with it. Imports nothing at all, not even `node:` modules (their
 * layer takes ~30 ms to load): the guard runs it before anything else (guard/first_agent.ts).
 */

/** What decides the command: how this process was started and what the shell would find. */
export interface LaunchFacts {
  /** `Deno.execPath()`: the deno binary, or the compiled program itself. */
  execPath: string;
  /** The folder of main.ts (the checkout, with its deno.json). */
  repo: string;
  /** The bundle file (`dist/homeagent.js`) when that is what deno runs. */
  bundle?: string;
  cwd: string;
  /** The PATH the user's shell searches. */
  path: string;
  /** Whether `file` exists and is executable. */
  isExecutable(file: string): boolean;
}

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
export function serviceCommand(facts: Pick<LaunchFacts, "execPath" | "repo" | "bundle">): string[] {
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
        `--config=${inFolder(facts.repo, "deno.json")}`,
        ...DAEMON_PERMISSIONS,
        inFolder(facts.repo, "main.ts"),
        "serve",
      ];
  }
}

/** How this program is installed: a compiled binary, the one-file bundle, or the checkout. */
export type LaunchKind = "compiled" | "bundle" | "checkout";

/** Which of the three `facts` describe. */
export function launchKind(facts: Pick<LaunchFacts, "execPath" | "bundle">): LaunchKind {
  const program = facts.execPath.split(/[\\/]/).pop() ?? "";
  if (!/^deno(\.exe)?$/i.test(program)) return "compiled";
  return facts.bundle !== undefined ? "bundle" : "checkout";
}

/** `name` in the folder `dir` (an absolute, normalized path), as node:path's join writes it. */
function inFolder(dir: string, name: string): string {
  const sep = Deno.build.os === "windows" ? "\\" : "/";
  return /[\\/]$/.test(dir) ? `${dir}${name}` : `${dir}${sep}${name}`;
}
