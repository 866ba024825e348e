import assert from "node:assert/strict";
import { cut, framings, PIECE_MAX, PIECE_MIN, TRANSFERS } from "./_framings.ts";
import { startFramingServer } from "./_wire_server.ts";

const body = new TextEncoder().encode('data: {"text":"你好 👋🏽 ok"}\n\ndata: [DONE]\n\n');
const eventEnds = [37, 51];

function join(pieces: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

Deno.test("cut partitions a body into random pieces of 1–64 bytes, the same for the same seed", () => {
  for (let seed = 1; seed <= 300; seed++) {
    const pieces = cut(body, eventEnds, { kind: "random", seed });
    assert.deepEqual(join(pieces), body);
    for (const piece of pieces) {
      assert.ok(piece.length >= PIECE_MIN && piece.length <= PIECE_MAX, `seed ${seed}`);
    }
    assert.deepEqual(pieces, cut(body, eventEnds, { kind: "random", seed }));
  }
});

Deno.test("cut splits at event ends, not at all, or inside every multi-byte character", () => {
  assert.deepEqual(cut(body, eventEnds, { kind: "events" }).map((p) => p.length), [37, 14]);
  assert.deepEqual(cut(body, eventEnds, { kind: "whole" }), [body]);
  const utf8 = cut(body, eventEnds, { kind: "utf8" });
  assert.deepEqual(join(utf8), body);
  // 你, 好, 👋 and 🏽 each end a piece one byte after their first byte.
  assert.equal(utf8.length, 5);
  for (const piece of utf8.slice(0, -1)) assert.ok(piece.at(-1)! >= 0xc0);
});

Deno.test("framings cover every transfer encoding and at least 200 random seeds", () => {
  const all = framings(200);
  for (const transfer of TRANSFERS) {
    for (const kind of ["events", "whole", "random"]) {
      assert.ok(all.some((f) => f.transfer === transfer && f.split.kind === kind), kind);
    }
  }
  assert.equal(all.filter((f) => f.split.kind === "random").length, 200);
});

Deno.test("startFramingServer sends a body exactly under each transfer encoding", async () => {
  await using server = startFramingServer();
  for (const transfer of TRANSFERS) {
    const pieces = cut(body, eventEnds, { kind: "random", seed: 7 });
    server.enqueue({ status: 200, contentType: "text/event-stream", pieces, transfer });
    const response = await fetch(`${server.url}/v1/x?y=1`, { method: "POST", body: "{}" });
    assert.equal(
      response.headers.get("transfer-encoding"),
      transfer === "chunked" ? "chunked" : null,
    );
    assert.equal(
      response.headers.get("content-length"),
      transfer === "length" ? String(body.length) : null,
    );
    assert.deepEqual(new Uint8Array(await response.arrayBuffer()), body, transfer);
  }
  assert.deepEqual(server.requests.map((r) => [r.method, r.path, r.body]), [
    ["POST", "/v1/x?y=1", "{}"],
    ["POST", "/v1/x?y=1", "{}"],
    ["POST", "/v1/x?y=1", "{}"],
  ]);
});
