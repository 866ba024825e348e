import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain } from "../fakes/daemon.ts";
import { startToolDaemon } from "./_daemon_chat.ts";

interface Turn {
  turnId: string;
  source: string;
  channel: string;
  input: string;
  reply: string;
  tools?: { name: string; ok: boolean }[];
}

Deno.test("web history: a real daemon's chat from the web, the CLI and a timer set from the web, across a restart", async () => {
  await using d = await startToolDaemon();
  assert.match(await d.call("timer_set", { duration: "2h", message: "tea" }), /^Timer /);
  const cli = await runMain(["chat", "hello from the terminal", "--home", d.home]);
  assert.equal(cli.code, 0, cli.stderr);

  // The timer falls due while the daemon is down, and fires at the next start.
  const stopped = await d.daemon.stop();
  const file = join(d.home, "timers.json");
  const saved = JSON.parse(await Deno.readTextFile(file));
  saved.timers[0].dueAt = Date.now() - 60_000;
  await Deno.writeTextFile(file, JSON.stringify(saved));
  const before = d.server.requests.length;
  await d.restart();
  await d.server.waitForRequests(before + 1, 10_000);
  let turns: Turn[] = [];
  for (let i = 0; i < 100 && !turns.some((t) => t.source === "timer"); i++) {
    turns = (await d.api("/api/v1/chat/history")).body.turns;
    if (!turns.some((t) => t.source === "timer")) await new Promise((r) => setTimeout(r, 100));
  }
  const log = (await d.daemon.stop()).stderr + stopped.stderr;

  const [web, terminal, timer] = turns;
  assert.deepEqual([web?.channel, web?.input, web?.tools], ["web", "use timer_set #1", [{
    name: "timer_set",
    ok: true,
  }]]);
  assert.deepEqual([terminal?.source, terminal?.channel], ["cli", "cli"]);
  assert.equal(terminal?.input, "hello from the terminal");
  assert.deepEqual([timer?.source, timer?.channel], ["timer", "web"]);
  assert.match(timer!.input, /^timer: tea \(late/);
  assert.doesNotMatch(log, /No output channel for reply/);
});
