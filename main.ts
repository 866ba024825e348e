/**
 * The command line: parse, dispatch. Each command lives beside its module; `serve` is the only
 * composition root, a sequence of builders held in one AsyncDisposableStack, so a failure at any
 * step closes what was opened, and a stop closes everything in the reverse order of building.
 */
// deno-lint-ignore-file no-console
import type { Clock, Logger } from "./core/mod.ts";
import type { HomePaths } from "./memory/mod.ts";
import type { OpenedProviders } from "./adapters/mod.ts";
// Imports nothing that runs: a plain `serve` (the guard) starts its agent first, in parallel.
import { dropAgent, startFirstAgent } from "./plugins/guard/first_agent.ts";

const firstAgent = startFirstAgent(Deno.args, Deno.env.toObject());

// Loaded after it, by computed specifiers (a static import is loaded before any line runs). The
// guard runs only these, which import nothing of the daemon but types: ~50 MB, not the daemon's
// ~90. They are the only modules main.ts takes from inside a folder rather than from its mod.ts.
const [{ join }, logging, clocks, homes, guardSide] = await Promise.all([
  entryModule<typeof import("node:path")>("node:path"),
  entryModule<typeof import("./adapters/json_logger.ts")>("./adapters/json_logger.ts"),
  entryModule<typeof import("./adapters/system_clock.ts")>("./adapters/system_clock.ts"),
  entryModule<typeof import("./memory/home.ts")>("./memory/home.ts"),
  entryModule<typeof import("./plugins/guard/mod.ts")>("./plugins/guard/mod.ts"),
]);
const { default: denoJson } = await import("./deno.json", { with: { type: "json" } });
const { createJsonLogger, parseLogLevel, writeStderr } = logging;
const { createDaemonClock, systemClock } = clocks;
const { checkHomeFolder, ensureHome, homePaths, resolveHome } = homes;
const { cliUsage, commandName, launchKind, openLogSink, parseCommandLine, processLaunchFacts } =
  guardSide;
const { agentCommand, isGuard, PROGRAM, refuseRunning, runGuard, sameAgent } = guardSide;

/** A module main.ts loads after startFirstAgent (.ci/bundle.ts makes it a literal import()). */
async function entryModule<T>(specifier: string): Promise<T> {
  return await import(new URL(specifier, import.meta.url).href) as T;
}

/**
 * A folder's mod.ts, for every process but the guard (which gets an empty stand-in). The
 * specifier is computed on purpose: Deno loads (without running) every literal import() before
 * the program starts, which would cost the guard ~0.3 s and ~10 MB. .ci/bundle.ts turns each
 * call back into a literal import(), so that esbuild carries the modules.
 */
async function daemonModule<T>(folder: string): Promise<T> {
  if (isGuard(Deno.args)) return {} as T;
  return await import(new URL(`./${folder}/mod.ts`, import.meta.url).href) as T;
}

const { configCommand, createKernel, KernelNotices, NameError, registerCoreDefaults, UsageError } =
  await daemonModule<typeof import("./core/mod.ts")>("core");
const { createTokenizers, luaGlueFile, openProviders, registerLuaAdapterDefaults, trimWhenIdle } =
  await daemonModule<
    typeof import("./adapters/mod.ts")
  >("adapters");
const {
  checkStores,
  memoryPluginServices,
  MODEL_USAGE,
  openHomeConfig,
  modelSetup,
  openMemory,
  personaFile,
  readPersona,
  registerMemoryDefaults,
  runBackupCommand,
  runEvalCommand,
  runMemoryCommand,
  runUsageCommand,
  SqliteUsageStore,
} = await daemonModule<typeof import("./memory/mod.ts")>("memory");
const {
  chatCommand,
  claimDaemon,
  ConfirmationRequired,
  daemonTarget,
  failbackNotice,
  linkToGuard,
  mcpCommand,
  memoryForgetOnline,
  memoryImportOnline,
  registerPluginSettings,
  runChangesCommand,
  runDoctor,
  runPluginCommand,
  runServiceCommand,
  startPlugins,
  statusCommand,
  stopCommand,
  stopSignals,
} = await daemonModule<typeof import("./plugins/mod.ts")>("plugins");
const { openWebHub, serveWeb, webAddress } = await daemonModule<typeof import("./web/mod.ts")>(
  "web",
);

