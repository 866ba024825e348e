/**
 * Tools by need in a real daemon (issue 16): a small-window model that needs files_edit, which
 * is not in its request, finds it with tool_search (the memory's hybrid search over every
 * tool), loads it with tool_load and calls it, all in one turn.
 */
import assert from "node:assert/strict";
import { type FakeRequest, reply } from "../fixtures/fake_llm.ts";
import { inAgentfs, startToolDaemon } from "./_daemon_chat.ts";

const toolNames = (request: FakeRequest) =>
  ((request.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

const lastTool = (request: FakeRequest) =>
  String(request.body.messages.filter((m) => m.role === "tool").at(-1)?.content ?? "");

Deno.test("A turn that needs files_edit finds it with tool_search, loads it and calls it", async () => {
  await using d = await startToolDaemon(async (home) => {
    await Deno.mkdir(inAgentfs(home), { recursive: true });
    await Deno.writeTextFile(inAgentfs(home, "hello.txt"), "greeting = hello\n");
  });
  const edit = { path: "hello.txt", edits: [{ old: "hello", new: "hej" }] };
  let found = "";
  d.server.enqueue(
    (request) => {
      const sent = toolNames(request);
      assert.ok(!sent.includes("files_edit"), "not sent to an 8k window");
      assert.ok(sent.includes("tool_search") && sent.includes("tool_load"));
      assert.ok(sent.length <= 8, `a small set: ${sent.join(", ")}`);
      return reply.toolCalls([{
        name: "tool_search",
        arguments: { query: "edit text in a file" },
      }]);
    },
    (request) => {
      found = lastTool(request);
      return reply.toolCalls([{ name: "tool_load", arguments: { names: ["files_edit"] } }]);
    },
    (request) => {
      const schema = (request.body.tools as { function: { name: string; parameters: unknown } }[])
        .find((t) => t.function.name === "files_edit");
      assert.ok(schema, "loaded: the schema is in the request");
      return reply.toolCalls([{ name: "files_edit", arguments: edit }]);
    },
    (request) => reply.text(lastTool(request)),
  );
  const answer = await d.api("/api/v1/chat?wait=1", {
    body: { text: "Change the greeting in hello.txt to hej" },
  });
  assert.equal(answer.body.status, "ok");
  const ranked = found.split("\n").filter((l) => /^\w+: /.test(l)).map((l) => l.split(":")[0]);
  assert.ok(ranked.slice(0, 3).includes("files_edit"), `found among the first: ${found}`);
  assert.match(answer.body.text, /Applied 1 edit/);
  assert.equal(await Deno.readTextFile(inAgentfs(d.home, "hello.txt")), "greeting = hej\n");
  assert.equal(d.server.requests.length, 4, "one turn, four model calls");
});
