/**
 * What tests/e2e/bundle_test.ts runs, inside a network namespace of its own when the machine
 * allows one: the bundled daemon started from an empty folder with an empty DENO_DIR, a fake
 * OpenAI server on this namespace's loopback reached through the Lua `openai` adapter, the
 * example `echo` subprocess plugin and `luademo` Lua plugin called as tools, a terminal (node-pty's
 * binding from beside the bundle), the web page, and `status` over the socket;
 * then an ONNX model, first without onnxruntime's wasm beside the bundle, then with it (ORT).
 * Prints one JSON object of what it saw; the test judges it.
 *
 * Usage: deno run -A _bundle_scenario.ts BUNDLE PLACE ORT_DIR
 */
// deno-lint-ignore-file no-console
import { join } from "node:path";
import { type FakeRequest, reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { copyFixture } from "../plugins/host/_support.ts";
import { tinyEmbeddingModel } from "../fixtures/tiny_onnx.ts";

const [bundle, place, ortDir] = Deno.args as [string, string, string];
const home = join(place, "home");
const empty = join(place, "empty");
await Deno.mkdir(empty, { recursive: true });
await Deno.mkdir(join(place, "deno-dir"), { recursive: true });
await copyFixture(join(home, "plugins"), "echo");
await copyFixture(join(home, "plugins"), "luademo");

/** The fake model: call a tool of each plugin, then answer with what they returned. */
function script(request: FakeRequest) {
  const results = request.body.messages.filter((m) => m.role === "tool").map((m) => m.content);
  if (results.length > 0) return reply.text(`the plugins said: ${results.join(" | ")}`);
  return reply.toolCalls([
    { name: "echo_say", arguments: { text: "你好 bundle" } },
    { name: "lua_greet", arguments: { who: "bundle" } },
    { name: "terminal_create", arguments: { command: "true" } },
  ]);
}

await using llm = startFakeOpenAI({ fallback: script });
const env = {
  PATH: Deno.env.get("PATH") ?? "",
  HOME: place,
  DENO_DIR: join(place, "deno-dir"),
  NO_COLOR: "1",
  HOMEAGENT_LLM_BASE_URL: llm.url,
  HOMEAGENT_LLM_MODEL: "fake-model",
  HOMEAGENT_LLM_ADAPTER: "lua:openai",
};
const run = (args: string[], stdout: "piped" | "null" = "piped") =>
  new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", bundle, ...args, "--home", home],
    cwd: empty,
    env,
    clearEnv: true,
    stdout,
    stderr: "piped",
  });

// The terminal opens without an owner to approve it (agentcli's policy is "ask" by default).
const allowed = await run(["config", "set", "plugin.agentcli.policy", "allow"], "null").output();
if (!allowed.success) throw new Error(new TextDecoder().decode(allowed.stderr));
const daemon = run(["serve", "--port", "0"]).spawn();
const stderr = new Response(daemon.stderr).text();
const lines = daemon.stdout.pipeThrough(new TextDecoderStream()).getReader();
let first = "";
while (!first.includes("\n")) {
  const { value, done } = await lines.read();
  if (done) break;
  first += value;
}
lines.releaseLock();
const url = new URL(first.trim());
const token = url.searchParams.get("token")!;
const origin = url.origin;
const auth = { authorization: `Bearer ${token}` };

const page = await fetch(`${origin}/`).then((r) => r.text());
// The page's scripts: its own (the shell and the chat, written into it) and the other views'.
const pageScript = page.match(/<script type="module">(.*?)<\/script>/s)?.[1] ?? "";
const views = await fetch(`${origin}/assets/views.js`).then((r) => r.arrayBuffer());
const pageJsBytes = pageScript.length + views.byteLength;
const chat = await fetch(`${origin}/api/v1/chat?wait=1`, {
  method: "POST",
  headers: { ...auth, "content-type": "application/json" },
  body: JSON.stringify({ text: "请用 echo 工具说你好" }),
}).then((r) => r.json());
const status = await run(["status"]).output();
const report = JSON.parse(new TextDecoder().decode(status.stdout));
// The agent the guard started: the same file, with the guard's V8 flags (one code cache).
const agentProc = (file: string) =>
  Deno.readTextFileSync(`/proc/${report.pid}/${file}`).split("\0").filter(Boolean);
const agent = { command: agentProc("cmdline"), env: agentProc("environ") };

daemon.kill("SIGTERM");
const exit = await daemon.status;
await daemon.stdout.cancel().catch(() => {});
const log = await stderr;

// An ONNX model: onnxruntime-web is read from beside the bundle only now.
const model = join(place, "tiny.onnx");
await Deno.writeFile(model, tinyEmbeddingModel([[1, 0], [0, 1], [1, 1], [0.5, 0.5]]));
await Deno.writeTextFile(join(place, "vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\n");
for (
  const [key, value] of [["", "onnx"], ["_onnx_model", model], [
    "_onnx_vocab",
    join(place, "vocab.txt"),
  ]]
) {
  await run(["config", "set", `core.agent.embedding${key}`, value!], "null").output();
}
const stats = async () => {
  const out = await run(["memory", "stats"]).output();
  const text = new TextDecoder();
  return { space: JSON.parse(text.decode(out.stdout)).vectorSpace, log: text.decode(out.stderr) };
};
const withoutOrt = await stats();
await Deno.mkdir(join(bundle, "..", "onnxruntime"));
for (const entry of Deno.readDirSync(ortDir)) {
  await Deno.copyFile(join(ortDir, entry.name), join(bundle, "..", "onnxruntime", entry.name));
}
const withOrt = await stats();

console.log(JSON.stringify({
  pageHasApp: pageScript.includes("/api/v1/chat/events"),
  pageJsBytes,
  chat,
  plugins: report.plugins?.map((p: { name: string; state: string }) => `${p.name}:${p.state}`),
  sdkWritten: (await Deno.stat(join(home, "run/plugin-sdk/mod.js")).catch(() => null))?.isFile ??
    false,
  llmRequests: llm.requests.length,
  agentRunsBundle: agent.command.includes(bundle) && agent.command.includes("--agent"),
  agentV8Flags: agent.env.filter((line) => line.startsWith("DENO_V8_FLAGS=")),
  exitCode: exit.code,
  errors: log.split("\n").filter((line) => line.includes('"level":"error"')),
  downloaded: [...downloads(join(place, "deno-dir"))],
  withoutOrt: { space: withoutOrt.space, said: withoutOrt.log.includes("is not beside") },
  withOrt: withOrt.space,
}));

/** Files under DENO_DIR's package and remote-module caches: none, when nothing was fetched. */
function* downloads(dir: string): Generator<string> {
  for (const cache of ["npm", "remote", "jsr"]) {
    try {
      for (const entry of Deno.readDirSync(join(dir, cache))) yield `${cache}/${entry.name}`;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
}