const usageText = () => cliUsage(commandName(processLaunchFacts()), MODEL_USAGE); // as the owner runs it

const env = Deno.env.toObject();
/** How the owner runs this command line, for every hint that names a command (set by main). */
let cli = PROGRAM;
/** Command output: stdout, one line at a time; reviews and progress go to stderr. */
const stdout = { print: (line: string) => console.log(line) };
const stderr = { print: (line: string) => console.error(line) };

async function main(args: string[]): Promise<number> {
  // `deno task` runs main.ts in the checkout; paths the user typed are relative to their folder.
  if (env.INIT_CWD && env.npm_config_user_agent?.startsWith("deno/")) Deno.chdir(env.INIT_CWD);
  const { values, positionals } = parseCommandLine(args);
  if (values.version) {
    console.log(denoJson.version);
    return 0;
  }
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === "help") {
    console.log(usageText());
    return command === undefined && !values.help ? 2 : 0;
  }
  const home = await checkHomeFolder(resolveHome(values.home, env));
  if (command === "serve" && !values.agent) return await guard(home, values);
  cli = commandName(processLaunchFacts());
  const daemon = daemonTarget(homePaths(home), { command: cli, env });
  const io = { home, env, command: cli, out: stdout, err: stderr, daemon, openHome };
  const homeNamed = values.home !== undefined || env.HOMEAGENT_HOME !== undefined;
  switch (command) {
    case "serve":
      return await serve(home, values);
    case "chat":
      return await chatCommand(daemon, rest.join(" "), { images: values.image });
    case "stop":
      return await stopCommand(daemon, stdout);
    case "status":
      return await statusCommand(daemon, stdout);
    case "mcp":
      return await mcpCommand(daemon, { input: Deno.stdin.readable, output: Deno.stdout.writable });
    case "config": {
      using config = await openHome(home);
      const reveal = values.reveal ?? false;
      return configCommand(config.registry, rest, { reveal, print: stdout.print, command: cli });
    }
    case "plugin":
      return await runPluginCommand(rest, {
        ...io,
        yes: values.yes ?? false,
        openHome: () => openHome(home),
      });
    case "backup":
    case "restore":
      return await runBackupCommand(command, rest, io);
    case "memory": {
      // `memory backup|restore FILE` are the same as `backup|restore FILE`.
      if (rest[0] === "backup" || rest[0] === "restore") {
        return await runBackupCommand(rest[0], rest.slice(1), io);
      }
      const importOnline = (path: string) => memoryImportOnline(daemon, path);
      const from = values.from;
      const forgetOnline = (name: string) => memoryForgetOnline(daemon, name);
      return await runMemoryCommand(rest, {
        ...io,
        openHome: () => openHome(home),
        importOnline,
        from,
        forgetOnline,
      });
    }
    case "eval":
      return await runEvalCommand(rest, values, { ...io, openHome: () => openHome(home) });
    case "service":
      return await runServiceCommand(rest, { ...io, homeNamed, flags: values });
    case "doctor":
      return await runDoctor({ ...io, ...doctorHome(home) });
    case "changes":
      return await runChangesCommand(rest, { ...io, openHome: () => openHome(home) });
    case "usage":
      return await runUsageCommand(rest, values, { ...io, openHome: () => openHome(home) });
    default:
      throw new UsageError(`Unknown command "${command}"\n\n${usageText()}`);
  }
}

/**
 * `serve`: the guard, a small process that runs the daemon as its agent process (this program's
 * own `serve --agent`), restarts it when it dies or hangs, and relays its log.
 */
