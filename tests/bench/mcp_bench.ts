/**
 * MCP figures.
 *
 * `mcp_tool_call_p50_ms`: one `everything_echo` call at a time through the mcp plugin's
 * registered tool handler: kernel → the SDK client → JSON-RPC `tools/call` on the stdio of a
 * real server-everything process (from npm) → its answer parsed and flattened → the promise
 * resolves. 50 warm-up calls, then 1,000 samples.
 */
import { peerCommand } from "../fixtures/mcp/peers.ts";
import { startMcp } from "../plugins/builtin/mcp/_support.ts";
import { type Figure, quantile, round } from "./_figure.ts";

const WARMUP = 50;
const SAMPLES = 1000;

async function toolCall(): Promise<Record<string, Figure>> {
  await using h = await startMcp({ everything: peerCommand("server-everything") });
  const echo = h.kernel.agent.tools.get("everything_echo");
  if (!echo) throw new Error(`everything_echo is not registered: ${h.plugin.servers()[0]?.error}`);
  const context = { signal: new AbortController().signal, turnId: "bench", callId: "c" };
  const args = { message: "ping" };
  for (let i = 0; i < WARMUP; i++) await echo.handler(args, context);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now();
    await echo.handler(args, context);
    samples.push(performance.now() - start);
  }
  return {
    mcp_tool_call_p50_ms: { value: round(quantile(samples, 0.5), 3), unit: "ms" },
    mcp_tool_call_p99_ms: { value: round(quantile(samples, 0.99), 3), unit: "ms" },
  };
}

/** The MCP figures. */
export const figures: Record<string, () => Promise<Figure | Record<string, Figure>>> = {
  "mcp_tool_call_p50_ms": toolCall,
  "mcp_tool_call_p99_ms": toolCall,
};
