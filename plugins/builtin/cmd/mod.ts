/**
 * The `cmd` built-in (docs/plugins.md "cmd"): `cmd_run` runs one shell command in a folder of
 * the sandbox, after the owner approved it when `plugin.cmd.policy` is `ask` (the default).
 * Changes under the working folder are recorded as the turn's changeset; the last 100 runs are
 * kept for the web page (`GET /api/v1/plugins/cmd/history`).
 */
import { z } from "zod";
import {
  type Clock,
  errorMessage,
  HomeAgentError,
  type OwnerAnswer,
  type Plugin,
  type PluginSDK,
  type PluginSettingDefinition,
  type ToolContext,
  type ToolResult,
} from "../../../core/mod.ts";
import type { ChangeRecorder } from "../changes/types.ts";
import type { Sandbox } from "../files/sandbox.ts";
import { type RunResult, runShell } from "./run.ts";
import { changesSince, snapshot } from "./snapshot.ts";

/** The cmd plugin's settings (`plugin.cmd.*`). */
export const CMD_SETTINGS: PluginSettingDefinition[] = [
  {
    key: "policy",
    schema: () => z.enum(["allow", "ask", "deny"]),
    default: "ask",
    description:
      "allow: run at once; ask: the owner approves each command (web or CLI); deny: never",
  },
  {
    key: "ask_timeout_s",
    schema: () => z.number().int().min(5).max(3600),
    default: 120,
    description: "How long a command waits for the owner's answer before it is refused",
  },
  {
    key: "max_output_bytes",
    schema: () => z.number().int().min(1000).max(1_000_000),
    default: 32_000,
    description: "Output kept per stream (stdout, stderr); the cut is marked",
  },
  {
    key: "track_changes",
    schema: () => z.boolean(),
    default: true,
    description: "Record what a command changes under its working folder as a changeset",
  },
];

/** Longest timeout the model may ask for, in seconds. */
export const MAX_TIMEOUT_S = 600;
const HISTORY = 100;
const PREVIEW = 4096;
// The environment a command sees: not the daemon's, which may hold API keys.
const PASSED_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TERM", "USER", "LOGNAME", "SHELL", "TZ"];