async function guard(home: string, flags: { host?: string; port?: string }): Promise<number> {
  const level = parseLogLevel(env.HOMEAGENT_LOG_LEVEL);
  const first = firstAgent && sameAgent(firstAgent, { ...flags, home }); // else killed
  const paths = await ensureHome(home, { logger: createJsonLogger({ level }) });
  // A second serve on this home fails before starting anything; a first agent's own claim on
  // the home refuses it instead (asked here, the socket could be that agent's).
  if (!first) await refuseRunning(paths);
  using log = openLogSink(paths.logs, env, writeStderr); // stderr and logs/homeagent.log
  const write = (line: string) => log.line(line.trimEnd());
  const logger = createJsonLogger({ level, fields: { component: "guard" }, write });
  const facts = processLaunchFacts();
  if (firstAgent?.stale) logger.debug("Agent from the source tree", { stale: firstAgent.stale });
  return await runGuard({
    command: agentCommand(facts, env, logger),
    sameFile: launchKind(facts) === "bundle",
    first,
    home: paths.root,
    runDir: paths.run,
    host: flags.host,
    port: flags.port,
    clock: systemClock,
    logger,
    log: log.line,
    print: stdout.print,
    env,
  });
}

/**
 * The daemon (run by the guard). Each step builds one part from the parts before it and hands it to the stack,
 * which closes them in reverse, on a failure at any step as on a stop. Signals are caught from
 * the first line, so a SIGTERM while starting still ends in an orderly stop.
 */
async function serve(home: string, flags: ServeFlags): Promise<number> {
  const startedAt = Date.now();
  const clock = createDaemonClock(); // its first seconds' timers do not load node:timers
  const logger = createJsonLogger({ level: parseLogLevel(env.HOMEAGENT_LOG_LEVEL) });
  await using stack = new AsyncDisposableStack();
  const stop = stack.use(stopSignals(logger));
  const paths = await ensureHome(home, { logger });
  // The guard's pipe and run/heartbeat; its state says why a fail-back boot.
  const guard = stack.use(await linkToGuard({ runDir: paths.run, clock, logger }));
  const claim = stack.use(await claimDaemon(paths)); // removes run/homed.pid and .sock last
  const { registry: config } = stack.use(openConfig(paths, logger));
  const address = webAddress(config, flags); // a taken port is refused before anything starts
  const base = { config, clock, logger };
  const notices = new KernelNotices(); // raised before the agent exists, delivered once it does
  const llm = await openLlm(stack, { ...base, paths, notices });
  const { usage, luaWasmPath, providers } = llm;
  const memoryLogger = notices.storeLogger(logger);
  const memory = stack.use(await openMemory({ ...base, paths, logger: memoryLogger }));
  const persona = () => readPersona(paths.persona);
  const graph = memory.graph.graph;
  const kernel = stack.use(createKernel({ ...base, llm: providers, persona, memory, graph }));
  notices.attach(kernel.agent);
  stack.use(trimWhenIdle({ events: kernel.agent.events, clock, logger })); // no node:timers yet
  stack.use(await memory.upkeep.attach(kernel)); // the text log of every turn, the heartbeats
  memory.startReembedding();
  // The page's live stream and its `web` channel, there before a plugin can send to it.
  const { hub } = stack.use(openWebHub(kernel.agent, clock));
  const plugins = stack.use(
    await startPlugins({
      ...base,
      agent: kernel.agent,
      home: paths,
      runDir: paths.run,
      luaWasmPath,
      env,
      version: denoJson.version,
      startedAt,
      services: memoryPluginServices(memory),
      memory,
      providers,
      usage,
      failback: flags.failback,
      guard: guard.state,
    }),
  );
  if (flags.failback) {
    notices.send("failback_boot", "guard", failbackNotice(guard.state, plugins.leftOut));
  }
  const views = webViews(memory);
  const setup = webSetup({ ...base, paths }, llm.probe);
  const web = stack.use(
    serveWeb({ ...base, address, hub, kernel, plugins, memory: views, providers, usage, setup }),
  );
  await llm.installed; // the Lua adapters' copies, written beside the start
  await claim.announce();
  console.log(web.url);
  started(logger, { paths, config, memory, startedAt, tokenizers: llm.tokenizers });
  const signal = await Promise.race([stop.signalled, guard.guardGone.then(() => "guard gone")]);
  logger.info("HomeAgent stopping", { signal });
  // SIGTERM (a service manager) lets the running turn finish; SIGINT (Ctrl-C) cancels it.
  await kernel.quiesce(signal === "SIGINT" ? "cancel" : "finish");
  return 0; // the stack closes web, plugins, upkeep, kernel, memory, stores, run files
}

/** The flags of `serve --agent`. */
interface ServeFlags {
  host?: string;
  port?: string;
  failback?: boolean;
}

