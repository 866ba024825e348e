/** Shared set-up of the plugin tests: a test kernel, a temp plugins folder with fixtures copied in, a registry. */
import { join } from "node:path";
import {
  type Clock,
  type RegisteredTool,
  type StageContext,
  type StageName,
  type ToolResult,
} from "../../../core/mod.ts";
import { executeTool } from "../../../core/mod.ts";
import { systemClock } from "../../../adapters/mod.ts";
import {
  defaultImportMap,
  PluginRegistry,
  type PluginRegistryOptions,
  registerPluginDefaults,
} from "../../../plugins/mod.ts";
import { createTestKernel, type TestKernel, type TestSource } from "../../fakes/kernel.ts";
import type { MediaStore } from "../../../core/mod.ts";

/** Folder of the example plugins. */
export const FIXTURES = new URL("../../fixtures/plugins/", import.meta.url).pathname;

/** Names that must never reach the disk as a plugin name (issue 11: `plugin uninstall ../..`). */
export const TRAVERSAL_NAMES = [
  "..",
  "../..",
  "../../..",
  ".",
  "",
  "/",
  "/tmp",
  "a/b",
  "a\\b",
  "x\0y",
  "x".repeat(65),
  ".install-echo-12345678",
  "Echo",
];

/** A kernel plus a registry over a temp plugins folder. */
export interface PluginHarness extends AsyncDisposable {
  kernel: TestKernel;
  registry: PluginRegistry;
  pluginsDir: string;
  /** Call a registered tool as the turn loop would. */
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
}

/** Copy fixture `name` (or a whole folder) into `pluginsDir/<as>`. */
export async function copyFixture(pluginsDir: string, name: string, as = name): Promise<string> {
  const target = join(pluginsDir, as);
  await copyDir(join(FIXTURES, name), target);
  return target;
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyDir(join(from, entry.name), join(to, entry.name));
    else await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

/** Build a harness; `fixtures` are copied into the plugins folder before load(). */
export async function createHarness(
  fixtures: string[],
  options: Partial<PluginRegistryOptions> & {
    clock?: Clock;
    load?: boolean;
    sources?: TestSource[];
    media?: MediaStore;
  } = {},
): Promise<PluginHarness> {
  const kernel = createTestKernel({
    clock: options.clock,
    sources: options.sources,
    media: options.media,
  });
  registerPluginDefaults(kernel.config.registry);
  const pluginsDir = await Deno.makeTempDir({ prefix: "homeagent_plugins_" });
  for (const name of fixtures) await copyFixture(pluginsDir, name);
  const registry = new PluginRegistry({
    agent: kernel.agent,
    config: kernel.config.registry,
    clock: options.clock ?? systemClock,
    logger: kernel.logger,
    pluginsDir,
    kernelVersion: "0.1.0",
    importMap: defaultImportMap(),
    env: { HOME: "/root", SECRET_TOKEN: "s3cret", DENO_DIR: Deno.env.get("DENO_DIR") },
    graceMs: 500,
    ...options,
  });
  if (options.load !== false) await registry.load();
  return {
    kernel,
    registry,
    pluginsDir,
    call: (name, args = {}) => callTool(kernel, name, args),
    async [Symbol.asyncDispose]() {
      await registry.stopAll();
      await kernel[Symbol.asyncDispose]();
      await Deno.remove(pluginsDir, { recursive: true }).catch(() => {});
    },
  };
}

/** Execute tool `name` through executeTool, as a turn does. */
export async function callTool(
  kernel: TestKernel,
  name: string,
  args: Record<string, unknown> = {},
  signal: AbortSignal = new AbortController().signal,
): Promise<ToolResult> {
  const tool: RegisteredTool | undefined = kernel.agent.allTools().find((t) => t.name === name);
  if (!tool) return { content: `no tool ${name}`, isError: true };
  return await executeTool(tool, args, { id: "call-1", name, arguments: JSON.stringify(args) }, {
    clock: systemClock,
    logger: kernel.logger,
    turnId: "turn-1",
    signal,
    defaultTimeoutMs: 10_000,
  });
}

/** Poll `predicate` every 10 ms until true or `ms` pass. */
export async function waitFor(predicate: () => boolean, ms = 5000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > ms) throw new Error("Condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A fresh stage context for input `text`, as a turn builds it. */
export function stageContext(stage: StageName, text: string): StageContext {
  return {
    stage,
    turnId: "t1",
    input: {
      id: "t1",
      text,
      source: "test",
      channel: "test",
      priority: 0,
      interrupt: false,
      receivedAt: 0,
      meta: {},
    },
    systemMessages: [],
    shared: new Map(),
  };
}
