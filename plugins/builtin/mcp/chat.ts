/**
 * The `chat` tool's way into the agent: one input per call on the `mcp` channel, its steps
 * (stages, tool calls) reported as they happen, and cancellation that stops this input alone,
 * whether it runs, is suspended or still waits in the queue.
 */
import type { PluginSDK, Reply } from "../../../core/mod.ts";

/** What the MCP server's `chat` tool needs from the kernel. */
export interface McpChat {
  /**
   * Send `text` and resolve with its one reply (status "stopped" when cancelled). Never
   * rejects; `onProgress` receives a short line for each step of the turn.
   */
  ask(
    text: string,
    options: { signal: AbortSignal; onProgress?: (message: string) => void },
  ): Promise<Reply>;
}

/** The channel chat inputs from MCP clients are answered on. */
export const MCP_CHANNEL = "mcp";

/** McpChat over a plugin's SDK. */
export function sdkChat(sdk: PluginSDK): McpChat {
  return {
    ask: (text, { signal, onProgress }) =>
      new Promise<Reply>((resolve) => {
        let inputId = "";
        const offs: (() => void)[] = [];
        if (onProgress) {
          offs.push(sdk.subscribe("stage", (e) => {
            if (e.turnId === inputId) onProgress(`stage ${e.stage}`);
          }));
          offs.push(sdk.subscribe("tool_call", (e) => {
            if (e.turnId === inputId && e.phase === "start") onProgress(`calling ${e.call.name}`);
          }));
        }
        // The kernel cancels this input alone when the signal aborts (queued, running or
        // suspended); its one reply, "stopped", still comes through onReply.
        inputId = sdk.injectInput(text, {
          channel: MCP_CHANNEL,
          signal,
          onReply: (reply) => {
            for (const off of offs.splice(0)) off();
            resolve(reply);
          },
        }).inputId;
      }),
  };
}
