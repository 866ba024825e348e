/** JsonRpcPeer and the manifest, without processes: framing, errors, limits, timeouts. */
import assert from "node:assert/strict";
import { LineSplitter } from "../../../plugins/sdk/line_splitter.ts";
import { createPlugin, ErrorCode, JsonRpcPeer, RpcError } from "../../../plugins/sdk/mod.ts";
import { parseManifest } from "../../../plugins/mod.ts";
import { ManualClock } from "../../fakes/clock.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Two peers wired back to back; `a.sent` records what a wrote. */
function pair(maxFrameBytes?: number) {
  const sentByA: string[] = [];
  const errors: string[] = [];
  const clock = new ManualClock();
  const setTimer = (ms: number, fn: () => void) => {
    const t = clock.setTimer(ms, fn);
    return () => t.cancel();
  };
  // deno-lint-ignore prefer-const
  let b: JsonRpcPeer;
  const a = new JsonRpcPeer({
    write: (bytes) => {
      sentByA.push(decoder.decode(bytes));
      b.receive(bytes);
    },
    onRequest: (method) => {
      throw new RpcError(ErrorCode.methodNotFound, `no ${method}`);
    },
    onProtocolError: (message) => void errors.push(message),
    setTimer,
    now: () => clock.monotonic(),
    maxFrameBytes,
  });
  b = new JsonRpcPeer({
    write: (bytes) => a.receive(bytes),
    onRequest: (method, params) => {
      if (method === "echo") return params;
      if (method === "slow") return new Promise(() => {});
      if (method === "fail") throw new Error("boom");
      throw new RpcError(ErrorCode.methodNotFound, `Method "${method}" not found`);
    },
    setTimer,
    now: () => clock.monotonic(),
  });
  return { a, b, sentByA, errors, clock };
}

Deno.test("JsonRpcPeer matches responses, maps errors and batches frames of one tick in one write", async () => {
  const { a, sentByA } = pair();
  const results = await Promise.all([a.request("echo", { x: 1 }), a.request("echo", [2])]);
  assert.deepEqual(results, [{ x: 1 }, [2]]);
  assert.equal(sentByA.length, 1, "two requests, one write");
  assert.equal(sentByA[0]!.split("\n").length, 3);
  await assert.rejects(a.request("nope"), (e: RpcError) => e.code === ErrorCode.methodNotFound);
  await assert.rejects(
    a.request("fail"),
    (e: RpcError) => e.code === ErrorCode.internalError && e.message === "boom",
  );
});

Deno.test("JsonRpcPeer answers only requests with an id: no reply to garbage, id null, notifications or stray responses", async () => {
  const written: string[] = [];
  const errors: string[] = [];
  const peer = new JsonRpcPeer({
    write: (bytes) => void written.push(decoder.decode(bytes)),
    onRequest: () => null,
    onProtocolError: (message) => void errors.push(message),
    maxFrameBytes: 96,
  });
  const lines = [
    "not json",
    '{"jsonrpc":"1.0","id":7,"method":"x"}', // a request, though invalid: answered with its id
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
    '{"jsonrpc":"2.0","id":null,"result":"pardon?"}',
    '{"jsonrpc":"2.0","id":null,"method":"x"}',
    '{"jsonrpc":"2.0","id":41,"result":1}', // no call has id 41
    '{"jsonrpc":"2.0","method":"note"}', // a notification
    "[1,2]",
  ];
  peer.receive(encoder.encode(lines.join("\n") + "\n"));
  peer.receive(encoder.encode(`{"pad":"${"x".repeat(100)}`));
  peer.receive(encoder.encode(`${"y".repeat(100)}"}\n{"jsonrpc":"2.0","id":8,"method":"ok"}\n`));
  await Promise.resolve();
  const frames = written.join("").trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(frames, [
    {
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: ErrorCode.invalidRequest,
        message: "Invalid request: not a JSON-RPC 2.0 frame",
      },
    },
    { jsonrpc: "2.0", id: 8, result: null },
  ]);
  assert.deepEqual(errors, [
    "Malformed frame; not JSON",
    "Invalid JSON-RPC frame",
    "Peer reported an error",
    "Invalid JSON-RPC frame",
    "Invalid JSON-RPC frame",
    "Unexpected response; no call has this id",
    "Invalid JSON-RPC frame",
    "Frame too large; refused",
  ]);
});

