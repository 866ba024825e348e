/** A hostile MCP server's endless pages: the client's listing is bounded in pages, not items only. */
import assert from "node:assert/strict";
import { startMcp } from "./_support.ts";
import { serveEndlessAnswer } from "../../../fixtures/endless_answer.ts";

const endless = {
  command: Deno.execPath(),
  args: [
    "run",
    "--quiet",
    new URL("../../../fixtures/mcp/endless_pages.ts", import.meta.url).pathname,
  ],
  env: { DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno` },
};

Deno.test("a server whose tools/list never ends is refused after 100 pages, with the reason", async () => {
  // Empty pages with a fresh cursor each: the old pager counted items only, so it asked 5,000
  // times (for ever, against a server that never stops) and the plugin never settled.
  await using h = await startMcp({ endless });
  const asked =
    h.wire.filter((w) =>
      w.direction === "send" && (w.message as { method?: string }).method === "tools/list"
    ).length;
  assert.ok(asked <= 100, `asked for ${asked} pages`);
  const server = h.plugin.servers()[0]!;
  assert.notEqual(server.state, "ready");
  assert.match(server.error ?? "", /more than 100 pages of tools/);
});

Deno.test("an HTTP server's endless SSE line ends the connection at 16 MiB", async () => {
  // initialize answered with one SSE `data:` line that never ends (64 MiB offered, pulled on
  // demand): the SDK's parser held the partial line whole, so the old client read all of it.
  await using server = serveEndlessAnswer({
    piece: new Uint8Array(1024 * 1024).fill(0x78),
    times: 64,
    prefix: "data: ",
    headers: { "content-type": "text/event-stream" },
    before: (request) =>
      request.method === "POST" ? undefined : new Response(null, { status: 405 }),
  });
  await using h = await startMcp({
    long: { url: `${server.origin}/mcp`, transport: "http" },
  });
  assert.ok(server.pulled < 40 * 1024 * 1024, `pulled ${server.pulled} bytes`);
  const info = h.plugin.servers()[0]!;
  assert.notEqual(info.state, "ready");
  assert.match(info.error ?? "", /longer than 16777216 bytes/);
});
