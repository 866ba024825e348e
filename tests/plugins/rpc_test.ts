/** JsonRpcPeer and the manifest, without processes: framing, errors, limits, timeouts. */
import assert from "node:assert/strict";
import { ErrorCode, JsonRpcPeer, LineSplitter, RpcError } from "../../plugins/sdk/mod.ts";
import { parseManifest } from "../../plugins/mod.ts";
import { ManualClock } from "../fakes/clock.ts";

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

Deno.test("JsonRpcPeer answers malformed, invalid and oversized frames with JSON-RPC errors", async () => {
  const written: string[] = [];
  const errors: string[] = [];
  const peer = new JsonRpcPeer({
    write: (bytes) => void written.push(decoder.decode(bytes)),
    onRequest: () => null,
    onProtocolError: (message) => void errors.push(message),
    maxFrameBytes: 64,
  });
  peer.receive(encoder.encode("not json\n"));
  peer.receive(encoder.encode('{"jsonrpc":"1.0","id":7,"method":"x"}\n'));
  peer.receive(encoder.encode(`{"pad":"${"x".repeat(100)}`));
  peer.receive(encoder.encode(`${"y".repeat(100)}"}\n{"jsonrpc":"2.0","id":8,"method":"ok"}\n`));
  await Promise.resolve();
  const frames = written.join("").trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(frames.map((f) => f.error?.code ?? "ok"), [
    ErrorCode.parseError,
    ErrorCode.invalidRequest,
    ErrorCode.frameTooLarge,
    "ok",
  ]);
  assert.equal(frames[1].id, 7);
  assert.deepEqual(errors, [
    "Malformed frame; not JSON",
    "Invalid JSON-RPC frame",
    "Frame too large; refused",
  ]);
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
