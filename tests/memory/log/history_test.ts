import assert from "node:assert/strict";
import { join } from "node:path";
import { TextLog, type TextTurn } from "../../../memory/log/text_log.ts";
import { HISTORY_SCAN_BYTES, readHistory } from "../../../memory/log/history.ts";
import type { StageContext } from "../../../core/mod.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";

function turn(id: string, input: string, extra: Partial<TextTurn> = {}): TextTurn {
  return {
    turnId: id,
    source: "cli",
    channel: "cli",
    input,
    reply: `reply to ${input}`,
    inputAt: 0,
    replyAt: 0,
    ...extra,
  };
}

async function withLog(
  fn: (ctx: { log: TextLog; dir: string; clock: ManualClock }) => Promise<void>,
  maxBytes?: number,
) {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-history-" });
  const clock = new ManualClock();
  const log = await TextLog.open({ dir, clock, logger: new MemoryLogger(), maxBytes });
  try {
    await fn({ log, dir, clock });
  } finally {
    await log.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Every page from the newest back to the start, each oldest first. */
async function allPages(log: TextLog, limit: number, extra: { query?: string } = {}) {
  const pages: string[][] = [];
  let before: string | undefined;
  do {
    const page = await log.history({ limit, before, ...extra });
    pages.push(page.turns.map((t) => t.turnId));
    before = page.before;
  } while (before !== undefined);
  return pages;
}

Deno.test("TextLog history pages backwards across rotated files, each turn exactly once", async () => {
  await withLog(async ({ log, dir }) => {
    for (let i = 1; i <= 25; i++) {
      await log.append(turn(`t${i}`, `message ${i}`));
    }
    const files = [...Deno.readDirSync(dir)].length;
    assert.ok(files > 3, `rotated into ${files} files`);
    const pages = await allPages(log, 7);
    assert.deepEqual(pages[0], ["t19", "t20", "t21", "t22", "t23", "t24", "t25"]);
    assert.deepEqual(pages.reverse().flat(), Array.from({ length: 25 }, (_, i) => `t${i + 1}`));
    // A page's cursor still holds after newer turns were appended.
    const first = await log.history({ limit: 5 });
    await log.append(turn("t26", "later"));
    const second = await log.history({ limit: 5, before: first.before });
    assert.deepEqual(second.turns.map((t) => t.turnId), ["t16", "t17", "t18", "t19", "t20"]);
  }, 400);
});

Deno.test("TextLog history searches input, reply and sent messages, any case, by channel", async () => {
  await withLog(async ({ log }) => {
    await log.append(turn("a", "I drink Green Tea"));
    await log.append(turn("b", "天气怎么样", { channel: "web", reply: "明天下雨" }));
    await log.append(turn("c", "remind me", { sent: [{ channel: "web", text: "Tea time!" }] }));
    await log.append(turn("d", "nothing here"));
    const ids = async (query: string, channel?: string) =>
      (await log.history({ query, channel })).turns.map((t) => t.turnId);
    assert.deepEqual(await ids("tea"), ["a", "c"]);
    assert.deepEqual(await ids("下雨"), ["b"]);
    assert.deepEqual(await ids("", "web"), ["b"]);
    assert.deepEqual(await ids("tea", "web"), []);
    assert.deepEqual(await allPages(log, 1, { query: "TEA" }), [["c"], ["a"]]);
  });
});

Deno.test("TextLog history reads lines longer than its read chunk and skips a torn last line", async () => {
  await withLog(async ({ log, dir }) => {
    const long = "长".repeat(50_000); // 150 KB of UTF-8, across several 64 KiB chunks
    await log.append(turn("one", "short"));
    await log.append(turn("two", long));
    await log.append(turn("three", "after"));
    await log.close();
    const [file] = [...Deno.readDirSync(dir)].map((e) => e.name);
    await Deno.writeTextFile(join(dir, file!), '{"turnId":"torn","inp', { append: true });
    const page = await readHistory(dir, { limit: 2 });
    assert.deepEqual(page.turns.map((t) => t.turnId), ["two", "three"]);
    assert.equal(page.turns[0]!.input, long);
    const rest = await readHistory(dir, { before: page.before });
    assert.deepEqual(rest.turns.map((t) => t.turnId), ["one"]);
    assert.equal(rest.before, undefined);
  });
});

Deno.test("TextLog history refuses a cursor that names no log file or no line start", async () => {
  await withLog(async ({ log, dir }) => {
    await log.append(turn("a", "x"));
    const [file] = [...Deno.readDirSync(dir)].map((e) => e.name);
    const wrong = ["../../etc/passwd:0", "20250101T000000000Z.jsonl:0", `${file}:5`, "nonsense"];
    for (const before of wrong) {
      await assert.rejects(log.history({ before }), TypeError);
    }
    assert.deepEqual(await log.history({ before: "" }).then((p) => p.turns.length), 1);
  });
});

Deno.test("TextLog history stops a search after its scan budget and says where to go on", async () => {
  await withLog(async ({ log, dir }) => {
    await log.append(turn("needle", "the needle"));
    const filler = "x".repeat(1 << 20);
    const count = Math.ceil(HISTORY_SCAN_BYTES / (1 << 20)) + 1;
    for (let i = 0; i < count; i++) await log.append(turn(`f${i}`, filler, { reply: "" }));
    await log.close();
    const first = await readHistory(dir, { query: "needle" });
    assert.deepEqual(first.turns, []);
    assert.ok(first.before !== undefined);
    const second = await readHistory(dir, { query: "needle", before: first.before });
    assert.deepEqual(second.turns.map((t) => t.turnId), ["needle"]);
  });
});

Deno.test("TextLog's stage handler records the tools a turn called, what it sent and how it ended", async () => {
  await withLog(async ({ log }) => {
    const handler = log.stageHandler();
    const shared = new Map<string, unknown>();
    const base = {
      turnId: "t1",
      input: {
        id: "t1",
        text: "set a timer",
        source: "web",
        channel: "web",
        priority: 0 as const,
        interrupt: false,
        receivedAt: 5,
        meta: {},
      },
      systemMessages: [],
      shared,
    };
    const call = (name: string, args: Record<string, unknown>, isError = false): StageContext => ({
      ...base,
      stage: "after_toolcall",
      toolCall: { call: { id: name, name, arguments: "{}" }, args, plugin: "x" },
      toolResult: { content: "done", isError },
    });
    await handler(call("timer_set", { message: "tea", duration: "5m" }));
    await handler(call("output_send__web", { payload: "Tea in five minutes" }));
    await handler(call("output_send__qq", { payload: "not sent" }, true));
    await handler({ ...base, stage: "after_output", output: "partial", status: "stopped" });
    const [logged] = (await log.history()).turns;
    assert.deepEqual(logged!.tools, [
      { name: "timer_set", ok: true },
      { name: "output_send__web", ok: true },
      { name: "output_send__qq", ok: false },
    ]);
    assert.deepEqual(logged!.sent, [{ channel: "web", text: "Tea in five minutes" }]);
    assert.equal(logged!.status, "stopped");
    assert.equal(JSON.stringify(logged).includes("5m"), false, "tool arguments are not kept");
  });
});
