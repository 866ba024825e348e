/**
 * The agent build cache (`deno task build:agent`, .ci/agent_build.ts): built into a folder of
 * its own, its start chunks carry no package of first use (nor a `node:` module but
 * node:sqlite), and an agent run from it serves status and a chat (Chinese text: jieba loads
 * from its lazy chunk) over the CLI socket.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type AgentBuild, buildAgentCache, startOutputs } from "../../.ci/agent_build.ts";
import { ON_FIRST_USE } from "../fixtures/first_use.ts";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { runMain } from "../fakes/daemon.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** A build in a temporary folder, removed after. */
async function build(): Promise<AgentBuild & AsyncDisposable> {
  const out = await Deno.makeTempDir({ prefix: "homeagent-agent-cache-" });
  const built = await buildAgentCache(out);
  return { ...built, [Symbol.asyncDispose]: () => Deno.remove(out, { recursive: true }) };
}

/** `npm:jieba-wasm` for a package file, the path for one of ours. */
function origin(input: string): string {
  const inPackage = /node_modules\/(?:\.deno\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/
    .exec(input);
  return inPackage ? `npm:${inPackage[1]}` : input;
}

Deno.test("the agent cache's start chunks carry no package of first use and no node: module but node:sqlite", async () => {
  await using built = await build();
  const found = built.startInputs.map(origin).filter((name) => name in ON_FIRST_USE);
  const start = startOutputs(built.metafile);
  const builtins = start.flatMap((out) => built.metafile.outputs[out]!.imports)
    .filter((i) => i.external && i.kind === "import-statement" && i.path in ON_FIRST_USE)
    .map((i) => i.path);
  assert.deepEqual([...new Set([...found, ...builtins])], []);
  // Nor Deno's `node:` layer but node:sqlite: its first module costs ~25 ms of every start.
  const node = start.flatMap((out) => built.metafile.outputs[out]!.imports)
    .filter((i) => i.external && i.kind === "import-statement" && i.path.startsWith("node:"));
  assert.deepEqual([...new Set(node.map((i) => i.path))], ["node:sqlite"]);
  // Of zod's ~45 locales only English, zod's default (267 kB of the start chunks with all).
  const locales = built.startInputs.filter((i) => /\/zod\/v4\/locales\/[^/]+$/.test(i))
    .map((i) => i.replace(/^.*\//, ""));
  assert.deepEqual(locales.sort(), ["en.js", "index.js"]);
  // The source tree's own modules are there, so the check looks at the right files.
  assert.ok(built.startInputs.includes("core/mod.ts"));
  assert.ok(built.startInputs.some((i) => origin(i) === "npm:zod"));
  assert.ok(built.bytes > built.startBytes * 2, "most of the program loads on first use");
});

Deno.test("the agent cache lists only files, so deno's own writes to node_modules keep it current", async () => {
  await using built = await build();
  const manifest = JSON.parse(
    await Deno.readTextFile(join(built.entry, "../../current.json")),
  ) as { inputs: [string, number, number][] };
  const folders = manifest.inputs.filter(([path]) => !Deno.statSync(join(ROOT, path)).isFile);
  assert.deepEqual(folders, []); // node_modules/.deno's mtime changes whenever deno runs
  assert.ok(manifest.inputs.some(([path]) => /\/node_modules\/zod\/package\.json$/.test(path)));
});

Deno.test("an agent run from the cache serves status and a Chinese chat over its socket", async () => {
  await using built = await build();
  const home = await Deno.makeTempDir({ prefix: "homeagent-agent-cache-home-" });
  await using server = startFakeOpenAI({ fallback: () => reply.text("好的，记住了。") });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--config=${join(ROOT, "deno.json")}`,
      "--allow-all",
      "--quiet",
      built.entry,
      "serve",
      "--home",
      home,
      "--port",
      "0",
      "--agent",
    ],
    env: { HOMEAGENT_LLM_BASE_URL: server.url, HOMEAGENT_LLM_MODEL: "fake-model" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const rest = async () => {
    while (!(await stdout.read()).done) {
      // the URL line is all it prints
    }
  };
  try {
    const first = await stdout.read(); // the URL line: the socket accepts from then on
    assert.match(first.value ?? "", /^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    const status = await runMain(["status", "--home", home]);
    assert.equal(status.code, 0, status.stderr);
    assert.equal(JSON.parse(status.stdout).providers[0].name, "env");
    const chat = await runMain(["chat", "--home", home, "我喜欢在杭州喝龙井茶"]);
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stdout, /好的，记住了。/);
    const sent = server.requests.at(-1)!.body.messages.at(-1)!;
    assert.match(String(sent.content), /龙井茶/);
  } finally {
    child.kill("SIGTERM");
    await child.stdin.close().catch(() => {});
  }
  await rest();
  const { code } = await child.status;
  await Deno.remove(home, { recursive: true });
  assert.equal(code, 0, await stderr); // an orderly stop
});

Deno.test("the agent cache imports yaml and node-pty from node_modules, so node-pty finds its binding", async () => {
  await using built = await build();
  // Carried in a chunk, node-pty looked for its native binding beside dist/agent/ and every
  // terminal failed, and yaml's parser failed on every SKILL.md (found with a current cache).
  const carried = Object.keys(built.metafile.inputs).map(origin)
    .filter((name) => name === "npm:yaml" || name === "npm:@lydell/node-pty");
  assert.deepEqual([...new Set(carried)], []);
  const imports = Object.values(built.metafile.outputs).flatMap((out) => out.imports)
    .filter((i) => i.external && (i.path === "yaml" || i.path === "@lydell/node-pty"))
    .map((i) => i.path);
  assert.deepEqual([...new Set(imports)].sort(), ["@lydell/node-pty", "yaml"]);
});