/** The home's config.db with every module's settings defined (the daemon and every command). */
function openConfig(paths: HomePaths, logger: Logger) {
  return openHomeConfig(paths.configDb, {
    clock: systemClock,
    logger,
    env,
    command: cli,
    register: [
      registerCoreDefaults,
      registerMemoryDefaults,
      registerLuaAdapterDefaults,
      registerPluginSettings,
    ],
  });
}

/** The LLM side of serve: the usage ledger, the Lua glue and the sources behind the manager. */
async function openLlm(
  stack: AsyncDisposableStack,
  options: {
    paths: HomePaths;
    config: Parameters<typeof openProviders>[0]["config"];
    clock: Clock;
    logger: Logger;
    notices: InstanceType<typeof KernelNotices>;
  },
) {
  const { paths, notices, ...base } = options;
  const usage = stack.use(new SqliteUsageStore({ path: join(paths.root, "usage.db") }));
  const luaWasmPath = await luaGlueFile(paths.run); // wasmoon reads its wasm from a file
  const tokenizers = createTokenizers({ logger: base.logger }); // OpenAI models' counts, at need
  const { manager: providers, probe, installed } = openProviders({
    ...base,
    home: paths.root,
    luaWasmPath,
    usage,
    notices,
    command: cli,
    tokenizer: tokenizers.counterFor,
  });
  stack.defer(() => Promise.allSettled([installed]).then(() => {})); // a stop lets them finish
  return { usage, luaWasmPath, tokenizers, providers, probe, installed };
}

/** The one log line of a daemon that is up: its home, sources, vector space and startup time. */
function started(
  logger: Logger,
  daemon: {
    paths: HomePaths;
    config: { llmSources(): { name: string; model: string }[] };
    memory: { stats(): { embedding: { fingerprint: string; hint?: string } } };
    startedAt: number;
    tokenizers: { warmUp(models: string[]): void };
  },
): void {
  const { fingerprint: vectorSpace, hint: vectorSpaceHint } = daemon.memory.stats().embedding;
  logger.info("HomeAgent started", {
    home: daemon.paths.root,
    sources: daemon.config.llmSources().map((s) => s.name),
    vectorSpace,
    vectorSpaceHint,
    startupMs: Date.now() - daemon.startedAt,
  });
  daemon.tokenizers.warmUp(daemon.config.llmSources().map((s) => s.model));
}

/** What the web plugin shows of memory: the history, the tiers and forgetting. */
function webViews(memory: Awaited<ReturnType<typeof openMemory>>) {
  const { context, documents, upkeep: { knowledge, textLog: history }, media } = memory;
  const graph = memory.graph.graph;
  return { history, graph, context, documents, knowledge, media, forget: memory.forget };
}

/** The setup screen's parts: the adapters' probe, persona.md and `memory model`. */
function webSetup(context: Parameters<typeof modelSetup>[0], probe: OpenedProviders["probe"]) {
  const { models, test } = probe;
  const memoryModel = modelSetup(context);
  return { models, test, persona: personaFile(context.paths.persona), memoryModel };
}

/** A command's home: created when missing, its config open until disposed; warnings only. */
async function openHome(home: string) {
  const logger = createJsonLogger({ level: "warn" });
  const paths = await ensureHome(home, { logger });
  return { paths, logger, clock: systemClock, ...openConfig(paths, logger) };
}

/** The home as `doctor` reads it: nothing created, config.db opened only when it checked sound. */
function doctorHome(home: string) {
  const paths = homePaths(home);
  return {
    paths,
    checkStores: () => checkStores(paths.root),
    openConfig: () => openConfig(paths, createJsonLogger({ level: "error" })),
  };
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (error) {
    const parse = error instanceof TypeError && "code" in error &&
      String(error.code).startsWith("ERR_PARSE_ARGS");
    // The guard has not loaded the daemon's error classes: only its own failures reach here.
    const usage = parse || (UsageError !== undefined &&
      (error instanceof UsageError || error instanceof NameError ||
        error instanceof ConfirmationRequired));
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    if (firstAgent) await dropAgent(firstAgent.child); // the guard failed before running it
    code = usage ? 2 : 1;
  }
  Deno.exit(code);
}
