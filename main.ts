/**
 * The command line and the only composition root: builds the Deno-backed implementations,
 * hands them to the kernel, serves, and turns SIGINT/SIGTERM into an orderly stop.
 */
// deno-lint-ignore-file no-console
import { join } from "node:path";
import { parseArgs } from "node:util";
import denoJson from "./deno.json" with { type: "json" };
import {
  Agent,
  agentConsolidator,
  BacklogTriage,
  checkPluginName,
  ConfigRegistry,
  dayOf,
  errorMessage,
  HomeAgentError,
  type KernelNoticeKind,
  llmTools,
  type Logger,
  type MemoryDocument,
  NameError,
  ProviderManager,
  registerCoreDefaults,
  type RegisteredTool,
  residentAgentsTool,
  ResidentPool,
  SECRET_MASK,
  spawnChildTool,
} from "./core/mod.ts";
import {
  bundledAdapters,
  createJsonLogger,
  createProviderFactory,
  installBundledAdapters,
  luaAdapterLimits,
  LuaAdapterRuntime,
  luaGlueFile,
  parseLogLevel,
  registerLuaAdapterDefaults,
  systemClock,
} from "./adapters/mod.ts";
import {
  checkStores,
  ensureHome,
  evalMemoryCommand,
  type HomePaths,
  homePaths,
  importMemory,
  type MemoryAction,
  memoryCommand,
  type MemoryCommandContext,
  memoryPluginServices,
  openMemory,
  readPersona,
  registerMemoryDefaults,
  resolveHome,
  SqliteConfigStore,
  SqliteUsageStore,
} from "./memory/mod.ts";
import {
  changeLimits,
  type ChangesAction,
  changesCommand,
  ChangeStore,
  ChangeTracker,
  chatCommand,
  type CliPluginControl,
  commandName,
  ConfirmationRequired,
  confirmInstall,
  createAgentcliPlugin,
  createCfgmgrPlugin,
  createChangesPlugin,
  createClawhubAdapterPlugin,
  createCliPlugin,
  createCmdPlugin,
  createFilesPlugin,
  createHealthcheckPlugin,
  createMcpPlugin,
  createSandbox,
  createSkillInstaller,
  createTimerPlugin,
  DaemonIndex,
  daemonIndexDir,
  type DaemonTarget,
  formatFindings,
  HomeSkills,
  installService,
  mcpCommand,
  McpHttpSessions,
  memoryImportOnline,
  placeHmap,
  PLUGIN_ACTIONS,
  type PluginAction,
  pluginCommandOnline,
  type PluginHealth,
  PluginRegistry,
  pluginRuntime,
  processLaunchFacts,
  PROGRAM,
  readHmap,
  readManifest,
  registerAgentcliSettings,
  registerBuiltinSettings,
  registerCfgmgrSettings,
  registerClawhubDefaults,
  registerHealthcheckSettings,
  registerMcpDefaults,
  registerPluginDefaults,
  removeInstalled,
  reviewManifest,
  reviewSkillPackage,
  runChecks,
  serviceCommand,
  type ServiceTarget,
  serviceTarget,
  SkillLibrary,
  statusCommand,
  stopCommand,
  systemdVersion,
  uninstallService,
} from "./plugins/mod.ts";
import {
  agentChatPort,
  agentEventsPort,
  bindRefusal,
  createApp,
  type DocumentView,
  EventHub,
  isLoopbackHost,
  knowledgeBasePort,
  memoryPort,
  registrySettingsPort,
  type SkillsPort,
} from "./web/mod.ts";

/** A usage error: exit code 2. */
class UsageError extends Error {}

/** Command output: stdout, one line at a time. */
const terminal = { print: (line: string) => console.log(line) };

const usageText = () =>
  `Usage: ${cli} <command> [options]

Commands:
  serve [--host H] [--port P]   run the daemon (default 127.0.0.1:7800)
  chat [TEXT]                   talk to the running daemon; a REPL without TEXT
  stop                          stop the current turn
  status                        JSON status of the running daemon
  mcp                           an MCP server on stdio, served by the running daemon
  config get KEY [--reveal] | set KEY VALUE | unset KEY | list [PREFIX] [--reveal]
  plugin list | install FILE.hmap|npm:PACKAGE [--yes] | uninstall NAME | reload NAME | enable NAME | disable NAME
  memory stats | recall QUERY | export FILE | import FILE   JSON: memory sizes, or what recall finds for QUERY
  eval memory --corpus F --questions F [--k 5,10] [--run-out F]
                                retrieval evaluation over a fresh memory (docs/memory.md)
  service install [--user] [--port P] [--host H] | uninstall [--user]
                                a systemd unit running serve for this home (docs/operations.md)
  doctor                        offline health checks of the home; exit 1 when one fails
  changes list | show ID | rollback ID   the agent's file changes, one changeset per turn

Every command takes --home DIR (default $HOMEAGENT_HOME or ~/.homeagent).`;

const env = Deno.env.toObject();
/** How the owner runs this command line, for every hint that names a command (set by main). */
let cli = PROGRAM;

