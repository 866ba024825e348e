import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain } from "../fakes/daemon.ts";
import { startToolDaemon } from "./_daemon_chat.ts";

Deno.test("timer: a real daemon keeps timers in timers.json and fires a missed one late after a restart", async () => {
  await using d = await startToolDaemon();
  assert.match(
    await d.call("timer_set", { duration: "2h", message: "water the plants" }),
    /^Timer [a-z0-9]{8} set for /,
  );
  assert.match(await d.call("timer_list", {}), / once {2}water the plants$/);
  assert.match(await d.call("timer_cancel", { id: "nosuch" }), /No pending timer "nosuch"/);
  // The web page's view: the list, and cancelling there.
  const extra = await d.call("timer_set", { cron: "0 9 * * 1-5", message: "standup" });
  const extraId = /^Timer ([a-z0-9]{8})/.exec(extra)![1]!;
  const listed = await d.api("/api/v1/plugins/timer/timers");
  assert.equal(listed.status, 200);
  assert.deepEqual(
    listed.body.timers.map((t: { message: string; kind: string }) => [t.message, t.kind]).sort(),
    [["standup", "cron"], ["water the plants", "once"]],
  );
  const cancelled = await d.api(`/api/v1/plugins/timer/timers/${extraId}/cancel`, { body: {} });
  assert.deepEqual([cancelled.status, cancelled.body], [200, { cancelled: extraId }]);
  const again = await d.api(`/api/v1/plugins/timer/timers/${extraId}/cancel`, { body: {} });
  assert.equal(again.status, 404);
  assert.match(again.body.error.message, /No pending timer/);
  const file = join(d.home, "timers.json");
  const saved = JSON.parse(await Deno.readTextFile(file));
  assert.equal(saved.timers.length, 1);
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);

  // While the daemon is down its due time passes (the file is the only record).
  await d.daemon.stop();
  saved.timers[0].dueAt = Date.now() - 60_000;
  await Deno.writeTextFile(file, JSON.stringify(saved));
  const before = d.server.requests.length;
  await d.restart();
  await d.server.waitForRequests(before + 1, 10_000);
  const fired = d.server.requests.slice(before).map((r) => r.body.messages.at(-1)!.content);
  assert.match(String(fired[0]), /^timer: water the plants \(late: it was due at /);
  assert.match(await d.call("timer_list", {}), /^No timers pending$/);
  assert.equal(
    d.server.requests.filter((r) =>
      /water the plants \(late/.test(String(r.body.messages.at(-1)!.content))
    ).length,
    1,
  );

  const status = JSON.parse((await runMain(["status", "--home", d.home])).stdout);
  const timer = status.plugins.find((p: { name: string }) => p.name === "timer");
  assert.deepEqual([timer.state, timer.tools], ["running", [
    "timer_set",
    "timer_list",
    "timer_cancel",
  ]]);
});
