/**
 * The command line's surface: its options (node:util parseArgs) and its usage text. It imports
 * nothing of the daemon, so the guard process (main.ts's light path) parses and prints help
 * without loading it.
 */
import { parseArgs } from "node:util";

/** Every option of every command. */
export const CLI_OPTIONS = {
  home: { type: "string" },
  host: { type: "string" },
  port: { type: "string" },
  reveal: { type: "boolean" },
  corpus: { type: "string" },
  questions: { type: "string" },
  k: { type: "string" },
  "run-out": { type: "string" },
  image: { type: "string", multiple: true },
  from: { type: "string" },
  yes: { type: "boolean", short: "y" },
  user: { type: "boolean" },
  // serve's own: the guard starts the daemon as `serve --agent [--failback]` (docs/operations.md).
  agent: { type: "boolean" },
  failback: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
  // usage's own.
  days: { type: "string" },
  json: { type: "boolean" },
} as const;

/** The command line as parseArgs reads it (strict), the agent's own without it (below). */
export function parseCommandLine(args: string[]) {
  const parse = () => parseArgs({ args, allowPositionals: true, options: CLI_OPTIONS });
  try {
    return (readAgentArgs(args) as ReturnType<typeof parse> | undefined) ?? parse();
  } catch (error) {
    throw oneLineParseError(error);
  }
}

/**
 * parseArgs' own messages span lines ("… is ambiguous.\nDid you forget …") and speak of
 * positional arguments; the command line's errors are one line that says what to type. The
 * `code` stays, so main.ts still exits 2 for them.
 */
function oneLineParseError(error: unknown): unknown {
  if (!(error instanceof TypeError) || !("code" in error)) return error;
  const code = String(error.code);
  const flag = /^(?:Unknown option|Option) '(-[^' ]+)/.exec(error.message)?.[1];
  let message = error.message.split("\n")[0]!.replaceAll("'", '"');
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && flag) {
    message = `Unknown option "${flag}": --help lists every command's options ` +
      `(a text that starts with "-" goes after "--", as in -- "${flag}")`;
  } else if (flag && /argument (?:missing|is ambiguous)/.test(error.message)) {
    message = `Option "${flag}" needs a value, as in ${flag} VALUE ` +
      `(a value that starts with "-" is written ${flag}=VALUE)`;
  }
  return Object.assign(new TypeError(message, { cause: error }), { code });
}

/** What readAgentArgs reads: parseArgs' `values` and `positionals` for that line. */
export interface AgentArgs {
  values: { home: string; agent: true; failback?: true; port?: string; host?: string };
  positionals: ["serve"];
}

/**
 * The agent's command line as the guard writes it (agentArgs: `serve --home H --agent
 * [--failback] [--port P] [--host H]`), read as parseArgs reads it; undefined for anything
 * else, which goes to parseArgs. So the agent's start loads no node:util: with node:sqlite it
 * would be the one `node:` module there, and the first costs ~25 ms (docs/benchmarks.md).
 */
export function readAgentArgs(args: readonly string[]): AgentArgs | undefined {
  const home = args[2];
  if (args[0] !== "serve" || args[1] !== "--home" || !isValue(home) || args[3] !== "--agent") {
    return undefined;
  }
  // A null prototype, as parseArgs makes its values.
  const values: AgentArgs["values"] = Object.assign(Object.create(null), { home, agent: true });
  let i = 4;
  if (args[i] === "--failback") {
    values.failback = true;
    i++;
  }
  for (const flag of ["port", "host"] as const) {
    if (args[i] !== `--${flag}`) continue;
    const value = args[i + 1];
    if (!isValue(value)) return undefined;
    values[flag] = value;
    i += 2;
  }
  return i === args.length ? { values, positionals: ["serve"] } : undefined;
}

/** A flag's value parseArgs takes as it is (not empty, not like a flag). */
function isValue(value: string | undefined): value is string {
  return value !== undefined && value !== "" && !value.startsWith("-");
}

/** Whether `args` run the guard: `serve` without `--agent` (help and version aside). */
export function isGuard(args: string[]): boolean {
  if (readAgentArgs(args)) return false;
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: CLI_OPTIONS,
    strict: false,
  });
  return positionals[0] === "serve" && !values.agent && !values.help && !values.version;
}

/** The usage text, naming the command as the owner runs it (`cli`). */
export function cliUsage(cli: string, modelUsage: string): string {
  return `Usage: ${cli} <command> [options]

Commands:
  serve [--host H] [--port P]   run the daemon (default 127.0.0.1:7800)
  chat [TEXT] [--image FILE]    talk to the running daemon; a REPL without TEXT
                                (--image, repeatable: send a photo with the message)
  stop                          stop the current turn
  status                        JSON status of the running daemon
  mcp                           an MCP server on stdio, served by the running daemon
  config get KEY [--reveal] | set KEY VALUE | unset KEY | list [PREFIX] [--reveal]
  plugin list | install FILE.hmap|npm:PACKAGE [--yes] | uninstall NAME | reload NAME | enable NAME | disable NAME
  memory stats | recall QUERY | export DIR|FILE.jsonl | import DIR|FILE   JSON reports; export DIR
                                writes Markdown beside memory.jsonl, which import restores exactly
  ${modelUsage}
                                the semantic model of memory's vector space (docs/memory.md)
  memory forget NAME            erase NAME from every memory tier; it is never stored again
  backup FILE | restore FILE    the whole home as one .tar.gz, taken while the daemon runs;
                                restore (daemon stopped) keeps the old home beside it
  eval memory --corpus F --questions F [--k 5,10] [--run-out F]
                                retrieval evaluation over a fresh memory (docs/memory.md)
  service install [--user] [--port P] [--host H] | uninstall [--user]
                                a systemd unit running serve for this home (docs/operations.md)
  doctor                        offline health checks of the home; exit 1 when one fails
  changes list | show ID | rollback ID   the agent's file changes, one changeset per turn
  usage [--days N] [--json]     LLM tokens (and money where priced) per source, cause and day

Every command takes --home DIR (default $HOMEAGENT_HOME or ~/.homeagent).`;
}
