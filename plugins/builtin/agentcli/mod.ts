/**
 * The `agentcli` built-in: real pseudo-terminals the model drives (docs/plugins.md). New output
 * reaches the model as an L3 notice, "[terminal X has new output] <preview>"; the web page reads
 * the live output through the plugin's routes.
 *
 * It uses only what an external plugin's SDK offers: tools, its own settings, L3 injection, a
 * subscription to `output` events and JSON routes; the PTY library is its own.
 */
import { z } from "zod";
import {
  type Clock,
  type ConfigDefinition,
  errorMessage,
  type Plugin,
  type PluginSDK,
  sleep,
  type ToolContext,
  type ToolDef,
  type ToolResult,
} from "../../../core/mod.ts";
import { keyBytes } from "./keys.ts";
import { loadNodePty, type SpawnPty } from "./pty.ts";
import { type CreateRequest, TerminalSet } from "./terminals.ts";
import type { Terminal } from "./terminal.ts";

/** Longest text one terminal_read returns; older output is marked as cut. */
const READ_CHARS = 8000;
/** Longest terminal_read wait. */
const MAX_WAIT_S = 30;
/** How long the owner has to approve a terminal under the `ask` policy. */
const ASK_TIMEOUT_MS = 120_000;
/** How long output must pause before a waiting read returns (and how often it looks). */
const QUIET_MS = 200;

/** Options of createAgentcliPlugin. */
export interface AgentcliOptions {
  clock: Clock;
  /** The home's folder for the agent's work (`<home>/agentfs`), the default working folder. */
  workdir: string;
  /** The daemon's environment; secrets and HOMEAGENT_* are kept out of terminals. */
  env: Record<string, string | undefined>;
  /** The PTY implementation (default node-pty). */
  spawn?: () => Promise<SpawnPty>;
}

/** Define `plugin.agentcli.*`. Call once per registry, before the daemon or `config` reads it. */
export function registerAgentcliSettings(
  config: { define<T>(definition: ConfigDefinition<T>): void },
): void {
  const key = (name: string) => `plugin.agentcli.${name}`;
  config.define({
    key: key("max_terminals"),
    schema: () => z.int().min(1).max(64),
    default: 8,
    description: "Terminals open at once; terminal_create is refused beyond it",
  });
  config.define({
    key: key("idle_timeout_s"),
    schema: () => z.int().min(10).max(86_400),
    default: 300,
    description: "Default idle time (no output, no use) after which a terminal is closed",
  });
  config.define({
    key: key("shell"),
    schema: () => z.string().min(1).max(200),
    default: "bash",
    description: "Command a terminal runs when terminal_create names none",
  });
  config.define({
    key: key("workdir"),
    schema: () => z.string().max(4096),
    default: "",
    description: "Working folder of new terminals; empty: <home>/agentfs",
  });
  config.define({
    key: key("notify"),
    schema: () => z.boolean(),
    default: true,
    description: 'Tell the model "[terminal X has new output]" (L3) when a terminal prints',
  });
  config.define({
    key: key("policy"),
    schema: () => z.enum(["allow", "ask", "deny"]),
    default: "ask",
    description: "ask: the owner approves each new terminal (web or CLI); allow: no question; " +
      "deny: terminal_create is refused",
  });
}

/** Create the agentcli built-in. */
export function createAgentcliPlugin(options: AgentcliOptions): Plugin {
  let terminals: TerminalSet | undefined;
  let unsubscribe: (() => void) | undefined;
  return {
    name: "agentcli",
    start(sdk) {
      const set = terminals = new TerminalSet({
        clock: options.clock,
        logger: sdk.logger,
        spawn: options.spawn ?? loadNodePty,
        maxTerminals: () => sdk.settings.get<number>("max_terminals"),
        notify: () => sdk.settings.get<boolean>("notify"),
        sendNotice: (terminal, text) => {
          const result = sdk.injectInterrupt(text, { priority: 3, meta: { terminal } });
          return result.accepted ? result.inputId : undefined;
        },
      });
      unsubscribe = sdk.subscribe("output", (event) => set.turnEnded(event.turnId));
      for (const tool of terminalTools(sdk, set, options)) sdk.registerTool(tool);
      registerRoutes(sdk, set);
    },
    async stop() {
      unsubscribe?.();
      await terminals?.closeAll();
      terminals = undefined;
    },
  };
}

type Args = Record<string, unknown>;