async function main(args: string[]): Promise<number> {
  // `deno task` runs main.ts in the checkout; paths the user typed are relative to their folder.
  if (env.INIT_CWD && env.npm_config_user_agent?.startsWith("deno/")) Deno.chdir(env.INIT_CWD);
  cli = commandName(processLaunchFacts());
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      home: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      reveal: { type: "boolean" },
      corpus: { type: "string" },
      questions: { type: "string" },
      k: { type: "string" },
      "run-out": { type: "string" },
      yes: { type: "boolean", short: "y" },
      user: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean" },
    },
  });
  if (values.version) {
    console.log(denoJson.version);
    return 0;
  }
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === "help") {
    console.log(usageText());
    return command === undefined && !values.help ? 2 : 0;
  }
  const home = resolveHome(values.home, env);
  switch (command) {
    case "serve":
      return await serve(home, values.host, values.port);
    case "chat":
      return await chatCommand(daemonTarget(home), rest.join(" "));
    case "stop":
      return await stopCommand(daemonTarget(home), terminal);
    case "status":
      return await statusCommand(daemonTarget(home), terminal);
    case "mcp":
      return await mcpCommand(daemonTarget(home), {
        input: Deno.stdin.readable,
        output: Deno.stdout.writable,
      });
    case "config":
      return await config(home, rest, values.reveal ?? false);
    case "plugin":
      return await plugin(home, rest, values.yes ?? false);
    case "memory":
      return await memory(home, rest);
    case "eval":
      return await evaluate(home, rest, values);
    case "service":
      return await service(home, rest, values);
    case "doctor":
      return await doctor(home);
    case "changes":
      return await changes(home, rest);
    default:
      throw new UsageError(`Unknown command "${command}"\n\n${usageText()}`);
  }
}

/** The daemon of `home`, as the socket commands reach it. */
function daemonTarget(home: string): DaemonTarget {
  return { home, socket: homePaths(home).socket, command: cli, index: daemonIndex() };
}

/** This user's index of running daemons (which home each serves). */
function daemonIndex(): DaemonIndex {
  let uid: number | null = null;
  try {
    uid = Deno.uid();
  } catch {
    // no --allow-sys: no index
  }
  return new DaemonIndex(daemonIndexDir(env, uid));
}

function openConfig(paths: HomePaths, logger: Logger) {
  const store = new SqliteConfigStore({ path: paths.configDb });
  const registry = new ConfigRegistry({ store, clock: systemClock, logger, env, command: cli });
  registerCoreDefaults(registry);
  registerMemoryDefaults(registry);
  registerPluginDefaults(registry);
  registerMcpDefaults(registry);
  registerClawhubDefaults(registry);
  registerCfgmgrSettings(registry);
  registerAgentcliSettings(registry);
  registerLuaAdapterDefaults(registry);
  registerHealthcheckSettings(registry);
  registerBuiltinSettings(registry);
  return { store, registry };
}

