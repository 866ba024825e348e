/**
 * HomeAgent as an MCP server, driven by the official SDK's client: `homeagent mcp` (stdio,
 * relayed to the running daemon) and `/mcp` on the web server (Streamable HTTP).
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { QUIET_ENV, runMain, startServe } from "../fakes/daemon.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function tempHome(): Promise<string & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-mcp-server-" });
  return Object.assign(dir, {
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  }) as string & AsyncDisposable;
}

/** The SDK's client on `homeagent mcp --home HOME`, spawned by the SDK's own stdio transport. */
async function stdioClient(home: string): Promise<Client & AsyncDisposable> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--quiet", MAIN, "mcp", "--home", home],
    env: { ...QUIET_ENV, PATH: Deno.env.get("PATH") ?? "" },
    stderr: "pipe",
  });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

Deno.test("The SDK client on `homeagent mcp` recalls a fact committed in chat, and chats", async () => {
  await using llm = startFakeOpenAI();
  llm.enqueue(
    reply.toolCalls([{
      name: "memory_commit",
      arguments: { triples: [{ subject: "Alice", predicate: "lives_in", object: "Paris" }] },
    }]),
    reply.text("Noted: Alice lives in Paris."),
  );
  await using home = await tempHome();
  await using _daemon = await startServe(`${home}`, {
    HOMEAGENT_LLM_BASE_URL: llm.url,
    HOMEAGENT_LLM_MODEL: "fake-model",
  });
  const chat = await runMain(["chat", "--home", `${home}`, "My sister Alice lives in Paris"]);
  assert.equal(chat.code, 0, chat.stderr);

  await using client = await stdioClient(`${home}`);
  const { tools } = await client.listTools();
  const byName = new Map<string, Tool>(tools.map((t: Tool) => [t.name, t]));
  assert.equal(byName.get("memory_recall")?.annotations?.readOnlyHint, true);
  assert.equal(byName.get("person_query")?.annotations?.readOnlyHint, true);
  assert.equal(byName.get("memory_commit")?.annotations?.readOnlyHint, false);
  assert.equal(byName.get("chat")?.annotations?.readOnlyHint, false);
  const recalled = await client.callTool({
    name: "memory_recall",
    arguments: { keywords: ["Alice"] },
  });
  assert.match(text(recalled), /Alice.*lives_in.*Paris/);

  llm.enqueue(reply.text("Hello from the agent"));
  const progress: string[] = [];
  const answered = await client.callTool({ name: "chat", arguments: { text: "hi" } }, undefined, {
    onprogress: (p: { message?: string }) => progress.push(p.message ?? ""),
  });
  assert.equal(text(answered), "Hello from the agent");
  // Each step went out before the reply. (The SDK client drops a progress notification that
  // arrives in the same read as the response, so under load only the first ones may show.)
  assert.equal(progress[0], "stage on_input", progress.join(", "));
  assert.ok(progress.every((p) => /^(stage \w+|calling \w+)$/.test(p)), progress.join(", "));
  const bad = await client.callTool({ name: "memory_recall", arguments: { keywords: "x" } });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /Invalid arguments/);
});

Deno.test("Cancelling the chat tool stops that turn in the daemon", async () => {
  await using llm = startFakeOpenAI();
  llm.enqueue(reply.slowText("word ".repeat(400), { chunkDelayMs: 25, chunkSize: 5 }));
  await using home = await tempHome();
  await using _daemon = await startServe(`${home}`, {
    HOMEAGENT_LLM_BASE_URL: llm.url,
    HOMEAGENT_LLM_MODEL: "fake-model",
  });
  await using client = await stdioClient(`${home}`);
  const stop = new AbortController();
  const call = client.callTool({ name: "chat", arguments: { text: "talk a lot" } }, undefined, {
    signal: stop.signal,
  });
  await llm.waitForRequests(1, 10_000);
  stop.abort();
  await assert.rejects(call);
  await llm.waitForAborts(1, 10_000);
  const status = JSON.parse((await runMain(["status", "--home", `${home}`])).stdout);
  assert.equal(status.kernel.state, "idle");
});

Deno.test("/mcp serves the SDK's Streamable HTTP client with the token, and refuses without", async () => {
  await using home = await tempHome();
  await using daemon = await startServe(`${home}`);
  const { origin, searchParams } = new URL(daemon.url);
  const token = searchParams.get("token")!;
  const url = new URL("/mcp", origin);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  const { tools } = await client.listTools();
  assert.ok(tools.some((t: Tool) => t.name === "doc_query"));
  const found = await client.callTool({ name: "doc_query", arguments: { query: "anything" } });
  assert.equal(found.isError, false);
  await client.close();

  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "x", version: "1" },
    },
  });
  const post = (headers: Record<string, string>) =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: initialize,
    }).then(async (r) => ({ status: r.status, body: await r.text() }));
  assert.equal((await post({})).status, 401);
  const evil = await post({ authorization: `Bearer ${token}`, origin: "http://evil.example" });
  assert.equal(evil.status, 403);
  assert.equal(
    JSON.parse(evil.body).error.message,
    `Origin "http://evil.example" is not this server's`,
  );
  const unknown = await post({ authorization: `Bearer ${token}`, "mcp-session-id": "nope" });
  assert.equal(unknown.status, 404);
});

Deno.test("`homeagent mcp` without a daemon says how to start one, and prints nothing on stdout", async () => {
  await using home = await tempHome();
  const result = await runMain(["mcp", "--home", `${home}`], { stdin: "" });
  assert.equal(result.code, 1);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /No HomeAgent daemon is running for home .*serve/);
});
