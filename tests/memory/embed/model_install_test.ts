import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { zipSync } from "fflate";
import { EmbeddingError, NameError, silentLogger } from "../../../core/mod.ts";
import {
  installModel,
  type InstallProgress,
  listInstalledModels,
  loadInstalledEmbedder,
  removeInstalledModel,
} from "../../../memory/mod.ts";
import {
  TINY_MODEL,
  TINY_TOKENIZER,
  tinyCatalogModel,
  tinyModelJar,
} from "../../fixtures/tiny_onnx.ts";
import { withTempDir } from "./_vectors.ts";

const MODEL = TINY_MODEL;
const TOKENIZER = TINY_TOKENIZER;
const jar = tinyModelJar;
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function names(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
}

Deno.test("installModel from a jar stages, probes and renames the model into place", async () => {
  await withTempDir(async (dir) => {
    const modelsDir = join(dir, "models");
    await Deno.writeFile(join(dir, "tiny.jar"), jar());
    const phases: string[] = [];
    const result = await installModel({
      modelsDir,
      from: join(dir, "tiny.jar"),
      onProgress: (p: InstallProgress) => phases.push(p.phase),
    });
    assert.equal(result.name, "tiny-kitten-q"); // from the .onnx file's name
    assert.deepEqual(phases, ["verify", "probe", "done"]);
    assert.deepEqual(await names(modelsDir), ["tiny-kitten-q"]);
    assert.deepEqual(await names(result.dir), ["model.json", "model.onnx", "tokenizer.json"]);
    const { manifest } = result;
    assert.equal(manifest.model.sha256, sha(MODEL));
    assert.equal(manifest.tokenizer.size, TOKENIZER.length);
    assert.equal(manifest.pooling, "mean");
    assert.equal(manifest.dim, 3);
    assert.equal(manifest.source, await Deno.realPath(join(dir, "tiny.jar")));
    const listed = await listInstalledModels(modelsDir);
    assert.deepEqual(listed.map((m) => m.name), ["tiny-kitten-q"]);
    const embedder = await loadInstalledEmbedder(modelsDir, "tiny-kitten-q", {
      logger: silentLogger,
    });
    try {
      assert.match(embedder.fingerprint, /^onnx\/tiny-kitten-q@[0-9a-f]{12}:v2-mean:3$/);
    } finally {
      await embedder.close();
    }
    const again = await installModel({ modelsDir, from: join(dir, "tiny.jar") });
    assert.equal(again.replaced, true);
    assert.deepEqual(await names(modelsDir), ["tiny-kitten-q"]);
    assert.equal(await removeInstalledModel(modelsDir, "tiny-kitten-q"), true);
    assert.equal(await removeInstalledModel(modelsDir, "tiny-kitten-q"), false);
    assert.deepEqual(await names(modelsDir), []);
  });
});

Deno.test("installModel from a folder takes the name given and sentence-transformers' pooling", async () => {
  await withTempDir(async (dir) => {
    const source = join(dir, "snapshot");
    await Deno.mkdir(join(source, "onnx"), { recursive: true });
    await Deno.mkdir(join(source, "1_Pooling"));
    await Deno.writeFile(join(source, "onnx", "model_quantized.onnx"), MODEL);
    await Deno.writeFile(join(source, "tokenizer.json"), TOKENIZER);
    await Deno.writeTextFile(
      join(source, "1_Pooling", "config.json"),
      JSON.stringify({ pooling_mode_cls_token: true, pooling_mode_mean_tokens: false }),
    );
    const result = await installModel({
      modelsDir: join(dir, "models"),
      name: "my-model",
      from: source,
    });
    assert.equal(result.name, "my-model");
    assert.equal(result.manifest.pooling, "cls");
  });
});

