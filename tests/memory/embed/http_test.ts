import assert from "node:assert/strict";
import { EmbeddingError, silentLogger } from "../../../core/mod.ts";
import { createHttpEmbedder } from "../../../memory/mod.ts";
import { type LoopbackRequest, startLoopbackServer } from "../../fixtures/fake_http.ts";
import { serveEndlessAnswer } from "../../fixtures/endless_answer.ts";
import { best } from "./_vectors.ts";

/** A fake `/v1/embeddings` server: fruit texts point one way, weather another. */
function fakeEmbeddings(reply?: (body: { input: string[] }) => { status: number; text: string }) {
  const requests: LoopbackRequest[] = [];
  const server = startLoopbackServer(async (exchange) => {
    requests.push(exchange.request);
    const body = JSON.parse(exchange.request.body) as { input: string[] };
    const answer = reply?.(body) ?? {
      status: 200,
      text: JSON.stringify({
        object: "list",
        data: body.input.map((text, index) => ({
          object: "embedding",
          index,
          embedding: [/苹果|apple/i.test(text) ? 3 : 0, /雨|rain/i.test(text) ? 3 : 0, 1],
        })).reverse(), // order must come from `index`
      }),
    };
    await exchange.head(answer.status, { "content-type": "application/json" });
    await exchange.write(answer.text);
    await exchange.end();
  });
  return { server, requests, baseUrl: `http://127.0.0.1:${server.port}/v1` };
}

Deno.test("HTTP embedder posts batches to /v1/embeddings and ranks by the returned vectors", async () => {
  const { server, requests, baseUrl } = fakeEmbeddings();
  try {
    const embedder = await createHttpEmbedder({
      baseUrl: baseUrl + "/",
      model: "nomic-embed-text",
      apiKey: "sk-test",
      batchSize: 2,
      logger: silentLogger,
    });
    assert.equal(embedder.fingerprint, "http/nomic-embed-text:v1:3");
    assert.equal(requests.length, 1); // the dimension probe
    const embed = (t: string[]) => embedder.embed(t);
    assert.equal(
      (await best(embed, "我喜欢吃苹果", ["今天下雨了", "苹果很好吃"])).winner,
      "苹果很好吃",
    );
    assert.equal(requests.length, 3); // three texts in batches of two
    const last = requests.at(-1)!;
    assert.equal(last.method, "POST");
    assert.equal(last.path, "/v1/embeddings");
    assert.equal(last.headers.authorization, "Bearer sk-test");
    assert.deepEqual(JSON.parse(last.body), {
      model: "nomic-embed-text",
      input: ["苹果很好吃"],
      encoding_format: "float",
    });
    const [v] = await embedder.embed(["apple"]);
    assert.ok(Math.abs(Math.hypot(...v!) - 1) < 1e-6);
  } finally {
    await server.close();
  }
});

Deno.test("HTTP embedder turns server errors and malformed replies into EmbeddingError", async () => {
  const replies = [
    { status: 500, text: '{"error":"model not loaded"}' },
    { status: 200, text: "not json" },
    { status: 200, text: '{"data":[]}' },
    { status: 200, text: '{"data":[{"index":0,"embedding":["x"]}]}' },
  ];
  let next = 0;
  const { server, baseUrl } = fakeEmbeddings(() => replies[next++]!);
  try {
    for (
      const pattern of [
        /HTTP 500: .*model not loaded/,
        /not JSON/,
        /expected 1 embeddings, got 0/,
        /not a list/,
      ]
    ) {
      await assert.rejects(
        createHttpEmbedder({ baseUrl, model: "m", logger: silentLogger }),
        (e: unknown) =>
          e instanceof EmbeddingError && e.provider === "http" && e.kind === "failed" &&
          pattern.test(e.message),
      );
    }
  } finally {
    await server.close();
  }
});

Deno.test("HTTP embedder checks the configured dimension and reports a missing endpoint", async () => {
  const { server, requests, baseUrl } = fakeEmbeddings();
  try {
    const embedder = await createHttpEmbedder({
      baseUrl,
      model: "m",
      dim: 4,
      logger: silentLogger,
    });
    assert.equal(requests.length, 0); // no probe when the dimension is configured
    await assert.rejects(embedder.embed(["apple"]), /dimension 3, expected 4/);
  } finally {
    await server.close();
  }
  await assert.rejects(
    createHttpEmbedder({ baseUrl: "", model: "m", logger: silentLogger }),
    (e: unknown) => e instanceof EmbeddingError && e.kind === "unavailable",
  );
  await assert.rejects(
    createHttpEmbedder({ baseUrl: "http://127.0.0.1:9/v1", model: "m", logger: silentLogger }),
    (e: unknown) => e instanceof EmbeddingError && e.kind === "failed",
  );
});

Deno.test("HTTP embedder stops at the caller's signal and at its own timeout", async () => {
  const hang = startLoopbackServer(async (exchange) => {
    await new Promise((resolve) => exchange.signal.addEventListener("abort", resolve));
  });
  const baseUrl = `http://127.0.0.1:${hang.port}/v1`;
  try {
    const embedder = await createHttpEmbedder({
      baseUrl,
      model: "m",
      dim: 3,
      timeoutMs: 50,
      logger: silentLogger,
    });
    await assert.rejects(embedder.embed(["x"]), /timed out/);
    const controller = new AbortController();
    const slow = await createHttpEmbedder({ baseUrl, model: "m", dim: 3, logger: silentLogger });
    const pending = slow.embed(["x"], { signal: controller.signal });
    controller.abort(new Error("user stop"));
    await assert.rejects(pending, /user stop/);
  } finally {
    await hang.close();
  }
});

Deno.test("HTTP embedder stops reading an answer past 64 MiB and says so", async () => {
  // 128 MiB offered in 1 MiB pieces, pulled on demand: the old embedder read all of it into one
  // string before finding it was not JSON.
  await using server = serveEndlessAnswer({
    piece: new Uint8Array(1024 * 1024).fill(0x20),
    times: 128,
    headers: { "content-type": "application/json" },
  });
  const embedder = await createHttpEmbedder({
    baseUrl: `${server.origin}/v1`,
    model: "m",
    dim: 3,
    logger: silentLogger,
  });
  await assert.rejects(
    embedder.embed(["x"]),
    (error) => error instanceof EmbeddingError && /larger than 67108864 bytes/.test(error.message),
  );
  assert.ok(server.pulled < 96 * 1024 * 1024, `pulled ${server.pulled} bytes`);
});
