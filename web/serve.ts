/**
 * The web plugin in the daemon: the address it listens on (checked before anything else starts),
 * and the server over createApp with the ports built from the kernel's objects. createApp itself
 * never listens, so route tests need no port; this is the one place that calls Deno.serve.
 */
import {
  type Agent,
  type Clock,
  type ConfigRegistry,
  errorMessage,
  type GraphStore,
  HomeAgentError,
  type KnowledgeBase,
  lastWeekOfUsage,
  type Logger,
  type MediaStore,
  type MemoryForgetter,
  type RelevanceContext,
  UsageError,
  type UsageLedger,
  usageReport,
} from "../core/mod.ts";
import { createApp } from "./app.ts";
import { bindRefusal, isLoopbackHost } from "./auth.ts";
import type { EventHub } from "./event_hub.ts";
import type {
  AgentsPort,
  HistoryPort,
  McpPort,
  PluginsPort,
  SetupPort,
  SkillsPort,
  SourceView,
} from "./ports.ts";
import {
  agentChatPort,
  agentEventsPort,
  documentReader,
  type DocumentSource,
  documentsPort,
  knowledgeBasePort,
  memoryPort,
  registrySettingsPort,
} from "./agent_ports.ts";

/** Where the web app listens and the token it asks for. */
export interface WebAddress {
  host: string;
  port: number;
  token: string;
}

/**
 * The address from `--host`/`--port` or core.web.*, with a token made on first start. Throws
 * UsageError for a bad port or an unsafe bind, HomeAgentError when the port is taken: that is
 * said now, with what to do, rather than after the plugins are up.
 */
export function webAddress(
  registry: ConfigRegistry,
  flags: { host?: string; port?: string } = {},
): WebAddress {
  if (registry.get<string>("core.web.token") === "") {
    registry.set("core.web.token", crypto.randomUUID().replaceAll("-", ""));
  }
  const token = registry.get<string>("core.web.token");
  const host = flags.host ?? registry.get<string>("core.web.host");
  const port = flags.port !== undefined
    ? Number(flags.port)
    : registry.get<number>("core.web.port");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`Invalid --port "${flags.port}": expected an integer 0-65535`);
  }
  const refusal = bindRefusal(host, token);
  if (refusal) throw new UsageError(refusal);
  checkPortFree(host, port);
  return { host, port, token };
}

function checkPortFree(host: string, port: number): void {
  if (port === 0) return;
  try {
    Deno.listen({ hostname: host, port }).close();
  } catch (error) {
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

/** What the daemon's web app shows and drives. */
export interface ServeWebOptions {
  address: WebAddress;
  clock: Clock;
  logger: Logger;
  config: ConfigRegistry;
  /** The main agent and its residents. */
  kernel: { agent: Agent; residents: AgentsPort };
  /**
   * Plugin management, the `homeagent status` report, and HomeAgent's MCP server at /mcp (its
   * sessions are closed before the server shuts down: an open session stream would hold it).
   */
  plugins: {
    registry: PluginsPort;
    status(): unknown;
    mcpHttp?: McpPort & { close(): Promise<void> };
    skills?: SkillsPort;
  };
  /** The live stream (openWebHub); closed before the server, so open event streams end. */
  hub: EventHub;
  memory: {
    /** The conversation the chat shows (the text log). */
    history: HistoryPort;
    graph: GraphStore;
    context: RelevanceContext;
    documents: DocumentSource;
    knowledge: KnowledgeBase;
    /** Uploads, images in chat and on the OpenAI endpoint. */
    media?: MediaStore;
    forget?: MemoryForgetter;
  };
  providers: { health(): SourceView[] };
  usage: Pick<UsageLedger, "range" | "causes">;
  /** The setup screen: source probes, the persona, the memory model. */
  setup?: SetupPort;
}

/** The listening web app; disposing ends the SSE streams, then shuts the server down. */
export interface WebServer extends AsyncDisposable {
  /** `http://HOST:PORT/?token=TOKEN`, the line `serve` prints. */
  url: string;
  port: number;
}

/** Serve the web app on `options.address`. */
export function serveWeb(options: ServeWebOptions): WebServer {
  const { clock, memory, address, providers, usage } = options;
  const { agent } = options.kernel;
  const { hub } = options;
  const app = createApp({
    token: address.token,
    clock,
    logger: options.logger.child({ component: "web" }),
    status: () => options.plugins.status(),
    chat: agentChatPort(agent),
    events: agentEventsPort(agent),
    history: memory.history,
    settings: registrySettingsPort(options.config),
    memory: memoryPort({
      graph: memory.graph,
      context: memory.context,
      documents: documentsPort(memory.documents),
      document: documentReader(memory.documents),
      forget: memory.forget,
    }),
    plugins: options.plugins.registry,
    llm: {
      sources: () => providers.health(),
      usage: () => lastWeekOfUsage(usage, clock.now()).reverse(),
      report: (days) =>
        usageReport(usage, {
          now: clock.now(),
          days,
          currency: options.config.get<string>("core.llm.currency"),
        }),
    },
    knowledge: knowledgeBasePort(memory.knowledge),
    agents: options.kernel.residents,
    mcp: options.plugins.mcpHttp,
    localOnly: isLoopbackHost(address.host),
    questions: agent.questions,
    pluginRoutes: agent.routes,
    skills: options.plugins.skills,
    media: memory.media,
    setup: options.setup,
  }, { hub });
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve(
      { hostname: address.host, port: address.port, onListen: () => {} },
      (request, info) => app.fetch(request, { remoteAddr: info.remoteAddr }),
    );
  } catch (error) {
    const hint = error instanceof Deno.errors.AddrNotAvailable
      ? "; pass --host (or set core.web.host) to an address of this machine"
      : "";
    throw new HomeAgentError(
      "listen_failed",
      `Cannot listen on ${address.host}:${address.port}: ${errorMessage(error)}${hint}`,
      { cause: error },
    );
  }
  const shown = address.host.includes(":") ? `[${address.host}]` : address.host;
  return {
    url: `http://${shown}:${server.addr.port}/?token=${address.token}`,
    port: server.addr.port,
    async [Symbol.asyncDispose]() {
      hub.close(); // open event streams end, so shutdown can finish
      await options.plugins.mcpHttp?.close();
      await server.shutdown();
    },
  };
}