function terminalTools(sdk: PluginSDK, set: TerminalSet, options: AgentcliOptions): ToolDef[] {
  const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
    type: "object",
    properties,
    required,
    additionalProperties: false,
  });
  const id = { type: "string", description: "Terminal id (t1, …)" };
  const int = (description: string, minimum: number, maximum: number) => ({
    type: "integer",
    description,
    minimum,
    maximum,
  });
  const guard =
    (fn: (args: Args, context: ToolContext) => Promise<string> | string) =>
    async (args: Args, context: ToolContext): Promise<string | ToolResult> => {
      try {
        return await fn(args, context);
      } catch (error) {
        return { content: errorMessage(error), isError: true };
      }
    };
  const on = <T>(args: Args, context: ToolContext, fn: (t: Terminal) => T | Promise<T>) =>
    set.using(String(args.id), context.turnId, fn);
  const common = { noMemory: true, timeoutMs: ASK_TIMEOUT_MS + 10_000 };
  return [
    {
      name: "terminal_create",
      description: "Open a terminal running a command (default: a shell)",
      parameters: obj({
        command: { type: "string", description: "e.g. bash, python3 -i" },
        rows: int("Rows", 5, 200),
        cols: int("Columns", 20, 500),
        timeout: int("Close after this many idle seconds (default 300)", 10, 86_400),
      }),
      ...common,
      handler: guard(async (args, context) => {
        const request = createRequest(args, sdk, options);
        await mayOpen(sdk, request, context);
        await Deno.mkdir(request.cwd, { recursive: true });
        const t = await set.create(request, context.turnId);
        return `Terminal ${t.id} started: ${t.command} (pid ${t.pid}, ${t.rows}x${t.cols}, ` +
          `in ${request.cwd}); read it with terminal_read`;
      }),
    },
    {
      name: "terminal_write",
      description: "Type text and/or press a key (enter, ctrl-c, ctrl-d, up, tab, esc, …)",
      parameters: obj({
        id,
        input: { type: "string", description: "Text to type; \\n presses enter" },
        key: { type: "string", description: "Key pressed after the text" },
      }, ["id"]),
      ...common,
      handler: guard((args, context) =>
        on(args, context, (t) => {
          if (args.input === undefined && args.key === undefined) {
            throw new TypeError("Give input, key, or both");
          }
          const typed = typeof args.input === "string" ? args.input.replace(/\r?\n/g, "\r") : "";
          const key = typeof args.key === "string" ? keyBytes(args.key) : "";
          t.write(typed + key);
          return `Sent to ${t.id}; read the output with terminal_read`;
        })
      ),
    },
    {
      name: "terminal_read",
      description: "Read a terminal's new output (ANSI stripped)",
      parameters: obj({
        id,
        clear: {
          type: "boolean",
          description: "Mark read, so the next read is only newer output (default true)",
        },
        wait: int("Wait up to this many seconds for output", 0, MAX_WAIT_S),
        until: { type: "string", description: "Stop waiting once this text appears" },
      }, ["id"]),
      ...common,
      handler: guard((args, context) =>
        on(args, context, async (t) => {
          const until = typeof args.until === "string" && args.until !== ""
            ? args.until
            : undefined;
          const wait = typeof args.wait === "number" ? args.wait : until ? 10 : 0;
          if (wait > 0) {
            await waitForOutput(t, { ms: wait * 1000, until }, options.clock, context.signal);
          }
          return formatRead(t, args.clear !== false);
        })
      ),
    },
    {
      name: "terminal_resize",
      description: "Change a terminal's size",
      parameters: obj({ id, rows: int("Rows", 5, 200), cols: int("Columns", 20, 500) }, [
        "id",
        "rows",
        "cols",
      ]),
      ...common,
      handler: guard((args, context) =>
        on(args, context, (t) => {
          t.resize(Number(args.rows), Number(args.cols));
          return `Terminal ${t.id} is now ${t.rows}x${t.cols}`;
        })
      ),
    },
    {
      name: "terminal_close",
      description: "Close a terminal and end its processes",
      parameters: obj({ id }, ["id"]),
      ...common,
      handler: guard(async (args) => {
        const info = await set.close(String(args.id));
        return `Closed ${info.id}${info.exit ? ` (exit code ${info.exit.code})` : ""}`;
      }),
    },
    {
      name: "terminal_list",
      description: "List the open terminals",
      parameters: obj({}),
      ...common,
      parallelSafe: true,
      handler: guard(() => {
        const list = set.list();
        if (list.length === 0) return "No terminals";
        return list.map((t) =>
          `${t.id}: ${t.command} ${t.rows}x${t.cols}, ` +
          (t.exit ? `exited (code ${t.exit.code})` : `running (pid ${t.pid})`) +
          `, ${t.unread} unread bytes`
        ).join("\n");
      }),
    },
  ];
}

