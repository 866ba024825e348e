/** Shared set-up of the browser tests: the app in-process over a real Agent, and Debian chromium. */
import { type Browser, chromium } from "playwright-core";
import { RecentContext } from "../../core/mod.ts";
import { GraphDB } from "../../memory/mod.ts";
import { TextLog } from "../../memory/log/text_log.ts";
import { spaceLayers } from "../../memory/space_status.ts";
import {
  agentChatPort,
  agentEventsPort,
  createApp,
  EventHub,
  type KnowledgePort,
  memoryPort,
  type PluginsPort,
  type PluginView,
  registrySettingsPort,
  webOutputChannel,
} from "../../web/mod.ts";
import { createProviderFactory, createSourceProbe, systemClock } from "../../adapters/mod.ts";
import { homePaths, modelSetup, personaFile, registerMemoryDefaults } from "../../memory/mod.ts";
import { type FakeLLMServer, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { createTestKernel, type TestKernel } from "../fakes/kernel.ts";
import { fakeWeb, TOKEN } from "./_deps.ts";

/** Where screenshots go (gitignored). */
export const ARTIFACTS = new URL("../artifacts/web/", import.meta.url).pathname;

/** Chromium flags that work in containers (RECIPES §10). */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

/** Launch Debian's chromium headless. */
export function launchChromium() {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_ARGS,
  });
}

/** The web app served on 127.0.0.1 over a real Agent, graph and config. */
export interface ServedApp extends AsyncDisposable {
  base: string;
  llm: FakeLLMServer;
  kernel: TestKernel;
  graph: GraphDB;
  /** The text log every turn is written to (the chat's history). */
  log: TextLog;
}

/** Three plugins as the registry lists them: a built-in, a crashing program, a disabled Lua one. */
function listedPlugins(port: PluginsPort): PluginsPort {
  const plugins: PluginView[] = [
    { name: "healthcheck", kind: "builtin", state: "running", tools: ["health_check"] },
    {
      name: "weather",
      kind: "subprocess",
      version: "1.2.0",
      state: "failed",
      crashes: 3,
      error: 'Plugin "weather" exited with code 1',
    },
    { name: "notes", kind: "lua", version: "0.3.0", state: "disabled" },
  ];
  return { ...port, list: () => plugins };
}

/** A knowledge base in memory with one entry. */
function memoryKnowledge(): KnowledgePort {
  const entries = new Map([["recipes/tea", "# Green tea\n\n80 °C, **two** minutes."]]);
  const entry = (name: string) => ({
    name,
    title: name.split("/").at(-1),
    content: entries.get(name),
  });
  return {
    list: () => Promise.resolve([...entries.keys()].map((name) => ({ name, title: name }))),
    get: (name) => Promise.resolve(entries.has(name) ? entry(name) : undefined),
    create(name, content) {
      entries.set(name, content);
      return Promise.resolve(entry(name));
    },
    update(name, content) {
      entries.set(name, content);
      return Promise.resolve(entry(name));
    },
  };
}

/** The setup screen's parts over the kernel's registry, with persona.md and models in `dir`. */
function setupParts(kernel: TestKernel, dir: string) {
  const config = kernel.config.registry;
  registerMemoryDefaults(config);
  const probe = createSourceProbe({
    factory: createProviderFactory({ clock: systemClock, logger: kernel.logger }),
  });
  const paths = homePaths(dir);
  return {
    models: probe.models,
    test: probe.test,
    persona: personaFile(paths.persona),
    memoryModel: modelSetup({ paths, config, clock: systemClock, logger: kernel.logger }),
  };
}

/** Serve the app on a free port. */
export async function serveApp(): Promise<ServedApp> {
  const llm = startFakeOpenAI();
  const kernel = createTestKernel({ sources: [{ name: "fake", server: llm }] });
  const graph = GraphDB.open({ path: ":memory:", clock: systemClock });
  const logDir = await Deno.makeTempDir({ prefix: "homeagent-browser-log-" });
  const log = await TextLog.open({ dir: logDir, clock: systemClock });
  const logTurn = log.stageHandler();
  for (const stage of ["after_toolcall", "after_output"] as const) {
    kernel.agent.stages.register(stage, logTurn, { plugin: "core" });
  }
  const hub = new EventHub({ clock: systemClock });
  const setup = setupParts(kernel, logDir);
  const unsubscribe = kernel.agent.events.subscribe("*", (e) => hub.publish(e));
  kernel.agent.outputs.register(webOutputChannel({ hub, clock: systemClock }));
  const app = createApp({
    token: TOKEN,
    clock: systemClock,
    // As the daemon's status reports a fresh home's words-only vector space.
    status: () => ({
      kernel: kernel.agent.status(),
      memory: {
        embedding: {
          fingerprint: "hash-ngram:v1:512",
          semantic: false,
          layers: spaceLayers("hash", []),
          reembed: { state: "done", done: 0, total: 0 },
        },
      },
    }),
    chat: agentChatPort(kernel.agent),
    events: agentEventsPort(kernel.agent),
    history: log,
    questions: kernel.agent.questions,
    // Plugins whose sections read no routes of their own (work_browser_test.ts drives those
    // over a real daemon), and a knowledge base in memory.
    plugins: listedPlugins(fakeWeb().deps.plugins!),
    knowledge: memoryKnowledge(),
    settings: registrySettingsPort(kernel.config.registry),
    memory: memoryPort({
      graph,
      context: {
        events: () =>
          kernel.agent.context instanceof RecentContext ? kernel.agent.context.events() : [],
      },
      documents: () => Promise.resolve([]),
    }),
    llm: { sources: () => kernel.providers.health(), usage: () => [] },
    setup,
    agents: { list: () => [] },
    skills: {
      list: () => [{
        name: "tea",
        description: "Brew green tea",
        source: "npm:tea-skill@1.0.0",
        files: [],
      }],
      review: () => Promise.reject(new Error("no registry in this test")),
      install: () => Promise.reject(new Error("no registry in this test")),
      remove: () => Promise.resolve(),
    },
  }, { hub });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    llm,
    kernel,
    graph,
    log,
    async [Symbol.asyncDispose]() {
      unsubscribe();
      hub.close();
      await server.shutdown();
      await kernel[Symbol.asyncDispose]();
      await log.close();
      await Deno.remove(logDir, { recursive: true });
      graph.close();
      await llm.close();
    },
  };
}

/** A test that serves the app and drives it in chromium; the browser is closed after. */
export function browserTest(
  name: string,
  body: (browser: Browser, served: ServedApp) => Promise<void>,
): void {
  Deno.test({
    name,
    sanitizeResources: false, // chromium's pipes belong to playwright's own lifecycle
    sanitizeOps: false,
    async fn() {
      await Deno.mkdir(ARTIFACTS, { recursive: true });
      await using served = await serveApp();
      const browser = await launchChromium();
      try {
        await body(browser, served);
      } finally {
        await browser.close();
      }
    },
  });
}
