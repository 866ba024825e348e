/** The mcp client plugin against the reference servers from npm, run as real processes. */
import assert from "node:assert/strict";
import { parseToolArguments } from "../../../../core/mod.ts";
import { ManualClock } from "../../../fakes/clock.ts";
import { peerCommand, startEverythingHttp } from "../../../fixtures/mcp/peers.ts";
import { waitFor } from "../../host/_support.ts";
import { startMcp, toyCommand } from "./_support.ts";

Deno.test("mcp plugin offers server-everything's tools as <server>_<tool> and calls them", async () => {
  await using h = await startMcp({ everything: peerCommand("server-everything") });
  assert.equal(h.plugin.servers()[0]!.state, "ready", h.plugin.servers()[0]!.error ?? "");
  const echo = h.kernel.agent.tools.get("everything_echo")!;
  assert.equal(echo.plugin, "mcp");
  assert.match(echo.description, /^\[MCP\/everything\] /);
  assert.ok(h.tools().includes("everything_get-sum"));
  assert.deepEqual(await h.call("everything_echo", { message: "hi there" }), {
    content: "Echo: hi there",
  });
  assert.deepEqual(await h.call("everything_get-sum", { a: 2, b: 40 }), {
    content: "The sum of 2 and 40 is 42.",
  });
  // The registry validates arguments against the server's own JSON Schema before any call.
  const bad = parseToolArguments(echo, { id: "c", name: echo.name, arguments: '{"message":5}' });
  assert.equal(bad.ok, false);
  const sent = h.wire.filter((w) => w.direction === "send" && "method" in w.message);
  assert.equal(
    sent.filter((w) => (w.message as { method: string }).method === "tools/call").length,
    2,
  );
});

Deno.test("mcp plugin lists and reads resources and prompts", async () => {
  await using h = await startMcp({ everything: peerCommand("server-everything") });
  const resources = await h.call("mcp_resources", {});
  assert.equal(resources.isError, undefined, resources.content);
  const uri = /everything (\S+)/.exec(resources.content)![1]!;
  const read = await h.call("mcp_read_resource", { server: "everything", uri });
  assert.ok(read.content.startsWith(`[${uri}`), read.content);
  const prompts = await h.call("mcp_prompts", { server: "everything" });
  assert.match(prompts.content, /- everything simple-prompt\(\)/);
  const prompt = await h.call("mcp_get_prompt", { server: "everything", name: "simple-prompt" });
  assert.match(prompt.content, /^user: /);
  const none = await h.call("mcp_read_resource", { server: "nope", uri });
  assert.equal(none.isError, true);
  assert.match(none.content, /No MCP server "nope"/);
});

Deno.test("a stdio server gets only its settings' environment plus PATH", async () => {
  const toy = toyCommand();
  await using h = await startMcp({ toy: { ...toy, env: { ...toy.env, ONLY_THIS: "yes" } } });
  const env = JSON.parse((await h.call("toy_env")).content);
  assert.deepEqual(Object.keys(env).sort(), ["DENO_DIR", "ONLY_THIS", "PATH"]);
  assert.equal(env.PATH, Deno.env.get("PATH"));
});