const REFUSED: Record<string, string> = {
  denied: "The owner declined to open this terminal",
  timeout: "The owner did not answer in time; no terminal was opened",
  cancelled: "The turn was stopped; no terminal was opened",
};

/** Throws unless the policy lets this terminal open (asking the owner under `ask`). */
async function mayOpen(sdk: PluginSDK, request: CreateRequest, context: ToolContext) {
  const policy = sdk.settings.get<string>("policy");
  if (policy === "allow") return;
  if (policy === "deny") {
    throw new Error('Terminals are turned off (plugin.agentcli.policy is "deny")');
  }
  const answer = await sdk.askOwner({
    title: "Open a terminal for the agent?",
    detail: `$ ${request.command}\nin ${request.cwd}`,
    timeoutMs: ASK_TIMEOUT_MS,
    turnId: context.turnId,
  }, { signal: context.signal });
  if (answer !== "approved") throw new Error(REFUSED[answer]);
}

/**
 * The web page's live view: `GET terminals` lists them, `GET terminals/:id?from=N` answers
 * the raw output from absolute offset N on (the page strips the escape codes it cannot draw).
 */
function registerRoutes(sdk: PluginSDK, set: TerminalSet): void {
  sdk.registerRoute({
    method: "GET",
    path: "terminals",
    handler: () => ({ terminals: set.list() }),
  });
  sdk.registerRoute({
    method: "GET",
    path: "terminals/:id",
    handler: ({ params, query }) => {
      const terminal = set.get(params.id!);
      const from = Number(query.from ?? 0);
      const slice = terminal.raw(Number.isSafeInteger(from) && from >= 0 ? from : 0);
      return { ...terminal.info(), ...slice };
    },
  });
}

function createRequest(args: Args, sdk: PluginSDK, options: AgentcliOptions): CreateRequest {
  const command = typeof args.command === "string" && args.command.trim() !== ""
    ? args.command.trim()
    : sdk.settings.get<string>("shell");
  // A plain word list runs as is (the pid is the program's); anything else through sh -c.
  const simple = /^[\w@%+=:,./-]+(\s+[\w@%+=:,./-]+)*$/.test(command);
  const configured = sdk.settings.get<string>("workdir");
  return {
    command,
    file: simple ? command.split(/\s+/)[0]! : "/bin/sh",
    args: simple ? command.split(/\s+/).slice(1) : ["-c", command],
    rows: typeof args.rows === "number" ? args.rows : 24,
    cols: typeof args.cols === "number" ? args.cols : 100,
    cwd: configured !== "" ? configured : options.workdir,
    env: terminalEnv(options.env),
    idleTimeoutMs:
      (typeof args.timeout === "number"
        ? args.timeout
        : sdk.settings.get<number>("idle_timeout_s")) * 1000,
  };
}

/** The daemon's environment without its own variables and anything that looks like a secret. */
export function terminalEnv(env: Record<string, string | undefined>): Record<string, string> {
  const secret = /^HOMEAGENT_|KEY|TOKEN|SECRET|PASSW|CREDENTIAL/i;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !secret.test(name)) out[name] = value;
  }
  return { ...out, TERM: "xterm-256color", PATH: out.PATH ?? "/usr/local/bin:/usr/bin:/bin" };
}

function formatRead(t: Terminal, clear: boolean): string {
  const slice = t.read(clear);
  let text = slice.clean;
  const cut = text.length > READ_CHARS ? text.length - READ_CHARS : 0;
  if (cut > 0) text = text.slice(cut);
  const head = slice.dropped > 0 || cut > 0
    ? `[… earlier output cut${
      slice.dropped > 0 ? `, ${slice.dropped} bytes no longer kept` : ""
    }]\n`
    : "";
  const tail = t.exit ? `\n[exited with code ${t.exit.code}]` : "";
  const body = text === "" ? "[no new output]" : text;
  return `${head}${body}${tail}`;
}

/**
 * Until `until` appears in the unread output, or (without it) output has arrived and paused
 * for QUIET_MS; at most `ms`, and never past the call's stop or the program's exit.
 */
async function waitForOutput(
  t: Terminal,
  wanted: { ms: number; until?: string },
  clock: Clock,
  signal: AbortSignal,
): Promise<void> {
  const deadline = clock.monotonic() + wanted.ms;
  let seen = t.output.end;
  while (!t.exit && clock.monotonic() < deadline) {
    await sleep(clock, Math.min(QUIET_MS, deadline - clock.monotonic()), signal);
    if (wanted.until !== undefined) {
      if (t.peekUnread().includes(wanted.until)) return;
    } else if (t.unread > 0 && t.output.end === seen) return;
    seen = t.output.end;
  }
}
