/** A hostile MCP server's endless pages: the client's listing is bounded in pages, not items only. */
import assert from "node:assert/strict";
import { startMcp } from "./_support.ts";

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
  const piece = new Uint8Array(1024 * 1024).fill(0x78);
  let pulled = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    if (request.method !== "POST") return new Response(null, { status: 405 });
    let sent = 0;
    return new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode("data: "));
          if (sent++ >= 64) return controller.close();
          pulled += piece.length;
          controller.enqueue(piece);
        },
      }, { highWaterMark: 0 }),
      { headers: { "content-type": "text/event-stream" } },
    );
  });
  try {
    await using h = await startMcp({
      long: { url: `http://127.0.0.1:${server.addr.port}/mcp`, transport: "http" },
    });
    assert.ok(pulled < 40 * 1024 * 1024, `pulled ${pulled} bytes`);
    const info = h.plugin.servers()[0]!;
    assert.notEqual(info.state, "ready");
    assert.match(info.error ?? "", /longer than 16777216 bytes/);
  } finally {
    await server.shutdown();
  }
});