Deno.test("installModel refuses archives whose entries climb out, oversize ones and bad names", async () => {
  await withTempDir(async (dir) => {
    const modelsDir = join(dir, "models");
    const refused = async (bytes: Uint8Array, pattern: RegExp, limits?: { modelBytes: number }) => {
      await Deno.writeFile(join(dir, "bad.zip"), bytes);
      await assert.rejects(
        installModel({
          modelsDir,
          from: join(dir, "bad.zip"),
          limits: limits &&
            { archiveBytes: 1e9, tokenizerBytes: 1e9, folderEntries: 10, ...limits },
        }),
        (e: unknown) => e instanceof EmbeddingError && pattern.test(e.message),
      );
      assert.deepEqual(await names(modelsDir), []);
    };
    await refused(
      jar({ "../../evil.txt": new Uint8Array(1) }),
      /entry "..\/..\/evil.txt" has a ".." segment/,
    );
    await refused(jar({ "/etc/evil": new Uint8Array(1) }), /has an absolute path/);
    await refused(jar(), /the model is too large/, { modelBytes: 100 });
    await refused(
      zipSync({ "a.onnx": MODEL, "b.onnx": MODEL, "tokenizer.json": TOKENIZER }),
      /several \.onnx/,
    );
    await refused(zipSync({ "model.onnx": MODEL }), /no tokenizer\.json or vocab\.txt/);
    await refused(new TextEncoder().encode("not a zip"), /expected a folder, a \.zip or a \.jar/);
    await assert.rejects(
      installModel({ modelsDir, name: "../up", from: join(dir, "bad.zip") }),
      NameError,
    );
  });
});

Deno.test("installModel leaves nothing behind when the model cannot run, and clears a killed install", async () => {
  await withTempDir(async (dir) => {
    const modelsDir = join(dir, "models");
    await Deno.mkdir(join(modelsDir, ".staging-old-2147483646-0123abcd"), { recursive: true });
    await Deno.writeFile(
      join(dir, "broken.jar"),
      jar({ "tiny-kitten-q.onnx": new Uint8Array([1, 2, 3]) }),
    );
    await assert.rejects(
      installModel({ modelsDir, from: join(dir, "broken.jar") }),
      (e: unknown) => e instanceof EmbeddingError && e.kind === "failed",
    );
    assert.deepEqual(await names(modelsDir), []); // the dead install's folder is gone too
  });
});

Deno.test("installModel refuses a local copy that is not the catalogue model it is named after", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(join(dir, "tiny.jar"), jar());
    const catalog = [catalogEntry("tiny-kitten-q", "http://127.0.0.1:9/unused", "0".repeat(64))];
    await assert.rejects(
      installModel({
        modelsDir: join(dir, "models"),
        name: "tiny-kitten-q",
        from: join(dir, "tiny.jar"),
        catalog,
      }),
      /does not hold model "tiny-kitten-q": its sha256 [0-9a-f]{64} differs from the published 0{64}/,
    );
  });
});

const catalogEntry = tinyCatalogModel;

Deno.test("installModel downloads a catalogue model from its hub with progress, verified", async () => {
  const served: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    served.push(path);
    const body = path.startsWith("/gone/")
      ? undefined
      : path.endsWith(".onnx")
      ? MODEL
      : path.endsWith(".json")
      ? TOKENIZER
      : undefined;
    return body
      ? new Response(body as Uint8Array<ArrayBuffer>)
      : new Response("no", { status: 404 });
  });
  try {
    await withTempDir(async (dir) => {
      const modelsDir = join(dir, "models");
      const catalog = [catalogEntry("tiny-hub", `http://127.0.0.1:${server.addr.port}/tiny`)];
      const downloads: string[] = [];
      const result = await installModel({
        modelsDir,
        name: "tiny-hub",
        catalog,
        onProgress: (p) => p.phase === "download" && p.bytes === p.total && downloads.push(p.file),
      });
      assert.deepEqual(served.slice(0, 2), ["/tiny/model.onnx", "/tiny/tokenizer.json"]);
      assert.deepEqual(downloads, ["model", "tokenizer"]);
      assert.equal(result.manifest.pooling, "cls"); // the catalogue's, not guessed
      assert.equal(result.manifest.source, catalog[0]!.model.url);
      assert.deepEqual(await names(modelsDir), [".downloads", "tiny-hub"]);
      assert.deepEqual(await names(join(modelsDir, ".downloads")), []);
      await assert.rejects(
        installModel({ modelsDir, name: "nope", catalog }),
        /Unknown model "nope": known are tiny-hub/,
      );
      const offline = [catalogEntry("tiny-gone", `http://127.0.0.1:${server.addr.port}/gone`)];
      await assert.rejects(
        installModel({ modelsDir, name: "tiny-gone", catalog: offline }),
        /HTTP 404; without the internet, install a local copy with --from FILE\|DIR/,
      );
    });
  } finally {
    await server.shutdown();
  }
});