Deno.test("JsonRpcPeer refuses calls past its pending bound and requests past its in-flight bound with busy", async () => {
  const written: string[] = [];
  const peer = new JsonRpcPeer({
    write: (bytes) => void written.push(decoder.decode(bytes)),
    onRequest: () => new Promise(() => {}),
    maxPending: 2,
    maxInflight: 1,
    remote: 'Plugin "p"',
  });
  const a = peer.request("a").catch(() => "closed");
  const b = peer.request("b").catch(() => "closed");
  await assert.rejects(
    peer.request("c"),
    (e: RpcError) =>
      e.code === ErrorCode.busy && e.message === 'Plugin "p" has 2 calls in flight; "c" refused',
  );
  peer.receive(encoder.encode('{"jsonrpc":"2.0","id":1,"method":"slow"}\n'));
  peer.receive(encoder.encode('{"jsonrpc":"2.0","id":2,"method":"slow"}\n'));
  await Promise.resolve();
  const answers = written.join("").trim().split("\n").map((l) => JSON.parse(l))
    .filter((f) => !("method" in f));
  assert.deepEqual(answers, [{
    jsonrpc: "2.0",
    id: 2,
    error: { code: ErrorCode.busy, message: '1 requests are being served; "slow" refused' },
  }]);
  peer.close();
  assert.deepEqual(await Promise.all([a, b]), ["closed", "closed"]);
});

Deno.test("JsonRpcPeer writes a large batch of one tick in pieces, so the owner's queue sees it", async () => {
  const writes: number[] = [];
  const peer = new JsonRpcPeer({
    write: (_bytes, frames) => void writes.push(frames),
    onRequest: () => null,
  });
  for (let i = 0; i < 100; i++) peer.notify("event", { data: "x".repeat(4000) });
  assert.deepEqual(
    writes,
    [17, 17, 17, 17, 17],
    "written as each piece fills, before the tick ends",
  );
  await Promise.resolve();
  assert.deepEqual(writes, [17, 17, 17, 17, 17, 15]);
});

Deno.test("JsonRpcPeer times a request out on its clock, sends $/cancel, and rejects everything on close", async () => {
  const { a, clock } = pair();
  const slow = a.request("slow", {}, { timeoutMs: 100 });
  clock.advance(100);
  await assert.rejects(slow, (e: RpcError) => e.code === ErrorCode.timeout);
  const controller = new AbortController();
  const cancelled = a.request("slow", {}, { signal: controller.signal });
  controller.abort();
  await assert.rejects(cancelled, (e: RpcError) => e.code === ErrorCode.cancelled);
  const pending = a.request("slow");
  a.close(new RpcError(ErrorCode.internalError, "gone"));
  await assert.rejects(pending, /gone/);
  await assert.rejects(a.request("echo"), /gone/);
  assert.equal(a.pending, 0);
});

Deno.test("JsonRpcPeer lets go of a call's signal once it is answered: a later abort sends nothing", async () => {
  const { a, sentByA } = pair();
  const controller = new AbortController();
  const results = [];
  for (let i = 0; i < 3; i++) {
    results.push(await a.request("echo", i, { signal: controller.signal, timeoutMs: 1000 }));
  }
  assert.deepEqual(results, [0, 1, 2]);
  const before = sentByA.length;
  controller.abort();
  await Promise.resolve();
  assert.equal(sentByA.length, before, "no $/cancel for calls already answered");
  assert.equal(a.pending, 0);
});

Deno.test("JsonRpcPeer: one signal shared by many calls cancels each still waiting with $/cancel, none already answered", async () => {
  const { a, sentByA } = pair();
  const controller = new AbortController();
  const { signal } = controller;
  assert.equal(await a.request("echo", 1, { signal }), 1);
  const slow = [a.request("slow", {}, { signal }), a.request("slow", {}, { signal })];
  const other = a.request("slow", {}, { signal: new AbortController().signal, timeoutMs: 50 });
  await Promise.resolve();
  const before = sentByA.length;
  controller.abort();
  for (const call of slow) {
    await assert.rejects(call, (e: RpcError) => e.code === ErrorCode.cancelled);
  }
  await Promise.resolve();
  const cancels = sentByA.slice(before).join("").match(/"\$\/cancel"/g) ?? [];
  assert.equal(cancels.length, 2, "one $/cancel per call still waiting, none for the answered one");
  assert.equal(a.pending, 1, "a call on another signal is left alone");
  await assert.rejects(
    a.request("echo", 2, { signal }),
    (e: RpcError) => e.code === ErrorCode.cancelled,
  );
  a.close();
  await assert.rejects(other);
});

Deno.test("JsonRpcPeer: a request's accept check turns the result into what the caller gets, or rejects the call", async () => {
  const { a } = pair();
  const accept = (result: unknown) => {
    if (typeof result !== "number") throw new TypeError(`not a number: ${JSON.stringify(result)}`);
    return result * 2;
  };
  assert.equal(await a.request("echo", 21, { accept }), 42);
  await assert.rejects(a.request("echo", "x", { accept }), /not a number: "x"/);
  await assert.rejects(
    a.request("fail", {}, { accept }),
    (e: RpcError) => e.code === ErrorCode.internalError && e.message === "boom",
    "an error answer is not checked",
  );
  assert.equal(a.pending, 0);
});

