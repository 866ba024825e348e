import assert from "node:assert/strict";
import { join } from "node:path";
import { listLogFiles, TextLog, type TextTurn } from "../../../memory/log/text_log.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";

const HOUR = 3_600_000;

function turn(id: string, input: string, at = 0): TextTurn {
  return {
    turnId: id,
    source: "cli",
    channel: "cli",
    input,
    reply: "ok",
    inputAt: at,
    replyAt: at,
  };
}

async function withLog(
  fn: (
    ctx: { log: TextLog; dir: string; clock: ManualClock; logger: MemoryLogger },
  ) => Promise<void>,
  options: { maxBytes?: number } = {},
) {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-text-" });
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  const log = await TextLog.open({ dir, clock, logger, maxBytes: options.maxBytes });
  try {
    await fn({ log, dir, clock, logger });
  } finally {
    await log.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("TextLog appends turns as JSONL and reads on from a watermark", async () => {
  await withLog(async ({ log, dir }) => {
    await log.append(turn("t1", "我叫小明"));
    await log.append(turn("t2", "hello"));
    const first = await log.readSince();
    assert.deepEqual(first.turns.map((t) => t.turnId), ["t1", "t2"]);
    await log.append(turn("t3", "again"));
    const next = await log.readSince(first.watermark);
    assert.deepEqual(next.turns.map((t) => t.turnId), ["t3"]);
    assert.deepEqual((await log.readSince(next.watermark)).turns, []);
    const files = await listLogFiles(dir);
    assert.equal(files.length, 1);
    assert.match(files[0]!, /^20260101T000000000Z\.jsonl$/);
    const lines = (await Deno.readTextFile(join(dir, files[0]!))).trimEnd().split("\n");
    assert.equal(JSON.parse(lines[0]!).input, "我叫小明");
  });
});

Deno.test("TextLog rotates after 24 hours into a file named by its start time", async () => {
  await withLog(async ({ log, dir, clock }) => {
    await log.append(turn("t1", "a"));
    const { watermark } = await log.readSince();
    clock.advance(23 * HOUR);
    await log.append(turn("t2", "b"));
    assert.equal((await listLogFiles(dir)).length, 1);
    clock.advance(HOUR);
    await log.append(turn("t3", "c"));
    const files = await listLogFiles(dir);
    assert.deepEqual(files, ["20260101T000000000Z.jsonl", "20260102T000000000Z.jsonl"]);
    const read = await log.readSince(watermark);
    assert.deepEqual(read.turns.map((t) => t.turnId), ["t2", "t3"]);
  });
});

Deno.test("TextLog rotates before a file passes its size limit", async () => {
  await withLog(async ({ log, dir, clock }) => {
    for (let i = 0; i < 5; i++) {
      await log.append(turn(`t${i}`, "x".repeat(100)));
      clock.advance(1000);
    }
    const files = await listLogFiles(dir);
    assert.ok(files.length >= 2, `expected rotation, got ${files.length} file(s)`);
    for (const file of files) assert.ok((await Deno.stat(join(dir, file))).size <= 400);
    assert.equal((await log.readSince()).turns.length, 5);
  }, { maxBytes: 400 });
});

Deno.test("TextLog skips a torn last line with a warning and writes on after it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-text-" });
  const good = JSON.stringify(turn("t1", "before the crash"));
  await Deno.writeTextFile(join(dir, "20260101T000000000Z.jsonl"), `${good}\n{"turnId":"t2","inp`);
  const clock = new ManualClock();
  const logger = new MemoryLogger();
  const log = await TextLog.open({ dir, clock, logger });
  try {
    const before = await log.readSince();
    assert.deepEqual(before.turns.map((t) => t.turnId), ["t1"]);
    await log.append(turn("t3", "after the restart"));
    const after = await log.readSince(before.watermark);
    assert.deepEqual(after.turns.map((t) => t.turnId), ["t3"]);
    assert.ok(logger.lines.some((l) => l.level === "warn" && /torn/.test(l.msg)));
    assert.ok(logger.lines.some((l) => l.level === "warn" && /unreadable/.test(l.msg)));
    assert.deepEqual((await log.readSince()).turns.map((t) => t.turnId), ["t1", "t3"]);
  } finally {
    await log.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("TextLog's stage handler leaves out consolidation and ephemeral turns", async () => {
  await withLog(async ({ log }) => {
    const handler = log.stageHandler();
    const context = (
      id: string,
      extra: { consolidation?: boolean; meta?: Record<string, unknown> },
    ) => ({
      stage: "after_output" as const,
      turnId: id,
      input: {
        id,
        text: `said ${id}`,
        source: "web",
        channel: "web",
        priority: 0 as const,
        interrupt: false,
        receivedAt: 0,
        meta: extra.meta ?? {},
        consolidation: extra.consolidation,
      },
      systemMessages: [],
      shared: new Map(),
      output: "reply",
    });
    await handler(context("kept", {}));
    await handler(context("internal", { consolidation: true }));
    await handler(context("openai", { meta: { ephemeral: true } }));
    await log.close();
    const { turns } = await log.readSince();
    assert.deepEqual(turns.map((t) => t.turnId), ["kept"]);
  });
});
