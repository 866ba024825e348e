/** An adapter script's http_get: the body handed back is its first 1 MiB, and only that is read. */
import assert from "node:assert/strict";
import { hostHttp } from "../../../adapters/lua/_host_http.ts";
import { sourceAt } from "../_support.ts";

Deno.test("http_get reads only the first 1 MiB of a long answer and hands that back", async () => {
  // 64 MiB offered in 64 KiB pieces, pulled on demand: the old host read every byte into one
  // string and cut it afterwards (a source that never ends grew the daemon until the timeout).
  const piece = new Uint8Array(65536).fill(0x62);
  let pulled = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    let sent = 0;
    return new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ >= 1024) return controller.close();
          pulled += piece.length;
          controller.enqueue(piece);
        },
      }, { highWaterMark: 0 }),
    );
  });
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const http = hostHttp(sourceAt(`${base}/v1`));
    const answer = JSON.parse(await http("get", `${base}/models`, "", {}, 10_000));
    assert.equal(answer.status, 200);
    assert.equal(answer.body.length, 1024 * 1024);
    assert.ok(/^b+$/.test(answer.body));
    assert.ok(pulled < 16 * 1024 * 1024, `pulled ${pulled} bytes`);
  } finally {
    await server.shutdown();
  }
});
