/**
 * The daemon's plugins: the host's PluginRegistry with every built-in registered (cli, cfgmgr,
 * agentcli, mcp, healthcheck, files, cmd, timer, changes, clawhubadapter; skills and pluginmgr
 * come with the registry) after the home's skills are read, then loaded together with the
 * installed plugins; and the settings they define. The
 * `status` report is assembled here, beside the plugins it lists.
 */
import { join } from "node:path";
import {
  type Agent,
  type Clock,
  type ConfigRegistry,
  lastWeekOfUsage,
  type Logger,
  type SourceHealth,
  type UsageLedger,
  usageReport,
} from "../core/mod.ts";
import { type CliPluginControl, createCliPlugin } from "./builtin/cli/server.ts";
import { daemonIndex } from "./builtin/cli/daemon.ts";
import { createCfgmgrPlugin, registerCfgmgrSettings } from "./builtin/cfgmgr/mod.ts";
import { createAgentcliPlugin, registerAgentcliSettings } from "./builtin/agentcli/mod.ts";
import { createMcpPlugin, type McpPlugin } from "./builtin/mcp/plugin.ts";
import { registerMcpDefaults } from "./builtin/mcp/config.ts";
import { McpHttpSessions } from "./builtin/mcp/http.ts";
import { createHealthcheckPlugin, registerHealthcheckSettings } from "./builtin/healthcheck/mod.ts";
import { registerBuiltinSettings } from "./builtin/settings.ts";
import {
  createClawhubAdapterPlugin,
  registerClawhubDefaults,
} from "./builtin/clawhubadapter/plugin.ts";
import { type OpenedHomeSkills, openHomeSkills } from "./builtin/clawhubadapter/home_skills.ts";
import { registerWorkPlugins, type WorkPaths } from "./builtin/work.ts";
import {
  PluginRegistry,
  pluginRuntime,
  type PluginServices,
  registerPluginDefaults,
} from "./host/mod.ts";

/**
 * Define every plugin-side setting: `core.plugins.*` and each built-in's `plugin.<name>.*`.
 * The daemon and every command that opens config.db call it, so `config set` validates them.
 */
export function registerPluginSettings(registry: ConfigRegistry): void {
  registerPluginDefaults(registry);
  registerMcpDefaults(registry);
  registerClawhubDefaults(registry);
  registerCfgmgrSettings(registry);
  registerAgentcliSettings(registry);
  registerHealthcheckSettings(registry);
  registerBuiltinSettings(registry);
}

/** The memory tiers as the plugins see them. */
export interface PluginMemory {
  /** Sizes for `status` and the healthcheck. */
  stats(): {
    contextEvents: number;
    documents: number;
    graph: { entities: number; relations: number };
  };
  /** `memory import FILE` into the daemon's own stores (the CLI socket's memory frames). */
  importFile(path: string): Promise<unknown>;
  /** `memory forget NAME` in the daemon's own stores. */
  forget: { forget(name: string): Promise<unknown> };
}

/** Options of startPlugins. */
export interface StartPluginsOptions {
  agent: Agent;
  config: ConfigRegistry;
  clock: Clock;
  logger: Logger;
  /** The home: its root, `plugins/`, `skills/`, the CLI socket and the work plugins' folders. */
  home: { root: string; plugins: string; skills: string; socket: string } & WorkPaths;
  env: Record<string, string | undefined>;
  /** The home's `run/` folder, where the plugin SDK is written for a bundle or a binary. */
  runDir: string;
  /** wasmoon's wasm as a file (luaGlueFile), for Lua plugins. */
  luaWasmPath: string;
  /** HomeAgent's version: the kernel version plugins are checked against, and in `status`. */
  version: string;
  /** When the daemon started (ms since the epoch), for `status`'s uptime. */
  startedAt: number;
  /** Memory services of the restricted SDK. */
  services: PluginServices;
  memory: PluginMemory;
  /** The LLM sources' health, for `status` and the healthcheck. */
  providers: { health(): SourceHealth[] };
  /** Token use, for `status` (the last seven days, by source and by cause). */
  usage: Pick<UsageLedger, "range" | "causes">;
  /** Fail-back boot: the built-ins only, no installed plugin (the guard's choice). */
  failback?: boolean;
  /** What `status` shows of the guard (run/guard.json as of this start); none without one. */
  guard?: unknown;
}

