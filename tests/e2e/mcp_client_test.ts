/** A real daemon whose scripted model calls a tool of server-everything (a real MCP server). */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { runMain, startServe } from "../fakes/daemon.ts";
import { peerCommand } from "../fixtures/mcp/peers.ts";

/** Set `plugin.mcp.servers.<name>.<key>` in `home` through the command line, as a user would. */
async function configure(home: string, name: string, settings: Record<string, unknown>) {
  for (const [key, value] of Object.entries(settings)) {
    const text = typeof value === "string" ? value : JSON.stringify(value);
    const set = await runMain([
      "config",
      "set",
      `plugin.mcp.servers.${name}.${key}`,
      text,
      "--home",
      home,
    ]);
    assert.equal(set.code, 0, set.stderr);
  }
}

/** Poll `status` until the MCP server `name` is ready. */
async function waitReady(home: string, name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const status = await runMain(["status", "--home", home]);
    const server = JSON.parse(status.stdout).mcp?.find((s: { name: string }) => s.name === name);
    if (server?.state === "ready") return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`MCP server "${name}" never became ready`);
}

Deno.test("The daemon's model calls server-everything's echo through the mcp plugin", async () => {
  await using llm = startFakeOpenAI();
  let found = "";
  llm.enqueue(
    // A small window is sent a few tools; the MCP server's are found with tool_search.
    reply.toolCalls([{
      id: "call_0",
      name: "tool_search",
      arguments: { query: "echo a message" },
    }]),
    (request) => {
      found = String(request.body.messages.at(-1)!.content);
      return reply.toolCalls([
        { id: "call_1", name: "everything_echo", arguments: { message: "ping" } },
      ]);
    },
    (request) => reply.text(`tool said: ${request.body.messages.at(-1)!.content}`),
  );
  const home = await Deno.makeTempDir({ prefix: "homeagent-mcp-e2e-" });
  try {
    await configure(home, "everything", peerCommand("server-everything"));
    await using daemon = await startServe(home, {
      HOMEAGENT_LLM_BASE_URL: llm.url,
      HOMEAGENT_LLM_MODEL: "fake-model",
    });
    await waitReady(home, "everything");
    const chat = await runMain(["chat", "--home", home, "echo ping please"]);
    assert.equal(chat.code, 0, chat.stderr);
    assert.equal(chat.stdout, "tool said: Echo: ping\n");
    assert.match(found, /^everything_echo: /m, "tool_search finds the MCP server's tool");
    const toolMessage = llm.requests[2]!.body.messages.at(-1)!;
    assert.equal(toolMessage.role, "tool");
    assert.equal(toolMessage.tool_call_id, "call_1");
    const stopped = await daemon.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