Deno.test("server-filesystem and server-memory work through the plugin", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/note.txt`, "hello from a file");
    await using h = await startMcp({
      fs: peerCommand("server-filesystem", [dir]),
      kg: {
        ...peerCommand("server-memory"),
        env: { ...peerCommand("server-memory").env, MEMORY_FILE_PATH: `${dir}/kg.jsonl` },
      },
    });
    const read = await h.call("fs_read_text_file", { path: `${dir}/note.txt` });
    assert.equal(read.content, "hello from a file");
    const outside = await h.call("fs_read_text_file", { path: "/etc/hostname" });
    assert.equal(outside.isError, true);
    await h.call("kg_create_entities", {
      entities: [{ name: "Ada", entityType: "person", observations: ["likes tea"] }],
    });
    assert.match((await h.call("kg_search_nodes", { query: "Ada" })).content, /likes tea/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tools/list_changed re-registers the server's tools", async () => {
  await using h = await startMcp({ toy: toyCommand() });
  assert.ok(!h.tools().includes("toy_added"));
  await h.call("toy_add_tool");
  await waitFor(() => h.tools().includes("toy_added"));
  assert.deepEqual(await h.call("toy_added"), { content: "added works" });
});

Deno.test("a crashed server's tools are detached, and it is restarted with backoff", async () => {
  const clock = new ManualClock();
  await using h = await startMcp({ toy: toyCommand() }, { clock, backoffMs: [1000] });
  const pid = h.plugin.servers()[0]!.pid;
  assert.ok(pid);
  await h.call("toy_crash");
  await waitFor(() => h.plugin.servers()[0]!.state === "restarting");
  assert.deepEqual(h.tools().filter((t) => t.startsWith("toy_")), []);
  assert.match(h.plugin.servers()[0]!.error!, /connection closed/);
  clock.advance(999);
  assert.equal(h.plugin.servers()[0]!.state, "restarting");
  clock.advance(1);
  await waitFor(() => h.plugin.servers()[0]!.state === "ready", 10_000);
  assert.notEqual(h.plugin.servers()[0]!.pid, pid);
  assert.deepEqual(await h.call("toy_add_tool"), { content: "ok" });
  const restarted = await h.call("mcp_restart_server", { name: "toy" });
  assert.match(restarted.content, /^MCP server "toy" is ready; tools: .*toy_wait/);
});

Deno.test("a stopped turn cancels the call on the wire with notifications/cancelled", async () => {
  await using h = await startMcp({ toy: toyCommand() });
  const stop = new AbortController();
  const call = h.call("toy_wait", { ms: 30_000 }, stop.signal);
  await waitFor(() =>
    h.wire.some((w) => "method" in w.message && w.message.method === "tools/call")
  );
  stop.abort(new DOMException("stopped", "AbortError"));
  await assert.rejects(call);
  const request = h.wire.find((w) => "method" in w.message && w.message.method === "tools/call")!;
  const id = (request.message as { id: number }).id;
  await waitFor(() =>
    h.wire.some((w) =>
      "method" in w.message && w.message.method === "notifications/cancelled" &&
      (w.message.params as { requestId: number }).requestId === id
    )
  );
  // …and the server saw it: its handler's signal fired for that request.
  await waitFor(() =>
    h.kernel.logger.find("MCP server stderr").some((e) => e.fields.line === `cancelled ${id}`)
  );
});

Deno.test("a call past the server's timeout_ms fails and is cancelled", async () => {
  await using h = await startMcp({ toy: { ...toyCommand(), timeout_ms: 300 } });
  const result = await h.call("toy_wait", { ms: 30_000 });
  assert.equal(result.isError, true);
  assert.match(result.content, /timed out/i);
  assert.ok(
    h.wire.some((w) => "method" in w.message && w.message.method === "notifications/cancelled"),
  );
});

Deno.test("Streamable HTTP and the legacy SSE transport both reach server-everything", async () => {
  await using http = await startEverythingHttp("streamableHttp");
  await using sse = await startEverythingHttp("sse");
  await using h = await startMcp({
    web: { url: http.url },
    old: { url: sse.url, transport: "sse" },
    guess: { url: sse.url },
  });
  const [guess, old, web] = h.plugin.servers();
  assert.equal(guess!.transport, "sse", "a 4xx to the Streamable HTTP POST falls back to SSE");
  assert.equal(web!.transport, "http");
  assert.equal(old!.transport, "sse");
  assert.deepEqual(await h.call("web_echo", { message: "over http" }), {
    content: "Echo: over http",
  });
  assert.deepEqual(await h.call("old_echo", { message: "over sse" }), {
    content: "Echo: over sse",
  });
});

Deno.test("a server that cannot start is reported, not thrown, and others still run", async () => {
  await using h = await startMcp({
    gone: { command: "/nonexistent/mcp-server" },
    bad: { url: "ftp://example" },
    toy: toyCommand(),
  });
  const byName = Object.fromEntries(h.plugin.servers().map((s) => [s.name, s]));
  assert.equal(byName.gone!.state, "restarting");
  assert.match(byName.gone!.error!, /Cannot connect/);
  assert.equal(byName.bad, undefined);
  assert.ok(h.kernel.logger.find("MCP server not started").length === 1);
  assert.equal(byName.toy!.state, "ready");
});
