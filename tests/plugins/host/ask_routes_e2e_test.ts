/**
 * Protocol 1.1 over a real daemon: a subprocess plugin asks the owner (`owner.ask`), answered
 * over HTTP or cancelled by a stopped turn, and offers web routes (`route.register`, `route.call`)
 * whose refusals keep their status. A plugin without the capability is refused.
 */
import assert from "node:assert/strict";
import { runMain } from "../../fakes/daemon.ts";
import { type PluginDaemon, startPluginDaemon } from "../builtin/_daemon.ts";

interface Question {
  id: string;
  plugin: string;
  title: string;
  detail: string;
  turnId?: string;
}

async function nextQuestion(d: PluginDaemon): Promise<Question> {
  for (let i = 0; i < 400; i++) {
    const list = (await d.api("/api/v1/questions")).body.questions as Question[];
    if (list.length > 0) return list[0]!;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("No question was asked");
}

Deno.test("A subprocess plugin asks the owner over the protocol, and its routes answer the web", async () => {
  await using d = await startPluginDaemon({ plugins: ["asker", "echo"] });
  const approved = d.toolRun([{ name: "asker_do", arguments: { what: "water the plants" } }]);
  const q = await nextQuestion(d);
  assert.deepEqual([q.plugin, q.title, q.detail], ["asker", "Do it?", "water the plants"]);
  assert.ok(q.turnId, "the question names the turn of its tool call");
  assert.equal((await d.api(`/api/v1/questions/${q.id}`, { approve: true })).status, 200);
  assert.deepEqual(await approved, ["did water the plants"]);

  const denied = d.toolRun([{ name: "asker_do", arguments: { what: "sell the car" } }]);
  await d.api(`/api/v1/questions/${(await nextQuestion(d)).id}`, { approve: false });
  assert.deepEqual(await denied, ["not done: denied"]);

  const done = await d.api("/api/v1/plugins/asker/done");
  assert.deepEqual(done.body, {
    done: [
      { what: "water the plants", answer: "approved" },
      { what: "sell the car", answer: "denied" },
    ],
  });
  const one = await d.api("/api/v1/plugins/asker/done/1?why=test");
  assert.deepEqual(one.body, {
    entry: { what: "sell the car", answer: "denied" },
    query: { why: "test" },
  });
  const missing = await d.api("/api/v1/plugins/asker/done/7");
  assert.equal(missing.status, 404);
  assert.match(String((missing.body.error as { message: string }).message), /number 7/);
  const conflict = await d.api("/api/v1/plugins/asker/done/0/undo", { reason: "test" });
  assert.equal(conflict.status, 409);
  assert.match(
    String((conflict.body.error as { message: string }).message),
    /^Plugin "asker": Cannot undo 0: \{"reason":"test"\}/,
  );

  // Without the "ask" capability (echo declares none), owner.ask is refused.
  const [refused] = await d.toolRun([
    { name: "echo_call", arguments: { method: "owner.ask", params: { title: "May I?" } } },
  ]);
  assert.match(refused!, /"code":-32001.*capability \\"ask\\" is not declared/);
  assert.deepEqual((await d.api("/api/v1/questions")).body.questions, []);
});

Deno.test("A stopped turn cancels the question a subprocess plugin asked for its tool call", async () => {
  await using d = await startPluginDaemon({ plugins: ["asker"] });
  const stopped = d.toolRun([{ name: "asker_do", arguments: { what: "take a nap" } }]);
  await nextQuestion(d);
  const stop = await runMain(["stop", "--home", d.home]);
  assert.equal(stop.code, 0, stop.stderr);
  await stopped;
  for (let i = 0; i < 400; i++) {
    const done = (await d.api("/api/v1/plugins/asker/done")).body.done as unknown[];
    if (done.length > 0) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.deepEqual((await d.api("/api/v1/plugins/asker/done")).body, {
    done: [{ what: "take a nap", answer: "cancelled" }],
  });
  assert.deepEqual((await d.api("/api/v1/questions")).body.questions, []);
});