async function serve(home: string, hostFlag?: string, portFlag?: string): Promise<number> {
  const startedAt = Date.now();
  const logger = createJsonLogger({ level: parseLogLevel(env.HOMEAGENT_LOG_LEVEL) });
  const paths = await ensureHome(home, { logger });
  await claimSocket(paths);
  const { store, registry } = openConfig(paths, logger);
  if (registry.get<string>("core.web.token") === "") {
    registry.set("core.web.token", crypto.randomUUID().replaceAll("-", ""));
  }
  const token = registry.get<string>("core.web.token");
  const host = hostFlag ?? registry.get<string>("core.web.host");
  const port = portFlag !== undefined ? Number(portFlag) : registry.get<number>("core.web.port");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`Invalid --port "${portFlag}": expected an integer 0-65535`);
  }
  const refusal = bindRefusal(host, token);
  if (refusal) throw new UsageError(refusal);
  checkPortFree(host, port, store);

  // Lua adapters (docs/adapters.md): bundled scripts copied to <home>/adapters, edits there win.
  const adapterDir = join(paths.root, "adapters");
  await installBundledAdapters(adapterDir, bundledAdapters, logger);
  // wasmoon reads its wasm from a file, which a bundle or a compiled binary carries inside.
  const luaWasm = await luaGlueFile(paths.run);
  const lua = new LuaAdapterRuntime({
    logger: logger.child({ component: "lua" }),
    dir: adapterDir,
    ...luaAdapterLimits(registry),
    wasmPath: luaWasm,
  });
  const usage = new SqliteUsageStore({ path: join(paths.root, "usage.db") });
  // Kernel notices (L4) need the agent, built after the providers and the memory tiers.
  const notices = kernelNotices();
  const providers = new ProviderManager({
    clock: systemClock,
    logger: logger.child({ component: "providers" }),
    sources: () => registry.llmSources(),
    factory: createProviderFactory({
      clock: systemClock,
      logger,
      adapters: lua.adapters(),
      resolve: (name) => lua.resolve(name),
    }),
    retryDelayMs: registry.get<number>("core.llm.retry_delay_ms"),
    usage,
    command: cli,
    onUnusable: (source, error) =>
      notices.send(
        "provider_unusable",
        source,
        `LLM source "${source}" is unusable until its settings change: ${error.message}. ` +
          `Tell the owner to fix core.llm.sources.${source}.* (${cli} config set).`,
      ),
  });
  // The memory tiers read each tool's memory policy from the agent built just after them.
  const late: { tools?: () => RegisteredTool[] } = {};
  const memory = await openMemory({
    paths,
    config: registry,
    clock: systemClock,
    logger: notices.storeLogger(logger),
    toolPolicy: (name) => late.tools?.().find((t) => t.name === name),
  });
  const agent = new Agent({
    clock: systemClock,
    logger: logger.child({ component: "kernel" }),
    config: registry,
    llm: providers,
    persona: () => readPersona(paths.persona),
    context: memory.context,
    recall: (input, signal) => memory.recall(input, signal),
    toolSources: [
      () => memory.tools(),
      () => llmTools({ config: registry, health: () => providers.health() }),
    ],
  });
  late.tools = () => agent.allTools();
  notices.attach(agent);
  // Text log of every turn and the memory heartbeats; LLM decisions go through consolidation.
  await memory.upkeep.attach({
    stages: agent.stages,
    consolidator: agentConsolidator(agent, () => providers.hasSources()),
  });
  // Residents, children and backlog triage (docs/scheduler.md). Residents read through and
  // reclaim into the graph tier (memory/graph.db) through the GraphMemory port.
  const helpers = {
    clock: systemClock,
    logger: logger.child({ component: "helpers" }),
    config: registry,
    llm: providers,
  };
  const residents = new ResidentPool({
    ...helpers,
    parent: agent,
    graph: memory.graph.graph,
    parentTools: () => agent.allTools(),
  });
  agent.tools.register(residentAgentsTool(residents), "core");
  agent.tools.register(spawnChildTool({ ...helpers, tools: () => agent.allTools() }), "core");
  const triage = new BacklogTriage({
    ...helpers,
    agent,
    persona: () => readPersona(paths.persona),
  });
  triage.start();
  const background = new AbortController();
  const reembedding = memory.reembedInBackground(background.signal);
  const plugins = new PluginRegistry({
    agent,
    config: registry,
    clock: systemClock,
    logger: logger.child({ component: "plugins" }),
    pluginsDir: paths.plugins,
    kernelVersion: denoJson.version,
    env,
    // The deno and SDK for Deno plugins, whether this is the checkout, a bundle or a binary.
    ...await pluginRuntime({ runDir: paths.run, execPath: Deno.execPath(), env }),
    luaWasmPath: luaWasm,
    services: memoryPluginServices(memory),
  });
  const mcp = mcpPlugin(registry, agent);
  plugins.registerFactory("mcp", () => mcp);
  const skills = await homeSkills(paths, registry, plugins, logger);
  const statusReport = () => ({
    version: denoJson.version,
    home: paths.root,
    pid: Deno.pid,
    uptimeMs: Date.now() - startedAt,
    kernel: agent.status(),
    providers: providers.health(),
    usage: usage.range(dayOf(Date.now() - 6 * 86_400_000), dayOf(Date.now())),
    plugins: plugins.list(),
    mcp: mcp.servers(),
    memory: memory.stats(),
  });

  plugins.registerFactory("cli", () =>
    createCliPlugin({
      socketPath: paths.socket,
      statusReport,
      plugins: { ...pluginControl(plugins), installSkills: skills.installPinned },
      memory: {
        import: (path) =>
          importMemory({ documents: memory.documents, graph: memory.graph.graph }, path),
      },
      index: { home: paths.root, directory: daemonIndex() },
      mcp: (channel) => mcp.serveLines(channel),
    }));
  plugins.registerFactory(
    "cfgmgr",
    () => createCfgmgrPlugin({ config: registry, plugins: () => plugins.list() }),
  );
  plugins.registerFactory(
    "agentcli",
    () => createAgentcliPlugin({ clock: systemClock, workdir: join(paths.root, "agentfs"), env }),
  );
  plugins.registerFactory(
    "healthcheck",
    () => healthcheckPlugin({ agent, plugins, providers, memory, root: paths.root }),
  );
  registerWorkPlugins(plugins, paths, registry, logger);
  plugins.registerFactory("clawhubadapter", () =>
    createClawhubAdapterPlugin({
      installer: skills.installer,
      skills: skills.home,
      searchUrl: () => registry.get<string>("plugin.clawhubadapter.search_url"),
    }));
  await plugins.load();
  const mcpHttp = new McpHttpSessions({ serve: (t) => mcp.serve(t), clock: systemClock });
  // The web app (web/): its SSE hub is closed before the server so open streams end.
  const hub = new EventHub({ clock: systemClock });
  const unsubscribeHub = agent.events.subscribe("*", (event) => hub.publish(event));
  const app = createApp({
    token,
    clock: systemClock,
    logger: logger.child({ component: "web" }),
    status: statusReport,
    chat: agentChatPort(agent),
    events: agentEventsPort(agent),
    settings: registrySettingsPort(registry),
    memory: memoryPort({
      graph: memory.graph.graph,
      context: memory.context,
      documents: (options) => listDocuments(memory.documents, options),
    }),
    plugins: {
      list: () => plugins.list(),
      enable: (name) => plugins.enable(name),
      disable: (name) => plugins.disable(name),
      reload: (name) => plugins.reload(name),
      install: (bytes) => plugins.install(bytes),
      review: (bytes) => plugins.review(bytes),
    },
    llm: {
      sources: () => providers.health(),
      usage: () => usage.range(dayOf(Date.now() - 6 * 86_400_000), dayOf(Date.now())).reverse(),
    },
    knowledge: knowledgeBasePort(memory.upkeep.knowledge),
    agents: { list: () => residents.list() },
    mcp: mcpHttp,
    localOnly: isLoopbackHost(host),
    questions: agent.questions,
    pluginRoutes: agent.routes,
    skills: skills.port,
  }, { hub });
  const server = Deno.serve(
    { hostname: host, port, onListen: () => {} },
    (request, info) => app.fetch(request, { remoteAddr: info.remoteAddr }),
  );
  await Deno.writeTextFile(paths.pidFile, `${Deno.pid}\n`);
  const shown = host.includes(":") ? `[${host}]` : host;
  console.log(`http://${shown}:${server.addr.port}/?token=${token}`);
  logger.info("HomeAgent started", {
    home: paths.root,
    sources: registry.llmSources().map((s) => s.name),
    startupMs: Date.now() - startedAt,
  });
  if (!providers.hasSources()) {
    logger.warn("No LLM source configured; chat will answer with how to configure one");
  }
  // jieba builds its dictionary on the first Chinese text (~0.5 s); do it now that the socket
  // is open, rather than in the middle of the first message.
  const warm = setTimeout(() => {
    const t0 = performance.now();
    memory.analyzer.tokenize("预热分词词典");
    logger.debug("Segmenter warmed", { ms: Math.round(performance.now() - t0) });
  }, 0);

  const stopped = Promise.withResolvers<void>();
  const onSignal = () => stopped.resolve();
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  await stopped.promise;
  logger.info("HomeAgent stopping");
  clearTimeout(warm);
  background.abort();
  await triage.close();
  await residents.close();
  await agent.close();
  await mcpHttp.close();
  await plugins.stopAll();
  await reembedding;
  await memory.close();
  unsubscribeHub();
  hub.close();
  await server.shutdown();
  usage.close();
  store.close();
  await Deno.remove(paths.pidFile).catch(() => {});
  Deno.removeSignalListener("SIGINT", onSignal);
  Deno.removeSignalListener("SIGTERM", onSignal);
  return 0;
}

