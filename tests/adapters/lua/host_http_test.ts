/** An adapter script's http_get: the body handed back is its first 1 MiB, and only that is read. */
import assert from "node:assert/strict";
import { hostHttp } from "../../../adapters/lua/_host_http.ts";
import { sourceAt } from "../_support.ts";
import { serveEndlessAnswer } from "../../fixtures/endless_answer.ts";

Deno.test("http_get reads only the first 1 MiB of a long answer and hands that back", async () => {
  // 64 MiB offered in 64 KiB pieces, pulled on demand: the old host read every byte into one
  // string and cut it afterwards (a source that never ends grew the daemon until the timeout).
  await using server = serveEndlessAnswer({ piece: new Uint8Array(65536).fill(0x62), times: 1024 });
  const base = server.origin;
  const http = hostHttp(sourceAt(`${base}/v1`));
  const answer = JSON.parse(await http("get", `${base}/models`, "", {}, 10_000));
  assert.equal(answer.status, 200);
  assert.equal(answer.body.length, 1024 * 1024);
  assert.ok(/^b+$/.test(answer.body));
  assert.ok(server.pulled < 16 * 1024 * 1024, `pulled ${server.pulled} bytes`);
});
