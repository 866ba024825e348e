/**
 * The one-file build (issue 20): `deno task bundle` makes dist/homeagent.js, and that file alone,
 * copied to a folder outside the tree, serves with an empty DENO_DIR and no network (a network
 * namespace with only loopback, where the machine allows one): the web page, an LLM source
 * through a Lua adapter, a sandboxed subprocess plugin whose SDK comes from the bundle, a Lua
 * plugin in its worker, and an ONNX model once onnxruntime's wasm is put beside it.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";

const ROOT = new URL("../../", import.meta.url).pathname;

async function output(command: string, args: string[], cwd = ROOT) {
  const out = await new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** `unshare -n` with loopback up works here (root, or unprivileged user namespaces). */
async function canIsolate(): Promise<boolean> {
  try {
    const probe = await output("unshare", ["-n", "sh", "-c", "ip link set lo up"]);
    return probe.code === 0;
  } catch {
    return false;
  }
}

Deno.test("The bundle serves from an empty folder with no network: web page, Lua adapter, subprocess plugin", async () => {
  const place = await Deno.makeTempDir({ prefix: "homeagent-bundle-" });
  try {
    const built = await output(Deno.execPath(), [
      "run",
      "-A",
      ".ci/bundle.ts",
      "--out",
      join(place, "dist"),
      "--json",
    ]);
    assert.equal(built.code, 0, built.stderr);
    const result = JSON.parse(built.stdout);
    for (const dev of ["playwright-core", "esbuild", "assemblyscript", "binaryen"]) {
      assert.equal(result.inputs[dev], undefined, `${dev} is in the bundle`);
    }
    for (const part of ["jieba-wasm", "wasmoon", "web", "adapters", "wasm"]) {
      assert.ok(result.inputs[part] > 0, `${part} is not in the bundle`);
    }
    const beside = result.sidecars.map((side: { file: string }) => side.file.slice(place.length));
    assert.deepEqual(
      beside.filter((file: string) => !file.includes("/node_modules/@lydell/node-pty-")),
      ["/dist/onnxruntime/ort-wasm-simd-threaded.wasm"],
      "only onnxruntime's wasm (and node-pty's native binding) stay outside",
    );
    // One character past Latin-1 would make V8 hold the whole source at two bytes a character.
    const text = await Deno.readFile(result.file);
    assert.equal(text.findIndex((byte) => byte > 0x7f), -1, "the bundle is ASCII");
    // Only the one file goes where it runs.
    await Deno.mkdir(join(place, "app"));
    const bundle = join(place, "app", "homeagent.js");
    await Deno.copyFile(result.file, bundle);
    // node-pty's native binding for this machine, as docs/operations.md says to copy it.
    const pty = result.sidecars.filter((side: { file: string }) => side.file.includes("node-pty"));
    for (const side of pty as { file: string }[]) {
      const to = join(place, "app", side.file.slice(join(place, "dist").length));
      await Deno.mkdir(dirname(to), { recursive: true });
      await Deno.copyFile(side.file, to);
    }

    const scenario = [
      Deno.execPath(),
      "run",
      "-A",
      join(ROOT, "tests/e2e/_bundle_scenario.ts"),
      bundle,
      place,
      join(place, "dist", "onnxruntime"),
    ];
    // Where no network namespace can be made, the empty DENO_DIR still shows that nothing was
    // fetched (checked below), and the fake LLM is on loopback either way.
    const isolated = await canIsolate();
    const ran = isolated
      ? await output("unshare", [
        "-n",
        "sh",
        "-c",
        'ip link set lo up && exec "$@"',
        "sh",
        ...scenario,
      ])
      : await output(scenario[0]!, scenario.slice(1));
    assert.equal(ran.code, 0, ran.stderr);
    const seen = JSON.parse(ran.stdout);
    assert.equal(seen.pageHasApp, true, "the web page");
    assert.ok(seen.pageJsBytes > 50_000, "the UI bundles");
    assert.equal(seen.chat.status, "ok", JSON.stringify(seen.chat));
    assert.match(
      seen.chat.text,
      /^the plugins said: echo: 你好 bundle \| hello, bundle \| Terminal \S+ started: true \(pid \d+/,
    );
    assert.equal(seen.agentRunsBundle, true, "the guard runs its agent from the bundle");
    assert.deepEqual(seen.agentV8Flags, [], "the agent has the guard's V8 flags");
    assert.equal(seen.llmRequests, 2, "a tool call and the answer, through lua:openai");
    assert.ok(seen.plugins.includes("echo:running"), seen.plugins.join(", "));
    assert.ok(seen.plugins.includes("luademo:running"), seen.plugins.join(", "));
    assert.equal(seen.sdkWritten, true);
    assert.equal(seen.exitCode, 0);
    assert.deepEqual(seen.errors, []);
    assert.deepEqual(seen.downloaded, [], "DENO_DIR got packages or remote modules");
    assert.deepEqual(seen.withoutOrt, { space: "hash-ngram:v1:512", said: true });
    assert.match(seen.withOrt, /^onnx\/tiny@[0-9a-f]{12}:v2-mean:2$/);
  } finally {
    await Deno.remove(place, { recursive: true });
  }
});