/**
 * MCP both ways (docs/mcp.md): the client (stdio servers inherit only PATH from the daemon) and
 * the server over the agent's memory tools and chat.
 */
function mcpPlugin(registry: ConfigRegistry, agent: Agent) {
  return createMcpPlugin({
    config: registry,
    clock: systemClock,
    version: denoJson.version,
    path: env.PATH,
    agentTools: () => agent.allTools(),
  });
}

/** The healthcheck built-in over the live daemon (docs/plugins.md). */
function healthcheckPlugin(parts: {
  agent: Agent;
  plugins: PluginRegistry;
  providers: ProviderManager;
  memory: Awaited<ReturnType<typeof openMemory>>;
  root: string;
}) {
  const { agent, plugins, providers, memory, root } = parts;
  return createHealthcheckPlugin({
    clock: systemClock,
    probes: {
      kernel: () => {
        const s = agent.status();
        const since = s.scheduler.busySince;
        return {
          state: s.state,
          pending: s.pending,
          capacity: s.scheduler.capacity,
          stack: s.scheduler.stack.length,
          ...(since !== undefined ? { busyMs: systemClock.monotonic() - since } : {}),
        };
      },
      plugins: () => plugins.list(),
      toolCount: () => agent.allTools().length,
      // Sizes only: a quick_check of a large graph.db would stall the daemon; doctor runs it.
      memory: () => {
        const m = memory.stats();
        return Promise.resolve([{
          store: "tiers",
          status: "ok" as const,
          detail: `${m.contextEvents} context events, ${m.documents} documents, ` +
            `${m.graph.entities} entities, ${m.graph.relations} relations`,
        }]);
      },
      llm: () => providers.health(),
      disk: root,
    },
  });
}

