import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError, EmbeddingError, silentLogger } from "../../../core/mod.ts";
import {
  createEmbedder,
  readEmbeddingConfig,
  registerMemoryDefaults,
  selectEmbedder,
} from "../../../memory/mod.ts";
import { openTestRegistry } from "../../fakes/config.ts";
import { MemoryLogger } from "../../fakes/logger.ts";
import { fastTextVec, withTempDir } from "./_vectors.ts";

/** What a fresh install reads: the registered defaults. */
const defaultEmbeddingConfig = (() => {
  using test = openTestRegistry();
  registerMemoryDefaults(test.registry);
  return readEmbeddingConfig(test.registry);
})();

Deno.test("registerMemoryDefaults defines typed embedding keys with hash as the default", () => {
  using test = openTestRegistry();
  registerMemoryDefaults(test.registry);
  const config = readEmbeddingConfig(test.registry);
  assert.equal(config.kind, "hash");
  assert.equal(config.dim, 512);
  test.registry.setFromText("core.agent.embedding", "static");
  test.registry.setFromText("core.agent.embedding_dim", "256");
  test.registry.set("core.agent.embedding_model_path", "/a.vec,/b.vec");
  const changed = readEmbeddingConfig(test.registry);
  assert.equal(changed.kind, "static");
  assert.equal(changed.dim, 256);
  assert.equal(changed.modelPath, "/a.vec,/b.vec");
  assert.throws(() => test.registry.set("core.agent.embedding", "word2vec"), ConfigError);
  assert.throws(
    () => test.registry.set("core.agent.embedding_http_base_url", "ftp://x"),
    ConfigError,
  );
  test.registry.set("core.agent.embedding_http_api_key", "sk-secret");
  const listed = test.registry.list("core.agent.embedding_http_api_key")[0]!;
  assert.notEqual(listed.value, "sk-secret");
  assert.throws(() => registerMemoryDefaults(test.registry), TypeError);
});

Deno.test("createEmbedder builds the configured space with its own fingerprint", async () => {
  const deps = { logger: silentLogger };
  const hash = await createEmbedder(defaultEmbeddingConfig, deps);
  assert.equal(hash.fingerprint, "hash-ngram:v1:512");
  const small = await createEmbedder({ ...defaultEmbeddingConfig, dim: 64 }, deps);
  assert.equal(small.fingerprint, "hash-ngram:v1:64");
  const tfidf = await createEmbedder({ ...defaultEmbeddingConfig, kind: "tfidf" }, deps);
  assert.equal(tfidf.fingerprint, "tfidf-hash:v1:512");
  await withTempDir(async (dir) => {
    const path = join(dir, "cc.zh.tiny.vec");
    await Deno.writeTextFile(path, fastTextVec());
    const config = { ...defaultEmbeddingConfig, kind: "static" as const, modelPath: path };
    assert.equal((await createEmbedder(config, deps)).fingerprint, "static/cc.zh.tiny:v1:6");
  });
  const fingerprints = new Set([hash, small, tfidf].map((e) => e.fingerprint));
  assert.equal(fingerprints.size, 3);
});

Deno.test("createEmbedder explains a missing layer instead of pretending", async () => {
  const deps = { logger: silentLogger };
  const cases = [
    { kind: "static", pattern: /embedding_model_path/ },
    { kind: "onnx", pattern: /embedding_onnx_model/ },
    { kind: "http", pattern: /embedding_http_base_url/ },
  ] as const;
  for (const { kind, pattern } of cases) {
    await assert.rejects(
      createEmbedder({ ...defaultEmbeddingConfig, kind }, deps),
      (e: unknown) =>
        e instanceof EmbeddingError && e.kind === "unavailable" && e.provider === kind &&
        pattern.test(e.message),
    );
  }
});

Deno.test("selectEmbedder falls back to the hash space and reports why", async () => {
  const logger = new MemoryLogger();
  const config = { ...defaultEmbeddingConfig, kind: "static" as const, modelPath: "/nope.vec" };
  const selection = await selectEmbedder(config, { logger });
  assert.equal(selection.kind, "hash");
  assert.equal(selection.embedder.fingerprint, "hash-ngram:v1:512");
  assert.equal(selection.failures.length, 1);
  assert.equal(selection.failures[0]!.provider, "static");
  const logged = logger.find("Embedder unavailable; trying the next layer");
  assert.equal(logged.length, 1);
  assert.equal(logged[0]!.level, "error");
  assert.match(String(logged[0]!.fields.error), /nope\.vec/);
  const direct = await selectEmbedder(defaultEmbeddingConfig, { logger });
  assert.deepEqual(direct.failures, []);
});
