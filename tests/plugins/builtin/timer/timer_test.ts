import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type ChatRequest,
  createPluginSdk,
  type Plugin,
  type RecentContext,
  silentLogger,
} from "../../../../core/mod.ts";
import { createTimerPlugin } from "../../../../plugins/builtin/timer/mod.ts";
import { type TimerRecord, TimerStore } from "../../../../plugins/builtin/timer/store.ts";
import { Timers } from "../../../../plugins/builtin/timer/timers.ts";
import { ManualClock } from "../../../fakes/clock.ts";
import { createScriptedAgent, inputText, settle } from "../../../fakes/scripted_agent.ts";

const MINUTE = 60_000;

/** Start the timer plugin through the real SDK; returns a stopper that also detaches it. */
async function startTimer(k: ReturnType<typeof createScriptedAgent>, file: string) {
  const plugin: Plugin = createTimerPlugin({ file, clock: k.clock });
  const { sdk, detach } = createPluginSdk("timer", {
    agent: k.agent,
    config: k.config.registry,
    logger: k.logger,
  });
  await plugin.start(sdk);
  return async () => {
    await plugin.stop();
    detach();
  };
}

function toolCall(name: string, args: Record<string, unknown>) {
  return { toolCalls: [{ id: `c-${name}`, name, arguments: JSON.stringify(args) }] };
}

function lastToolResult(request: ChatRequest): string {
  return String(request.messages.at(-1)?.content ?? "");
}

