import assert from "node:assert/strict";
import {
  Cap,
  EventBus,
  type Input,
  type KernelEvent,
  type OutputMessage,
  type Reply,
} from "../../../core/mod.ts";
import { CONSOLIDATION_CHANNEL, Delivery } from "../../../core/kernel/delivery.ts";
import { OutputRegistry } from "../../../core/kernel/output.ts";
import { MemoryLogger } from "../../fakes/logger.ts";

const input = (channel: string): Input => ({
  id: "i1",
  text: "hi",
  source: "test",
  channel,
  priority: 0,
  interrupt: false,
  receivedAt: 0,
  meta: { chat: 7 },
});

const replyTo = (channel: string, extra: Partial<Reply> = {}): Reply => ({
  inputId: "i1",
  channel,
  text: "hello",
  status: "ok",
  ...extra,
});

function setup() {
  const logger = new MemoryLogger();
  const events = new EventBus({ logger });
  const seen: KernelEvent[] = [];
  events.subscribe("*", (e) => void seen.push(e));
  const outputs = new OutputRegistry();
  const sent: OutputMessage[] = [];
  const delivery = new Delivery({ events, outputs, logger });
  const channel = (name: string, caps: number, fail = false) =>
    outputs.register({
      name,
      plugin: "test",
      caps,
      description: name,
      handler: (m) => {
        sent.push(m);
        if (fail) throw new Error("socket closed");
      },
    });
  return { logger, seen, sent, delivery, channel };
}

/** Let the channel handlers, which run on later microtasks, run (no timer involved). */
async function settle() {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

Deno.test("Delivery gives a reply to the sender's callback once, and publishes it", () => {
  const t = setup();
  const got: Reply[] = [];
  t.delivery.expect("i1", { onReply: (r) => got.push(r), onNotice: () => {} });
  t.delivery.reply(input("web"), replyTo("web"));
  t.delivery.reply(input("web"), replyTo("web", { text: "again" }));
  assert.deepEqual(got.map((r) => r.text), ["hello"]);
  assert.deepEqual(t.seen.filter((e) => e.type === "output").length, 2);
});

Deno.test("Delivery sends to the input's channel, with a link line per image it cannot show", async () => {
  const t = setup();
  t.channel("text", Cap.text);
  t.channel("pics", Cap.text | Cap.image);
  const image = { digest: "ab".repeat(32), mime: "image/png", size: 10 };
  t.delivery.reply(input("text"), replyTo("text", { media: [image] }));
  t.delivery.reply(input("pics"), replyTo("pics", { media: [image] }));
  await settle();
  assert.equal(t.sent.length, 3);
  assert.match(String(t.sent[0]!.payload), /^hello\n\[image .*: \/api\/v1\/media\/(ab)+\]$/);
  assert.deepEqual(t.sent[0]!.meta, { chat: 7 });
  assert.deepEqual([t.sent[1]!.payload, t.sent[2]!.type], ["hello", "image"]);
});

Deno.test("Delivery logs a throwing callback, a failing channel and a missing one, and never throws", async () => {
  const t = setup();
  t.channel("bad", Cap.text, true);
  t.delivery.expect("i1", {
    onNotice: () => {
      throw new Error("gone");
    },
  });
  t.delivery.notice(input("bad"), "busy");
  t.delivery.reply(input("bad"), replyTo("bad"));
  t.delivery.reply(input("nowhere"), replyTo("nowhere"));
  t.delivery.reply(input(CONSOLIDATION_CHANNEL), replyTo(CONSOLIDATION_CHANNEL));
  await settle();
  assert.deepEqual(t.logger.at("error").map((l) => l.msg), [
    "Notice callback threw",
    "Output channel failed",
  ]);
  assert.deepEqual(t.logger.at("warn").map((l) => l.fields.channel), ["nowhere"]);
  assert.deepEqual(t.seen.filter((e) => e.type === "notice").length, 1);
});
