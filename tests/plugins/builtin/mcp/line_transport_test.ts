import assert from "node:assert/strict";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { CliLineChannel } from "../../../../plugins/builtin/cli/server.ts";
import { LineTransport } from "../../../../plugins/builtin/mcp/line_transport.ts";

Deno.test("LineTransport keeps the lines that arrive while the SDK loads, and a close", async () => {
  const channel: CliLineChannel = { send: () => {}, close: () => {} };
  const transport = new LineTransport(channel);
  const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
  channel.onLine?.(JSON.stringify(ping)); // the client speaks first; start() has not run yet
  channel.onLine?.(JSON.stringify({ ...ping, id: 2 }));
  channel.onClose?.();
  const received: JSONRPCMessage[] = [];
  let closed = false;
  transport.onmessage = (message) => received.push(message);
  transport.onclose = () => closed = true;
  await transport.start();
  assert.deepEqual(received, [ping, { ...ping, id: 2 }]);
  assert.equal(closed, true);
});