Deno.test("timer: an L3 timer preempts a running L0 turn, which resumes with the [打断消息] note", async () => {
  const dir = await Deno.makeTempDir();
  await using k = createScriptedAgent({
    respond: (request) => {
      const text = inputText(request);
      if (text === "remind me") {
        return request.messages.at(-1)!.role === "tool"
          ? { text: lastToolResult(request) }
          : toolCall("timer_set", { duration: "5m", message: "tea is ready" });
      }
      if (text.startsWith("hold")) return "hold";
      return { text: `re: ${text}` };
    },
  });
  const stop = await startTimer(k, join(dir, "timers.json"));
  try {
    const set = await k.reply(k.inject("remind me"));
    assert.match(set.text, /^Timer [a-z0-9]{8} set for /);
    const work = k.inject("hold the long task");
    await k.llm.waitForCalls(3);
    await k.clock.tick(5 * MINUTE);
    await k.llm.waitForCalls(5);
    const calls = k.llm.calls;
    assert.equal(calls[2]!.outcome, "aborted", "the timer preempted the L0 turn");
    assert.equal(inputText(calls[3]!.request), "timer: tea is ready");
    const retried = calls[4]!;
    assert.equal(inputText(retried.request), "hold the long task");
    const notes = retried.request.messages.filter((m) =>
      m.role === "user" && String(m.content).startsWith("[打断消息]")
    );
    assert.equal(String(notes[0]?.content).split("\n")[0], "[打断消息] timer: timer: tea is ready");
    retried.release({ text: "done" });
    assert.equal((await k.reply(work)).text, "done");
    const fired = k.events.find((e) => e.type === "preempted");
    assert.ok(fired && fired.type === "preempted" && fired.level === 3);
    // NoMemory: the firing stays in the window, marked, so it is never archived or distilled.
    const window = (k.agent.context as RecentContext).events();
    const timerEvent = window.find((e) => e.input === "timer: tea is ready");
    assert.equal(timerEvent?.noMemory, true);
    const saved = async () => JSON.parse(await Deno.readTextFile(join(dir, "timers.json"))).timers;
    for (let i = 0; i < 100 && (await saved()).length > 0; i++) await settle(); // the save is async
    assert.equal((await saved()).length, 0);
  } finally {
    await stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("timer: timers survive a restart; missed ones fire once at start, marked late", async () => {
  const dir = await Deno.makeTempDir();
  const file = join(dir, "timers.json");
  let step = 0;
  await using k = createScriptedAgent({
    respond: (request) => {
      if (request.messages.at(-1)!.role === "tool") return { text: lastToolResult(request) };
      if (inputText(request) === "set") {
        step++;
        return step === 1
          ? toolCall("timer_set", { duration: "10m", message: "call Ann" })
          : toolCall("timer_set", { duration: "1h", message: "stretch", repeat: true });
      }
      return { text: "noted" };
    },
  });
  let stop = await startTimer(k, file);
  await k.reply(k.inject("set"));
  await k.reply(k.inject("set"));
  await stop();
  assert.equal(k.clock.pending, 0, "a stopped plugin leaves no timer armed");
  await k.clock.tick(5 * 60 * MINUTE); // five hours down
  assert.equal(k.llm.calls.length, 4, "nothing fired while stopped");

  stop = await startTimer(k, file);
  try {
    await k.agent.whenIdle();
    const fired = k.llm.calls.slice(4).map((c) => inputText(c.request)).sort();
    assert.equal(fired.length, 2, `each missed timer fired once: ${fired}`);
    assert.match(fired[0]!, /^timer: call Ann \(late: it was due at \d{4}-\d{2}-\d{2}T/);
    assert.match(fired[1]!, /^timer: stretch \(late: /);
    const saved = JSON.parse(await Deno.readTextFile(file)).timers;
    assert.equal(saved.length, 1, "the one-shot is done, the repeating one goes on");
    assert.ok(saved[0].dueAt > k.clock.now() && saved[0].dueAt <= k.clock.now() + 60 * MINUTE);
    await k.clock.tick(60 * MINUTE);
    await k.agent.whenIdle();
    assert.equal(inputText(k.llm.calls.at(-1)!.request), "timer: stretch", "on time: not late");
  } finally {
    await stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("timer: a corrupt timers.json is moved aside, the owner told at L2; bad specs are tool errors", async () => {
  const dir = await Deno.makeTempDir();
  const file = join(dir, "timers.json");
  await Deno.writeTextFile(file, '{"version":1,"timers":[{"id":"x"}]}');
  const results: string[] = [];
  const specs = [
    { message: "a" },
    { duration: "10m", cron: "* * * * *", message: "b" },
    { duration: "soon", message: "c" },
    { at: "2020-01-01T00:00", message: "d" },
    { cron: "* * * * * *", message: "e" },
    { duration: "10s", repeat: true, message: "f" },
    { cron: "0 9 * * 1-5", message: "standup" },
  ];
  let i = 0;
  await using k = createScriptedAgent({
    respond: (request) => {
      if (request.messages.at(-1)!.role === "tool") {
        results.push(lastToolResult(request));
        return { text: "ok" };
      }
      if (inputText(request).startsWith("[timer]")) return { text: "noted" };
      return toolCall("timer_set", specs[i++]!);
    },
  });
  const stop = await startTimer(k, file);
  try {
    const aside = [...Deno.readDirSync(dir)].find((e) => e.name.startsWith("timers.json.corrupt-"));
    assert.ok(aside, "moved aside");
    assert.ok(k.logger.lines.some((l) => l.msg.startsWith("Corrupt timers file moved aside")));
    await k.agent.whenIdle();
    const told = k.llm.calls.map((c) => inputText(c.request)).filter((t) =>
      t.startsWith("[timer]")
    );
    assert.deepEqual(told, [
      `[timer] The timers file could not be read and was moved aside to ${
        join(dir, aside.name)
      }; ` +
      "the reminders it held will not fire. Tell the owner.",
    ]);
    for (let n = 0; n < specs.length; n++) await k.reply(k.inject(`spec ${n}`));
    assert.match(results[0]!, /exactly one of duration, at or cron/);
    assert.match(results[1]!, /exactly one/);
    assert.match(results[2]!, /Cannot read duration "soon"/);
    assert.match(results[3]!, /in the past/);
    assert.match(results[4]!, /more often than once a minute/);
    assert.match(results[5]!, /at least 1 minute/);
    assert.match(results[6]!, /^Timer [a-z0-9]{8} set for .* \(repeats: 0 9 \* \* 1-5\)/);
    await settle();
  } finally {
    await stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("timer: stopping waits for the save of a timer that just fired", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "timers.json");
    // Saves after `gated` is set wait until the test releases them.
    class GatedStore extends TimerStore {
      gated = false;
      release?: () => void;
      override async save(timers: readonly TimerRecord[]): Promise<void> {
        if (this.gated) await new Promise<void>((resolve) => this.release = resolve);
        return await super.save(timers);
      }
    }
    const store = new GatedStore({ path, logger: silentLogger });
    const clock = new ManualClock();
    const fired: string[] = [];
    const timers = new Timers({
      store,
      clock,
      logger: silentLogger,
      fire: (timer) => void fired.push(timer.message),
    });
    await timers.start();
    await timers.add({
      id: "abc123",
      message: "tea",
      kind: "once",
      dueAt: clock.now() + MINUTE,
      channel: "cli",
      createdAt: clock.now(),
      fired: 0,
    });
    store.gated = true;
    clock.advance(MINUTE);
    assert.deepEqual(fired, ["tea"]);
    let stopped = false;
    const stopping = timers.stop().then(() => stopped = true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(stopped, false, "stop waits for the firing's save");
    store.release!();
    await stopping;
    assert.deepEqual(JSON.parse(await Deno.readTextFile(path)).timers, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