/** The running plugins; disposing ends the MCP sessions, then stops every plugin. */
export interface DaemonPlugins extends AsyncDisposable {
  registry: PluginRegistry;
  mcp: McpPlugin;
  /** HomeAgent's MCP server over Streamable HTTP, for the web app's /mcp. */
  mcpHttp: McpHttpSessions;
  /** The home's skills, for the web app's skills panel. */
  skills: OpenedHomeSkills["port"];
  /** The full `homeagent status` report. */
  status(): Record<string, unknown>;
  /** The installed plugins fail-back boot left out (enabled ones, not started). */
  leftOut: string[];
}

/** Register the built-ins, then load them and every enabled installed plugin. */
export async function startPlugins(options: StartPluginsOptions): Promise<DaemonPlugins> {
  const { agent, config, clock, home, env, version, memory } = options;
  const registry = new PluginRegistry({
    agent,
    config,
    clock,
    logger: options.logger.child({ component: "plugins" }),
    pluginsDir: home.plugins,
    kernelVersion: version,
    env,
    // The deno and SDK for Deno plugins, whether this is the checkout, a bundle or a binary.
    ...await pluginRuntime({ runDir: options.runDir, execPath: Deno.execPath(), env }),
    luaWasmPath: options.luaWasmPath,
    services: options.services,
    failback: options.failback,
  });
  // MCP both ways (docs/mcp.md): the client (stdio servers inherit only PATH from the daemon)
  // and the server over the agent's memory tools and chat.
  const agentTools = () => agent.allTools();
  const mcp = createMcpPlugin({ config, clock, version, path: env.PATH, agentTools });
  const status = () => ({
    version,
    home: home.root,
    pid: Deno.pid,
    boot: options.failback ? "failback" : "normal",
    ...(options.guard !== undefined ? { guard: options.guard } : {}),
    uptimeMs: clock.now() - options.startedAt,
    kernel: agent.status(),
    providers: options.providers.health(),
    usage: lastWeekOfUsage(options.usage, clock.now()),
    usageReport: usageReport(options.usage, {
      now: clock.now(),
      days: 7,
      currency: config.get<string>("core.llm.currency"),
    }),
    plugins: registry.list(),
    mcp: mcp.servers(),
    memory: memory.stats(),
  });
  registry.registerFactory("mcp", () => mcp);
  const { logger } = options;
  const skills = await openHomeSkills({
    dir: home.skills,
    config,
    clock,
    logger,
    library: registry.skills,
  });
  registry.registerFactory("cli", () =>
    createCliPlugin({
      socketPath: home.socket,
      statusReport: status,
      plugins: { ...pluginControl(registry), installSkills: skills.installPinned },
      memory: {
        import: (path) => memory.importFile(path),
        forget: (name) => memory.forget.forget(name),
      },
      index: { home: home.root, directory: daemonIndex(env) },
      mcp: (channel) => mcp.serveLines(channel),
    }));
  registry.registerFactory(
    "cfgmgr",
    () => createCfgmgrPlugin({ config, plugins: () => registry.list() }),
  );
  registry.registerFactory(
    "agentcli",
    () => createAgentcliPlugin({ clock, workdir: join(home.root, "agentfs"), env }),
  );
  registry.registerFactory("healthcheck", () => healthcheckPlugin(registry, options));
  registerWorkPlugins(registry, home, { config, clock, logger, env });
  registry.registerFactory("clawhubadapter", () =>
    createClawhubAdapterPlugin({
      installer: skills.installer,
      skills: skills.home,
      searchUrl: () => config.get<string>("plugin.clawhubadapter.search_url"),
    }));
  try {
    await registry.load();
  } catch (error) {
    await registry.stopAll(); // what started before the failure
    throw error;
  }
  const mcpHttp = new McpHttpSessions({ serve: (t) => mcp.serve(t), clock });
  return {
    registry,
    mcp,
    mcpHttp,
    skills: skills.port,
    status,
    leftOut: registry.leftOut(),
    async [Symbol.asyncDispose]() {
      await mcpHttp.close();
      await registry.stopAll();
    },
  };
}

/** The healthcheck built-in over the live daemon (docs/plugins.md). */
function healthcheckPlugin(plugins: PluginRegistry, options: StartPluginsOptions) {
  const { agent, clock, memory } = options;
  return createHealthcheckPlugin({
    clock,
    probes: {
      kernel: () => {
        const s = agent.status();
        const since = s.scheduler.busySince;
        return {
          state: s.state,
          pending: s.pending,
          capacity: s.scheduler.capacity,
          stack: s.scheduler.stack.length,
          ...(since !== undefined ? { busyMs: clock.monotonic() - since } : {}),
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
      llm: () => options.providers.health(),
      disk: options.home.root,
    },
  });
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