/** `doctor`: the healthcheck's checks over the home's files, read-only, no daemon needed. */
async function doctor(home: string): Promise<number> {
  const paths = homePaths(home);
  if (!await Deno.stat(paths.root).then((s) => s.isDirectory, () => false)) {
    console.log(`fail  home     no home at ${paths.root} (serve makes one)`);
    return 1;
  }
  const stores = await checkStores(paths.root);
  const configUsable =
    stores.some((s) => s.store === "config.db" && s.detail !== "not created yet") &&
    !stores.some((s) => s.store === "config.db" && s.status === "fail");
  const opened = configUsable ? openConfig(paths, createJsonLogger({ level: "error" })) : undefined;
  try {
    const registry = opened?.registry;
    const findings = await runChecks({
      plugins: () => installedPlugins(paths, registry),
      memory: () => Promise.resolve(stores),
      llm: () =>
        (registry?.llmSources() ?? []).map((s) => ({
          name: s.name,
          model: s.model,
          state: "configured",
        })),
      disk: paths.root,
    }, {
      warnMb: registry?.get<number>("plugin.healthcheck.disk_warn_mb") ?? 2048,
      failMb: registry?.get<number>("plugin.healthcheck.disk_fail_mb") ?? 256,
    });
    const conn = await Deno.connect({ transport: "unix", path: paths.socket }).catch(() => null);
    conn?.close();
    const kernel = findings.findIndex((f) => f.check === "kernel");
    if (conn && kernel >= 0) {
      findings[kernel] = {
        check: "kernel",
        status: "skip",
        detail: `daemon running: ${cli} status`,
      };
    }
    const count = (status: string) => findings.filter((f) => f.status === status).length;
    console.log(formatFindings(findings));
    console.log(`${count("ok")} ok, ${count("warn")} warn, ${count("fail")} fail`);
    return count("fail") > 0 ? 1 : 0;
  } finally {
    opened?.store.close();
  }
}

