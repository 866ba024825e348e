/**
 * The client commands that talk to a running daemon over its socket: `chat`, `stop`, `status`
 * and the online half of `plugin`. Output goes through the given printer, so main.ts stays the
 * only place that writes to the terminal.
 */
import { resolve } from "node:path";
import type { PermissionReview } from "../../host/review.ts";
import { chatOnce, CliClient, type DaemonTarget } from "./client.ts";
import { HomeAgentError } from "../../../core/mod.ts";
import type { ClientFrame, PluginAction } from "./protocol.ts";

/** Where a command's lines go. */
export interface CommandOutput {
  print(line: string): void;
}

async function withClient<T>(
  target: DaemonTarget,
  fn: (client: CliClient) => Promise<T>,
): Promise<T> {
  const client = await CliClient.connect(target);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

/**
 * `chat [TEXT] [--image FILE]…`: one message streamed back, or the REPL without text or
 * images. Image paths are made absolute here (the daemon reads them). Returns the exit code.
 */
export function chatCommand(
  target: DaemonTarget,
  text: string,
  options: { images?: readonly string[] } = {},
): Promise<number> {
  const images = (options.images ?? []).map((path) => resolve(path));
  return withClient(target, async (client) => {
    // On first use: the REPL's node:readline and node:process would load Deno's `node:` layer
    // into the daemon's start, which imports this module too.
    const { processIo, runRepl } = await import("./repl.ts");
    if (text.trim() === "" && images.length === 0) return await runRepl(client, processIo());
    // A question during a one-shot chat is answered at the terminal, if there is one.
    const ask = Deno.stdin.isTerminal()
      ? () => /^y(es)?$/i.test((prompt("Approve? [y/N]") ?? "").trim())
      : undefined;
    const reply = await chatOnce(client, text, processIo(), ask, images);
    return reply.status === "error" || reply.status === "refused" ? 1 : 0;
  });
}

/** `stop`: stop the current turn and what waits; prints what happened. */
export function stopCommand(target: DaemonTarget, out: CommandOutput): Promise<number> {
  return withClient(target, async (client) => {
    await client.send({ type: "stop" });
    const frame = await client.expect("stopped");
    const waiting = frame.queued + frame.suspended;
    const rest = waiting === 0 ? "" : ` ${waiting} waiting input(s) answered "stopped".`;
    out.print((frame.wasRunning ? "Stopped the current turn." : "Nothing was running.") + rest);
    return 0;
  });
}

/**
 * `mcp`: an MCP server on stdio, served by the running daemon (its memory and agent, shared
 * with every other channel): after one mcp frame, stdin and stdout are relayed to the socket
 * byte for byte. Without a daemon it fails with the no_daemon advice; it never opens the
 * home itself (one writer per home).
 */
export function mcpCommand(
  target: DaemonTarget,
  io: { input: ReadableStream<Uint8Array>; output: WritableStream<Uint8Array> },
): Promise<number> {
  return withClient(target, async (client) => {
    await client.send({ type: "mcp" });
    await client.relay(io.input, io.output);
    return 0;
  });
}

/** `status`: the daemon's status report as indented JSON. */
export function statusCommand(target: DaemonTarget, out: CommandOutput): Promise<number> {
  return withClient(target, async (client) => {
    await client.send({ type: "status" });
    const frame = await client.expect("status");
    out.print(JSON.stringify(frame.status, null, 2));
    return 0;
  });
}

/**
 * `plugin …` through a running daemon (changes apply at once). Resolves undefined when no
 * daemon answers, so the caller can fall back to the home's files.
 */
export async function pluginCommandOnline(
  target: DaemonTarget,
  request: {
    action: PluginAction;
    name?: string;
    path?: string;
    source?: string;
    integrity?: string;
  },
  out: CommandOutput,
): Promise<number | undefined> {
  const result = await askOnline(target, { type: "plugin", ...request }, "plugin");
  if (result === undefined) return undefined;
  out.print(JSON.stringify(result.value, null, 2));
  return 0;
}

/**
 * `memory import FILE` through a running daemon, into its own stores, so what it adds is
 * searchable at once. Resolves the counts, or undefined when no daemon answers (the caller
 * then imports into the home's files).
 */
export async function memoryImportOnline(
  target: DaemonTarget,
  path: string,
): Promise<{ value: unknown } | undefined> {
  return await askOnline(target, { type: "memory", action: "import", path }, "memory");
}

/**
 * `memory forget NAME` through a running daemon, so the name leaves the stores it has open (and
 * its context window) at once. Resolves the report, or undefined when no daemon answers.
 */
export async function memoryForgetOnline(
  target: DaemonTarget,
  name: string,
): Promise<{ value: unknown } | undefined> {
  return await askOnline(target, { type: "memory", action: "forget", name }, "memory");
}

/** Send one request frame and wait for its answer; undefined when no daemon runs. */
async function askOnline(
  target: DaemonTarget,
  frame: ClientFrame,
  answer: "plugin" | "memory",
): Promise<{ value: unknown } | undefined> {
  let client: CliClient;
  try {
    client = await CliClient.connect(target);
  } catch (error) {
    if (error instanceof HomeAgentError && error.code === "no_daemon") return undefined;
    throw error;
  }
  try {
    await client.send(frame);
    return { value: (await client.expect(answer)).result };
  } finally {
    client.close();
  }
}

/** How `plugin install` gets the owner's confirmation. */
export interface ConfirmIo {
  /** `--yes`: confirmed in advance, after reading the list. */
  yes: boolean;
  /** Whether stdin is a terminal a person can answer on. */
  isTerminal: boolean;
  /** Ask one question; null at end of input. */
  ask(question: string): string | null | Promise<string | null>;
  /** Where the review goes (stderr, so stdout stays JSON). */
  print(line: string): void;
}

/** Installing without a confirmation: stdin is not a terminal and --yes was not given. */
export class ConfirmationRequired extends Error {}

/**
 * Show what a package asks for (every line of its review, warnings included), then ask on a
 * terminal, or take `--yes`. Resolves whether to install; throws ConfirmationRequired when
 * nobody can be asked.
 */
export async function confirmInstall(
  review: Pick<PermissionReview, "name" | "lines">,
  io: ConfirmIo,
): Promise<boolean> {
  for (const line of review.lines) io.print(line);
  if (io.yes) return true;
  if (!io.isTerminal) {
    throw new ConfirmationRequired(
      `Not installing "${review.name}" without confirmation: stdin is not a terminal; ` +
        `read what it asks for above and pass --yes to install it`,
    );
  }
  const answer = await io.ask(`Install "${review.name}" with these permissions? [y/N]`);
  return /^\s*y(es)?\s*$/i.test(answer ?? "");
}