Deno.test("JsonRpcPeer with reuseBuffer encodes into one buffer, and a batch too large for it alone", async () => {
  const written: string[] = [];
  const buffers = new Set<ArrayBufferLike>();
  const peer = new JsonRpcPeer({
    write: (bytes) => {
      buffers.add(bytes.buffer);
      written.push(decoder.decode(bytes));
    },
    reuseBuffer: true,
    onRequest: () => null,
  });
  peer.notify("a", { text: "中文" });
  await Promise.resolve();
  peer.notify("b", {});
  await Promise.resolve();
  assert.deepEqual(written, [
    '{"jsonrpc":"2.0","method":"a","params":{"text":"中文"}}\n',
    '{"jsonrpc":"2.0","method":"b","params":{}}\n',
  ]);
  assert.equal(buffers.size, 1, "both batches went out of the same buffer");
  peer.notify("big", { data: "é".repeat(200_000) });
  assert.equal(JSON.parse(written[2]!).params.data.length, 200_000);
  assert.equal(buffers.size, 2, "the large frame got its own buffer");
});

/** A plugin's stdin and stdout in memory: `send` a frame in, `answer(id)` waits for its result. */
function memoryIo() {
  const inbox: Uint8Array[] = [];
  let ended = false;
  let wake = () => {};
  const answers = new Map<unknown, PromiseWithResolvers<unknown>>();
  const answerOf = (id: unknown) => {
    if (!answers.has(id)) answers.set(id, Promise.withResolvers());
    return answers.get(id)!;
  };
  return {
    io: {
      async read(buffer: Uint8Array) {
        while (inbox.length === 0 && !ended) await new Promise<void>((r) => wake = r);
        const chunk = inbox.shift();
        if (!chunk) return null;
        buffer.set(chunk);
        return chunk.length;
      },
      write(bytes: Uint8Array) {
        for (const line of decoder.decode(bytes).trim().split("\n")) {
          const frame = JSON.parse(line);
          if ("id" in frame) answerOf(frame.id).resolve(frame.result);
        }
      },
    },
    send(frame: unknown) {
      inbox.push(encoder.encode(JSON.stringify(frame) + "\n"));
      wake();
    },
    answer: (id: number) => answerOf(id).promise,
    end() {
      ended = true;
      wake();
    },
  };
}

Deno.test("Plugin SDK answers a tool that returns at once, and cancels one still running on $/cancel", async () => {
  const plugin = createPlugin({ name: "t" });
  const aborted = Promise.withResolvers<void>();
  plugin.tool({ name: "now", description: "", parameters: {} }, (args) => `got ${args.x}`);
  plugin.tool({ name: "fails", description: "", parameters: {} }, () => {
    throw new Error("nope");
  });
  plugin.tool(
    { name: "later", description: "", parameters: {} },
    (_args, context) =>
      new Promise((resolve) => {
        context.signal.addEventListener("abort", () => {
          aborted.resolve();
          resolve("stopped");
        });
      }),
  );
  const memory = memoryIo();
  const serving = plugin.serve(memory.io);
  const call = (id: number, name: string, args = {}) =>
    memory.send({
      jsonrpc: "2.0",
      id,
      method: "tool.call",
      params: { name, args, turnId: "t", callId: "c" },
    });
  call(1, "now", { x: 1 });
  assert.deepEqual(await memory.answer(1), { content: "got 1" });
  call(2, "fails");
  assert.deepEqual(await memory.answer(2), { content: "nope", isError: true });
  call(3, "later");
  memory.send({ jsonrpc: "2.0", method: "$/cancel", params: { id: 3 } });
  await aborted.promise;
  assert.deepEqual(await memory.answer(3), { content: "stopped" });
  memory.end();
  await serving;
});

Deno.test("LineSplitter joins lines split across chunks and copies partial lines", () => {
  const lines: string[] = [];
  const splitter = new LineSplitter(1024);
  const buffer = encoder.encode('{"a":1}\n{"b"');
  splitter.push(buffer, (l) => void lines.push(l), () => {});
  buffer.fill(0); // the reader reuses its buffer
  splitter.push(encoder.encode(":2}\n"), (l) => void lines.push(l), () => {});
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
});

Deno.test("parseManifest validates fields and names the problem", () => {
  const ok = parseManifest(
    JSON.stringify({ name: "a_b", version: "1.2.3", entry: "main.ts", kind: "subprocess" }),
  );
  assert.deepEqual(ok.permissions, { read: [], write: [], net: [], env: [], run: [] });
  assert.deepEqual(ok.capabilities, []);
  const bad = (m: Record<string, unknown>) =>
    parseManifest(
      JSON.stringify({ name: "x", version: "1.0.0", entry: "main.ts", kind: "lua", ...m }),
    );
  assert.throws(() => bad({ name: "Bad Name" }), /name: expected 1 to 64 lowercase/);
  assert.throws(() => bad({ kind: "native" }), /kind/);
  assert.throws(() => bad({ entry: "../x.ts" }), /entry: expected a path inside the plugin folder/);
  assert.throws(() => bad({ permissions: { read: ["/etc"] } }), /permissions.read.0/);
  assert.throws(() => bad({ capabilities: ["publish"] }), /capabilities.0/);
  assert.throws(() => bad({ extra: 1 }), /Unrecognized key/);
});