/** Installed plugins as the doctor sees them: a manifest that does not read is a failure. */
async function installedPlugins(
  paths: HomePaths,
  registry?: ConfigRegistry,
): Promise<PluginHealth[]> {
  const found: PluginHealth[] = [];
  try {
    for await (const entry of Deno.readDir(paths.plugins)) {
      if (!entry.isDirectory || entry.name.startsWith(".")) continue;
      try {
        await readManifest(join(paths.plugins, entry.name));
        const enabled = registry?.get<boolean>(`core.plugins.${entry.name}.enabled`) ?? true;
        found.push({ name: entry.name, state: enabled ? "installed" : "disabled" });
      } catch (error) {
        found.push({ name: entry.name, state: "failed", error: errorMessage(error) });
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort((a, b) => a.name < b.name ? -1 : 1);
}

/**
 * Kernel notices raised before the agent exists wait for it. The memory layer reports a store
 * it could not open, and moved aside, as an error line carrying `movedTo`: each such line
 * becomes a `store_failed` notice.
 */
function kernelNotices() {
  let agent: Agent | undefined;
  const early: [KernelNoticeKind, string, string][] = [];
  const send = (kind: KernelNoticeKind, subject: string, text: string) => {
    if (agent) agent.kernelNotice(kind, subject, text);
    else early.push([kind, subject, text]);
  };
  const storeLogger = (base: Logger): Logger => {
    const wrap = (logger: Logger): Logger => ({
      debug: (msg, fields) => logger.debug(msg, fields),
      info: (msg, fields) => logger.info(msg, fields),
      warn: (msg, fields) => logger.warn(msg, fields),
      error(msg, fields = {}) {
        logger.error(msg, fields);
        if (typeof fields.movedTo !== "string") return;
        const file = String(fields.path ?? fields.file ?? fields.movedTo);
        send("store_failed", file, `${msg}: ${file} (moved to ${fields.movedTo}). Tell the owner.`);
      },
      child: (bindings) => wrap(logger.child(bindings)),
    });
    return wrap(base);
  };
  return {
    send,
    storeLogger,
    attach(value: Agent) {
      agent = value;
      for (const [kind, subject, text] of early.splice(0)) agent.kernelNotice(kind, subject, text);
    },
  };
}

/** The change tracker of a home, over the files sandbox (`<home>/agentfs` and plugin.files.roots). */
function openTracker(paths: HomePaths, registry: ConfigRegistry, logger: Logger) {
  const sandbox = createSandbox(paths.agentfs, () => registry.get<string[]>("plugin.files.roots"));
  const tracker = new ChangeTracker({
    store: new ChangeStore({ dir: paths.changesets, logger }),
    clock: systemClock,
    logger: logger.child({ component: "changes" }),
    limits: () => changeLimits((key) => registry.get(`plugin.changes.${key}`)),
    sandbox,
  });
  return { sandbox, tracker };
}

/** The built-ins that work for the owner: files, cmd, timer and the change tracker. */
function registerWorkPlugins(
  plugins: PluginRegistry,
  paths: HomePaths,
  registry: ConfigRegistry,
  logger: Logger,
): void {
  const { sandbox, tracker } = openTracker(paths, registry, logger);
  const optional = { optional: true };
  plugins.registerFactory(
    "files",
    () => createFilesPlugin({ sandbox, recorder: tracker }),
    optional,
  );
  plugins.registerFactory(
    "cmd",
    () => createCmdPlugin({ sandbox, clock: systemClock, recorder: tracker, env }),
    optional,
  );
  plugins.registerFactory(
    "timer",
    () => createTimerPlugin({ file: paths.timers, clock: systemClock }),
    optional,
  );
  plugins.registerFactory("changes", () => createChangesPlugin({ tracker }), optional);
}

/** `changes list | show ID | rollback ID`: on the home's changeset files. */
async function changes(home: string, args: string[]): Promise<number> {
  const [action, id] = args;
  if (!["list", "show", "rollback"].includes(action ?? "") || (action !== "list" && !id)) {
    throw new UsageError("Usage: homeagent changes list | show ID | rollback ID");
  }
  const logger = createJsonLogger({ level: "warn" });
  const paths = await ensureHome(home, { logger });
  const { store, registry } = openConfig(paths, logger);
  try {
    const { tracker } = openTracker(paths, registry, logger);
    console.log(await changesCommand(tracker, action as ChangesAction, id));
    return 0;
  } finally {
    store.close();
  }
}

/**
 * Skills in <home>/skills (loaded now, before the plugins start) and their installer: npm
 * packages from core.plugins.npm_registry, ClawHub skills from its download URL.
 */
async function homeSkills(
  paths: HomePaths,
  registry: ConfigRegistry,
  plugins: PluginRegistry,
  logger: Logger,
) {
  const home = new HomeSkills({
    dir: paths.skills,
    library: plugins.skills,
    logger: logger.child({ component: "skills" }),
    clock: systemClock,
  });
  await home.load();
  const installer = createSkillInstaller({ skills: home, sources: skillSources(registry) });
  const installPinned = (source: string, integrity?: string) =>
    installer.install(source, { integrity });
  const port: SkillsPort = {
    list: () => home.list(),
    review: async (source) => {
      const pkg = await installer.fetch(source);
      return { source: pkg.source, integrity: pkg.integrity, lines: reviewSkillPackage(pkg) };
    },
    install: installPinned,
    remove: (name) => home.remove(name),
  };
  return { home, installer, installPinned, port };
}

function skillSources(registry: ConfigRegistry) {
  return {
    npmRegistry: () => registry.get<string>("core.plugins.npm_registry"),
    clawhubDownloadUrl: () => registry.get<string>("plugin.clawhubadapter.download_url"),
  };
}

/** The CLI socket's plugin frames, over the registry; install reads the file the client names. */
function pluginControl(plugins: PluginRegistry): CliPluginControl {
  return {
    list: () => plugins.list(),
    install: async (path) => plugins.install(await Deno.readFile(path)),
    uninstall: async (name) => {
      await plugins.uninstall(name);
      return { name, state: "uninstalled" };
    },
    reload: (name) => plugins.reload(name),
    enable: (name) => plugins.enable(name),
    disable: (name) => plugins.disable(name),
  };
}

/** The memory view's documents: a search, or the newest ones (from the index, no file read). */
async function listDocuments(
  documents: Awaited<ReturnType<typeof openMemory>>["documents"],
  options: { query?: string; limit: number },
): Promise<DocumentView[]> {
  const view = (d: MemoryDocument, score?: number): DocumentView => ({
    id: d.id,
    summary: d.summary,
    source: d.source,
    createdAt: d.createdAt,
    accessCount: d.accessCount,
    ...(score !== undefined ? { score } : {}),
  });
  if (options.query) {
    const hits = await documents.query(options.query, { k: options.limit, touch: false });
    return hits.map((h) => view(h.document, h.score));
  }
  return documents.recent(options.limit).map((d) => ({ ...d }));
}

/**
 * Fail before anything starts when the web address is taken, with a message that says what to
 * do (Deno.serve later would fail after the plugins are up, with only "Address already in use").
 */
function checkPortFree(host: string, port: number, store: { close(): void }): void {
  if (port === 0) return;
  try {
    Deno.listen({ hostname: host, port }).close();
  } catch (error) {
    store.close();
    if (error instanceof Deno.errors.AddrInUse) {
      throw new HomeAgentError(
        "address_in_use",
        `Cannot listen on ${host}:${port}: the address is in use by another program; ` +
          `stop it, or pass --port (or set core.web.port)`,
      );
    }
    throw error;
  }
}

/** Refuse a second daemon on the same home; remove a stale socket left by a crash. */
async function claimSocket(paths: HomePaths): Promise<void> {
  try {
    const conn = await Deno.connect({ transport: "unix", path: paths.socket });
    conn.close();
    const pid = await Deno.readTextFile(paths.pidFile).then((t) => t.trim(), () => "?");
    throw new HomeAgentError(
      "already_running",
      `HomeAgent is already running on home "${paths.root}" (pid ${pid})`,
    );
  } catch (error) {
    if (error instanceof HomeAgentError) throw error;
    if (error instanceof Deno.errors.NotFound) return;
    await Deno.remove(paths.socket); // stale: nobody listens
  }
}

async function config(home: string, args: string[], reveal: boolean): Promise<number> {
  const [action, key, ...valueParts] = args;
  const logger = createJsonLogger({ level: "warn" });
  const paths = await ensureHome(home, { logger });
  const { store, registry } = openConfig(paths, logger);
  try {
    switch (action) {
      case "get":
        if (!key) throw new UsageError(`Usage: ${cli} config get KEY [--reveal]`);
        console.log(JSON.stringify(shownValue(registry, key, reveal)));
        return 0;
      case "set":
        if (!key || valueParts.length === 0) {
          throw new UsageError(`Usage: ${cli} config set KEY VALUE`);
        }
        registry.setFromText(key, valueParts.join(" "));
        return 0;
      case "unset":
        if (!key) throw new UsageError(`Usage: ${cli} config unset KEY`);
        registry.unset(key);
        return 0;
      case "list":
        for (const entry of registry.list(key ?? "", { reveal })) {
          const marker = entry.source === "default" ? "" : `  (${entry.source})`;
          console.log(`${entry.key} = ${JSON.stringify(entry.value)}${marker}`);
        }
        return 0;
      default:
        throw new UsageError(`Usage: ${cli} config get|set|unset|list ...`);
    }
  } finally {
    store.close();
  }
}

/** The value of `key` as `config get` prints it: a secret masked, as `config list` does. */
function shownValue(registry: ConfigRegistry, key: string, reveal: boolean): unknown {
  const value = registry.get(key);
  const hidden = registry.describe(key).secret && !reveal && value !== "";
  return hidden ? SECRET_MASK : value;
}

/** `service install [--user] | uninstall [--user]`: a systemd unit (docs/operations.md). */
async function service(
  home: string,
  args: string[],
  flags: { user?: boolean; home?: string; host?: string; port?: string },
): Promise<number> {
  const [action] = args;
  if (args.length !== 1 || (action !== "install" && action !== "uninstall")) {
    throw new UsageError(
      `Usage: ${cli} service install [--user] [--port P] [--host H] | uninstall [--user]`,
    );
  }
  const target = await serviceTarget({
    user: flags.user ?? false,
    home,
    homeNamed: flags.home !== undefined || env.HOMEAGENT_HOME !== undefined,
    env,
    uid: Deno.build.os === "windows" ? null : Deno.uid(),
  });
  const result = action === "uninstall"
    ? await uninstallService(target)
    : await installService(target, {
      command: serviceCommand(processLaunchFacts()),
      host: flags.host,
      port: await servicePort(target, flags.port),
      systemd: await systemdVersion(),
    });
  const verb = action === "install" ? "Wrote" : "Removed";
  console.log(`${verb} ${result.unitFile}`);
  if (action === "install") {
    const state = result.envCreated ? "created, mode 0600" : "kept as it was, mode 0600";
    console.log(`API keys go in ${result.envFile} (${state})`);
  } else console.log(`${result.envFile} is kept: it holds your keys`);
  console.log(action === "install" ? "Start it now and at every boot:" : "Stop what still runs:");
  for (const line of result.next) console.log(`  ${line}`);
  return 0;
}

/** The unit's port: --port, else the home's core.web.port (a user unit; root opens no home). */
async function servicePort(target: ServiceTarget, flag?: string): Promise<number> {
  if (flag !== undefined) {
    const port = Number(flag);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new UsageError(`Invalid --port "${flag}": expected an integer 1-65535`);
    }
    return port;
  }
  if (target.scope === "system") return 7800;
  const logger = createJsonLogger({ level: "warn" });
  const { store, registry } = openConfig(await ensureHome(target.home, { logger }), logger);
  try {
    return registry.get<number>("core.web.port");
  } finally {
    store.close();
  }
}

/** `eval memory`: DESIGN.md §8, over a fresh memory in a temporary folder. */
async function evaluate(
  home: string,
  args: string[],
  flags: { corpus?: string; questions?: string; k?: string; "run-out"?: string },
): Promise<number> {
  if (args[0] !== "memory" || !flags.corpus || !flags.questions) {
    throw new UsageError(
      `Usage: ${cli} eval memory --corpus F --questions F [--k 5,10] [--run-out F]`,
    );
  }
  const ks = (flags.k ?? "5,10").split(",").map((k) => Number(k.trim()));
  if (ks.some((k) => !Number.isInteger(k) || k < 1)) {
    throw new UsageError(`Invalid --k "${flags.k}": expected positive integers like 5,10`);
  }
  const result = await withHomeStores(home, (context) =>
    evalMemoryCommand(context, {
      corpus: flags.corpus!,
      questions: flags.questions!,
      ks,
      runOut: flags["run-out"],
    }, (message: string) => console.error(message)));
  console.log(JSON.stringify(result, null, 2));
  return 0;
}

/** `memory stats | recall QUERY | export FILE | import FILE`: JSON out. */
async function memory(home: string, args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const argument = rest.join(" ").trim();
  const help = `Usage: ${cli} memory stats | recall QUERY | export FILE | import FILE`;
  const actions: MemoryAction[] = ["stats", "recall", "export", "import"];
  if (!actions.includes(action as MemoryAction)) throw new UsageError(help);
  if (action !== "stats" && argument === "") throw new UsageError(help);
  // Into a running daemon's own stores when there is one: searchable at once, no second writer.
  const online = action === "import"
    ? await memoryImportOnline(daemonTarget(home), await Deno.realPath(argument))
    : undefined;
  const report = online ? online.value : await withHomeStores(
    home,
    (context) => memoryCommand(context, action as MemoryAction, argument),
  );
  console.log(JSON.stringify(report, null, 2));
  return 0;
}

/** Run `fn` with the home's config open (closed afterwards) and a quiet logger. */
async function withHomeStores<T>(
  home: string,
  fn: (context: MemoryCommandContext) => Promise<T>,
): Promise<T> {
  const logger = createJsonLogger({ level: "warn" });
  const paths = await ensureHome(home, { logger });
  const { store, registry } = openConfig(paths, logger);
  try {
    return await fn({ paths, config: registry, clock: systemClock, logger });
  } finally {
    store.close();
  }
}

/**
 * `plugin …`: through the running daemon when there is one (changes apply at once); else
 * directly on the home's files (they apply at the next start). `reload` needs a daemon.
 */
async function plugin(home: string, args: string[], yes: boolean): Promise<number> {
  const [action, arg] = args;
  if (!PLUGIN_ACTIONS.includes(action as PluginAction) || (action !== "list" && !arg)) {
    throw new UsageError(
      `Usage: ${cli} plugin list | install FILE.hmap [--yes] | uninstall|reload|enable|disable NAME`,
    );
  }
  if (action === "install" && arg!.startsWith("npm:")) return await installSkills(home, arg!, yes);
  if (action !== "list" && action !== "install") checkPluginName(arg);
  const path = action === "install" ? await Deno.realPath(arg!) : undefined;
  if (path && !await confirmPackage(path, yes)) {
    console.error("Not installed.");
    return 1;
  }
  const online = await pluginCommandOnline(
    daemonTarget(home),
    { action: action as PluginAction, name: arg, path },
    terminal,
  );
  return online ?? await pluginOffline(home, action as PluginAction, path ?? arg);
}

/**
 * `plugin install npm:<package>`: fetched and verified here, reviewed (stderr) and confirmed,
 * then installed by the running daemon pinned to that integrity, or into <home>/skills.
 */
async function installSkills(home: string, spec: string, yes: boolean): Promise<number> {
  const logger = createJsonLogger({ level: "warn" });
  const paths = await ensureHome(home, { logger });
  const { store, registry } = openConfig(paths, logger);
  try {
    const installer = createSkillInstaller({
      skills: new HomeSkills({
        dir: paths.skills,
        library: new SkillLibrary(),
        logger,
        clock: systemClock,
      }),
      sources: skillSources(registry),
    });
    const pkg = await installer.fetch(spec);
    const review = { name: pkg.source, lines: reviewSkillPackage(pkg) };
    if (!await confirmInstall(review, confirmIo(yes))) {
      console.error("Not installed.");
      return 1;
    }
    const request = { action: "install" as const, source: pkg.source, integrity: pkg.integrity };
    const online = await pluginCommandOnline(daemonTarget(home), request, terminal);
    if (online !== undefined) return online;
    printPlugins(await installer.install(pkg.source, { integrity: pkg.integrity }));
    return 0;
  } finally {
    store.close();
  }
}

function confirmIo(yes: boolean) {
  return {
    yes,
    isTerminal: Deno.stdin.isTerminal(),
    ask: (question: string) => prompt(question),
    print: (line: string) => console.error(line),
  };
}

/** List what the package asks for on stderr and ask (a terminal) or take --yes. */
async function confirmPackage(path: string, yes: boolean): Promise<boolean> {
  const pkg = await readHmap(await Deno.readFile(path));
  return await confirmInstall(reviewManifest(pkg.manifest, pkg.sha256), confirmIo(yes));
}

async function pluginOffline(home: string, action: string, arg?: string): Promise<number> {
  const logger = createJsonLogger({ level: "warn" });
  const paths = await ensureHome(home, { logger });
  const { store, registry } = openConfig(paths, logger);
  try {
    switch (action) {
      case "list": {
        const list = [];
        for await (const entry of Deno.readDir(paths.plugins)) {
          if (!entry.isDirectory || entry.name.startsWith(".")) continue;
          const manifest = await readManifest(`${paths.plugins}/${entry.name}`).catch(() =>
            undefined
          );
          list.push({
            name: entry.name,
            kind: manifest?.kind,
            version: manifest?.version,
            state: registry.get(`core.plugins.${entry.name}.enabled`) ? "stopped" : "disabled",
          });
        }
        printPlugins(list);
        return 0;
      }
      case "install": {
        const pkg = await readHmap(await Deno.readFile(arg!));
        await placeHmap(paths.plugins, pkg, Date.now());
        printPlugins({
          name: pkg.manifest.name,
          version: pkg.manifest.version,
          sha256: pkg.sha256,
        });
        return 0;
      }
      case "uninstall":
        await removeInstalled(paths.plugins, arg!);
        return 0;
      case "enable":
      case "disable":
        registry.set(`core.plugins.${arg}.enabled`, action === "enable");
        return 0;
      default:
        throw new HomeAgentError("no_daemon", `"plugin ${action}" needs a running daemon`);
    }
  } finally {
    store.close();
  }
}

function printPlugins(result: unknown): void {
  console.log(JSON.stringify(result, null, 2));
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (error) {
    const usage = error instanceof UsageError || error instanceof NameError ||
      error instanceof ConfirmationRequired ||
      (error instanceof TypeError && "code" in error &&
        String(error.code).startsWith("ERR_PARSE_ARGS"));
    console.error(`error: ${errorMessage(error)}`);
    code = usage ? 2 : 1;
  }
  Deno.exit(code);
}
