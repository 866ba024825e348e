/** A test kernel with the mcp plugin started over configured servers. */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Clock, ToolResult } from "../../../../core/mod.ts";
import { systemClock } from "../../../../adapters/mod.ts";
import { createMcpPlugin, type McpPlugin, registerMcpDefaults } from "../../../../plugins/mod.ts";
import { createTestKernel, type TestKernel } from "../../../fakes/kernel.ts";
import { startPlugin } from "../../../fakes/plugin_host.ts";
import { callTool } from "../../host/_support.ts";

/** The repo's deno.json, for fixtures that import the SDK by its bare name. */
export const CONFIG = new URL("../../../../deno.json", import.meta.url).pathname;

/** The toy server's stdio command. */
export function toyCommand() {
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "-A",
      "--quiet",
      "--cached-only",
      "--no-lock",
      `--config=${CONFIG}`,
      new URL("../../../fixtures/mcp/toy_server.ts", import.meta.url).pathname,
    ],
    env: { DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno` },
  };
}

/** One message on the wire, as the client's stdio transport wrote or read it. */
export interface WireMessage {
  server: string;
  direction: "send" | "receive";
  message: JSONRPCMessage;
}

/** A kernel plus the mcp plugin. */
export interface McpHarness extends AsyncDisposable {
  kernel: TestKernel;
  plugin: McpPlugin;
  wire: WireMessage[];
  call(name: string, args?: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult>;
  tools(): string[];
}

/** Configure `servers` (name → settings under plugin.mcp.servers.<name>) and start the plugin. */
export async function startMcp(
  servers: Record<string, Record<string, unknown>>,
  options: { clock?: Clock; backoffMs?: number[] } = {},
): Promise<McpHarness> {
  const kernel = createTestKernel();
  const registry = kernel.config.registry;
  registerMcpDefaults(registry);
  for (const [name, settings] of Object.entries(servers)) {
    for (const [key, value] of Object.entries(settings)) {
      registry.set(`plugin.mcp.servers.${name}.${key}`, value);
    }
  }
  const wire: WireMessage[] = [];
  const plugin = createMcpPlugin({
    config: registry,
    clock: options.clock ?? systemClock,
    version: "0.1.0",
    path: Deno.env.get("PATH"),
    trace: (server, direction, message) => wire.push({ server, direction, message }),
    backoffMs: options.backoffMs,
  });
  const started = await startPlugin(plugin, {
    agent: kernel.agent,
    config: registry,
    logger: kernel.logger,
  });
  await plugin.settled();
  return {
    kernel,
    plugin,
    wire,
    call: (name, args = {}, signal) => callTool(kernel, name, args, signal),
    tools: () => kernel.agent.tools.list().filter((t) => t.plugin === "mcp").map((t) => t.name),
    async [Symbol.asyncDispose]() {
      await started.stop();
      await kernel[Symbol.asyncDispose]();
    },
  };
}
