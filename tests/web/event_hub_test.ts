import assert from "node:assert/strict";
import type { KernelEvent } from "../../core/mod.ts";
import { createApp, EventHub, type HubMessage } from "../../web/mod.ts";
import { ManualClock } from "../fakes/clock.ts";
import { bearer, fakeWeb } from "./_deps.ts";

const delta = (i: number): KernelEvent => ({ type: "content_delta", turnId: "t", text: `d${i}` });

async function take(client: { next(): Promise<HubMessage | undefined> }, n: number) {
  const out: HubMessage[] = [];
  for (let i = 0; i < n; i++) out.push((await client.next())!);
  return out;
}

Deno.test("EventHub numbers events and replays the ring after Last-Event-ID", async () => {
  const hub = new EventHub({ clock: new ManualClock() });
  for (let i = 1; i <= 250; i++) hub.publish(delta(i));
  hub.publish({ type: "custom", name: "x", source: "p", data: 1 }); // not forwarded
  assert.equal(hub.lastId, 250);
  const replay = hub.connect("240");
  const got = await take(replay, 10);
  assert.deepEqual(got.map((m) => m.id), [241, 242, 243, 244, 245, 246, 247, 248, 249, 250]);
  assert.equal(JSON.parse(got[0]!.data).text, "d241");
  // The ring holds 200 events (51..250): 50 is just in reach, 49 has fallen out.
  assert.equal((await hub.connect("50").next())!.id, 51);
  for (const stale of ["49", "9999", "abc"]) {
    const first = (await hub.connect(stale).next())!;
    assert.equal(first.event, "sync_required");
    assert.deepEqual(JSON.parse(first.data), { lastId: 250, reason: "replay_gap" });
  }
  hub.close();
});

Deno.test("EventHub sends a heartbeat every 15 s while clients listen, and holds no timer after", async () => {
  const clock = new ManualClock();
  const hub = new EventHub({ clock });
  assert.equal(clock.pending, 0);
  const client = hub.connect();
  clock.advance(14_999);
  assert.equal(client.buffered, 0);
  clock.advance(1);
  assert.equal((await client.next())!.event, "ping");
  clock.advance(15_000);
  assert.equal((await client.next())!.event, "ping");
  client.close();
  assert.equal(clock.pending, 0);
  assert.equal(hub.clients, 0);
  assert.equal(await client.next(), undefined);
});

Deno.test("EventHub drops a slow client's queue to sync_required without slowing the others", async () => {
  const hub = new EventHub({ clock: new ManualClock(), clientBuffer: 10 });
  const slow = hub.connect();
  const fast = hub.connect();
  const seen: number[] = [];
  const reading = (async () => {
    for (let m = await fast.next(); m; m = await fast.next()) seen.push(m.id!);
  })();
  const started = performance.now();
  for (let i = 1; i <= 25; i++) {
    hub.publish(delta(i));
    await new Promise((r) => setTimeout(r, 0)); // the fast reader keeps up between events
  }
  assert.ok(performance.now() - started < 1000);
  assert.equal(slow.dropped, 2);
  const first = (await slow.next())!;
  assert.equal(first.event, "sync_required");
  assert.equal(JSON.parse(first.data).reason, "slow_client");
  // After the drop it goes on with live events.
  assert.ok(slow.buffered <= 10);
  hub.close();
  await reading;
  assert.deepEqual(seen, Array.from({ length: 25 }, (_, i) => i + 1));
});

/** Read SSE frames from a response body until `count` frames arrived. */
async function frames(body: ReadableStream<Uint8Array>, count: number) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const out: Record<string, string>[] = [];
  while (out.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    let at: number;
    while ((at = text.indexOf("\n\n")) >= 0) {
      const frame: Record<string, string> = {};
      for (const line of text.slice(0, at).split("\n")) {
        const i = line.indexOf(":");
        if (i > 0) frame[line.slice(0, i)] = line.slice(i + 1).trimStart();
      }
      out.push(frame);
      text = text.slice(at + 2);
    }
  }
  await reader.cancel();
  return out;
}

Deno.test("GET /api/v1/chat/events streams kernel events with ids and replays after Last-Event-ID", async () => {
  const fake = fakeWeb();
  const app = createApp(fake.deps);
  const response = await app.request("/api/v1/chat/events", { headers: bearer });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
  fake.publish({ type: "stage", turnId: "t1", stage: "pre_action" });
  fake.publish({ type: "content_delta", turnId: "t1", text: "Hel" });
  fake.publish({ type: "content_delta", turnId: "t1", text: "", reset: true });
  fake.publish({ type: "output", turnId: "t1", channel: "web", text: "Hello", status: "ok" });
  const got = await frames(response.body!, 5);
  assert.deepEqual(got.map((f) => [f.event, f.id]), [
    ["hello", undefined],
    ["stage", "1"],
    ["content_delta", "2"],
    ["content_delta", "3"],
    ["output", "4"],
  ]);
  assert.deepEqual(JSON.parse(got[3]!.data!), {
    type: "content_delta",
    turnId: "t1",
    text: "",
    reset: true,
  });

  const again = await app.request("/api/v1/chat/events", {
    headers: { ...bearer, "last-event-id": "2" },
  });
  const replayed = await frames(again.body!, 3);
  assert.deepEqual(replayed.map((f) => f.id), [undefined, "3", "4"]);
  // The test hub keeps 5 events; after 7 more, id 2 has fallen out.
  for (let i = 0; i < 7; i++) fake.publish(delta(i));
  const late = await app.request("/api/v1/chat/events", {
    headers: { ...bearer, "last-event-id": "2" },
  });
  const [, sync] = await frames(late.body!, 2);
  assert.equal(sync!.event, "sync_required");
});
