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