/** One run as the web page's history shows it. */
export interface CmdHistoryEntry {
  id: number;
  command: string;
  workdir: string;
  startedAt: number;
  durationMs: number;
  /** exited, timeout, stopped, failed, or why it did not run (denied, refused, timeout_asking). */
  status: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** Options of the cmd plugin. */
export interface CmdPluginOptions {
  sandbox: Sandbox;
  clock: Clock;
  recorder?: ChangeRecorder;
  env?: Record<string, string | undefined>;
}

const Args = z.lazy(() =>
  z.object({
    command: z.string().min(1).max(100_000),
    timeout: z.number().positive().max(MAX_TIMEOUT_S).optional(),
    workdir: z.string().max(4096).optional(),
  })
);

/** Create the cmd plugin. */
export function createCmdPlugin(options: CmdPluginOptions): Plugin {
  const history: CmdHistoryEntry[] = [];
  let next = 1;
  const remember = (entry: Omit<CmdHistoryEntry, "id">) => {
    history.push({ ...entry, id: next++ });
    if (history.length > HISTORY) history.shift();
  };
  return {
    name: "cmd",
    start(sdk) {
      for (const definition of CMD_SETTINGS) sdk.settings.define(definition);
      sdk.registerTool({
        name: "cmd_run",
        description: "Run a shell command in the work folder; timeout in seconds (default 30)",
        parameters: {
          type: "object",
          properties: {
            command: { type: "string" },
            timeout: { type: "number" },
            workdir: { type: "string" },
          },
          required: ["command"],
          additionalProperties: false,
        },
        // The plugin keeps its own deadlines (the owner's answer, then the command's timeout).
        timeoutMs: (3600 + MAX_TIMEOUT_S + 30) * 1000,
        handler: (args, context) => cmdRun(sdk, options, remember, args, context),
      });
      sdk.registerRoute({
        method: "GET",
        path: "history",
        handler: () => ({ history: [...history].reverse() }),
      });
    },
    stop() {},
  };
}

async function cmdRun(
  sdk: PluginSDK,
  options: CmdPluginOptions,
  remember: (entry: Omit<CmdHistoryEntry, "id">) => void,
  raw: Record<string, unknown>,
  context: ToolContext,
): Promise<string | ToolResult> {
  const startedAt = options.clock.now();
  let args: z.infer<typeof Args>;
  let workdir: string;
  try {
    args = Args.parse(raw);
    workdir = await workFolder(options.sandbox, args.workdir);
  } catch (error) {
    return { content: errorMessage(error), isError: true };
  }
  const note = (status: string, result?: RunResult) =>
    remember({
      command: args.command,
      workdir,
      startedAt,
      durationMs: result?.durationMs ?? 0,
      status,
      exitCode: result?.exitCode ?? null,
      stdout: result?.stdout.slice(0, PREVIEW) ?? "",
      stderr: result?.stderr.slice(0, PREVIEW) ?? "",
    });
  const refusal = await permission(sdk, args.command, workdir, context);
  if (refusal) {
    note(refusal.status);
    return { content: refusal.message, isError: true };
  }
  const track = sdk.settings.get<boolean>("track_changes") && options.recorder;
  const before = track ? await snapshot(workdir, true) : undefined;
  const result = await runShell(args.command, {
    clock: options.clock,
    cwd: workdir,
    timeoutMs: (args.timeout ?? 30) * 1000,
    maxOutputBytes: sdk.settings.get<number>("max_output_bytes"),
    signal: context.signal,
    env: passedEnv(options.env ?? {}),
  });
  note(result.status, result);
  if (before && track) {
    const { changes, untracked } = await changesSince(before, workdir);
    await options.recorder!.record(context.turnId, "cmd_run", changes, untracked).catch((e) =>
      sdk.logger.error("Cannot record the command's changes", { error: errorMessage(e) })
    );
  }
  return { content: formatResult(result, args.timeout ?? 30), isError: result.status !== "exited" };
}

/** Why the command may not run now (policy, the owner's answer), or undefined. */
async function permission(
  sdk: PluginSDK,
  command: string,
  workdir: string,
  context: ToolContext,
): Promise<{ status: string; message: string } | undefined> {
  const policy = sdk.settings.get<string>("policy");
  if (policy === "allow") return undefined;
  if (policy === "deny") {
    return {
      status: "refused",
      message: 'Running commands is turned off (plugin.cmd.policy is "deny")',
    };
  }
  const answer: OwnerAnswer = await sdk.askOwner({
    title: "Run a command?",
    detail: `$ ${command}\nin ${workdir}`,
    timeoutMs: sdk.settings.get<number>("ask_timeout_s") * 1000,
    turnId: context.turnId,
  }, { signal: context.signal });
  if (answer === "approved") return undefined;
  const messages: Record<string, string> = {
    denied: "The owner declined to run this command",
    timeout: "The owner did not answer in time; the command was not run",
    cancelled: "The turn was stopped; the command was not run",
  };
  return { status: answer === "timeout" ? "timeout_asking" : answer, message: messages[answer]! };
}

/** The real working folder: `workdir` inside the sandbox, default its first root. */
async function workFolder(sandbox: Sandbox, workdir?: string): Promise<string> {
  const target = await sandbox.resolve(workdir ?? ".");
  if (!target.exists || !(await Deno.stat(target.real)).isDirectory) {
    throw new HomeAgentError("cmd_workdir", `Working folder "${workdir}" does not exist`);
  }
  return target.real;
}

function passedEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of PASSED_ENV) if (env[key] !== undefined) out[key] = env[key]!;
  out.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  return out;
}

function formatResult(result: RunResult, timeoutS: number): string {
  const head = result.status === "timeout"
    ? `timed out after ${timeoutS} s; the command and its children were killed`
    : result.status === "stopped"
    ? "stopped; the command and its children were killed"
    : result.status === "failed"
    ? "failed to start"
    : result.signal
    ? `killed by ${result.signal}`
    : `exit code ${result.exitCode}`;
  const parts = [`status: ${head}`];
  if (result.stdout !== "") parts.push(`stdout:\n${result.stdout}`);
  if (result.stderr !== "") parts.push(`stderr:\n${result.stderr}`);
  if (result.stdout === "" && result.stderr === "") parts.push("(no output)");
  return parts.join("\n");
}
