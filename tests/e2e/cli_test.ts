import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { runMain, startServe } from "../fakes/daemon.ts";

async function tempHome(): Promise<string & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-e2e-" });
  return Object.assign(dir, {
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  }) as string & AsyncDisposable;
}

Deno.test("CLI holds a conversation with a real serve process and an OpenAI-compatible server", async () => {
  await using server = startFakeOpenAI({
    fallback: (request) => reply.text(`You said: ${request.body.messages.at(-1)!.content}`),
  });
  await using home = await tempHome();
  const env = { HOMEAGENT_LLM_BASE_URL: server.url, HOMEAGENT_LLM_MODEL: "fake-model" };
  await using daemon = await startServe(`${home}`, env);
  assert.match(daemon.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32}$/);
  assert.ok((await Deno.stat(join(`${home}`, "persona.md"))).isFile);

  const chat = await runMain(["chat", "--home", `${home}`, "hello", "there"]);
  assert.equal(chat.code, 0, chat.stderr);
  assert.equal(chat.stdout, "You said: hello there\n");
  assert.equal(server.requests[0]!.headers["authorization"], undefined);

  const repl = await runMain(["chat", "--home", `${home}`], { stdin: "first\nsecond\n" });
  assert.equal(repl.code, 0, repl.stderr);
  assert.equal(repl.stdout, "You said: first\nYou said: second\n");

  const status = await runMain(["status", "--home", `${home}`]);
  assert.equal(status.code, 0, status.stderr);
  const report = JSON.parse(status.stdout);
  assert.equal(report.kernel.turns, 3);
  assert.equal(report.providers[0].name, "env");
  assert.equal(report.providers[0].state, "ok");
  const cli = report.plugins.find((p: { name: string }) => p.name === "cli");
  assert.equal(cli.state, "running");

  const second = await runMain(["serve", "--home", `${home}`, "--port", "0"]);
  assert.equal(second.code, 1);
  assert.match(second.stderr, /^error: HomeAgent is already running on home ".*" \(pid \d+\)\n$/);

  const stopped = await daemon.stop();
  assert.equal(stopped.code, 0, stopped.stderr);
  await assert.rejects(Deno.stat(daemon.socket), Deno.errors.NotFound);
});

Deno.test("CLI stop cuts a long streamed reply at once", async () => {
  await using server = startFakeOpenAI();
  server.enqueue(reply.slowText("word ".repeat(400), { chunkDelayMs: 25, chunkSize: 5 }));
  await using home = await tempHome();
  await using _daemon = await startServe(`${home}`, {
    HOMEAGENT_LLM_BASE_URL: server.url,
    HOMEAGENT_LLM_MODEL: "fake-model",
  });
  const chat = runMain(["chat", "--home", `${home}`, "talk for a long time"]);
  await server.waitForRequests(1, 10_000);
  await new Promise((r) => setTimeout(r, 200));
  const stop = await runMain(["stop", "--home", `${home}`]);
  assert.equal(stop.stdout, "Stopped the current turn.\n");
  const result = await chat;
  assert.equal(result.code, 0);
  assert.match(result.stdout, /^word word/);
  assert.match(result.stdout, /\[stopped\]\n$/);
  assert.ok(result.stdout.length < "word ".repeat(400).length, "the reply was cut");
  await server.waitForAborts(1);
});

Deno.test("CLI without an LLM source gets one line on how to configure one", async () => {
  await using home = await tempHome();
  await using _daemon = await startServe(`${home}`);
  const chat = await runMain(["chat", "--home", `${home}`, "hello"]);
  assert.equal(chat.code, 1);
  assert.equal(chat.stdout, "");
  assert.equal(chat.stderr.trim().split("\n").length, 1);
  assert.match(chat.stderr, /No LLM source is configured.*HOMEAGENT_LLM_BASE_URL/);
});

Deno.test("CLI commands fail clearly with no daemon and on bad usage", async () => {
  await using home = await tempHome();
  const chat = await runMain(["chat", "--home", `${home}`, "hi"]);
  assert.equal(chat.code, 1);
  assert.match(
    chat.stderr,
    /^error: No HomeAgent daemon is running for home ".*" \(no socket at ".*"\); start one with `.*homeagent serve`/,
  );
  const bad = await runMain(["frobnicate"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^error: Unknown command "frobnicate"/);
  const badFlag = await runMain(["status", "--nope"]);
  assert.equal(badFlag.code, 2);
});

Deno.test("A command for another home says which home the running daemon serves; HOMEAGENT_HOME carries it", async () => {
  await using served = await tempHome();
  await using other = await tempHome();
  await using runtime = await tempHome();
  const env = { HOMEAGENT_RUNTIME_DIR: `${runtime}` };
  const daemon = await startServe(`${served}`, env);
  const pid = await daemon.agentPid();
  try {
    const wrong = await runMain(["status", "--home", `${other}`], { env });
    assert.equal(wrong.code, 1);
    assert.equal(
      wrong.stderr,
      `error: No HomeAgent daemon is running for home "${other}", but one is running for ` +
        `"${served}" (pid ${pid}): was it started with --home ${served}? ` +
        `Pass --home ${served} here, or export HOMEAGENT_HOME=${served} in this terminal\n`,
    );
    const right = await runMain(["status"], { env: { ...env, HOMEAGENT_HOME: `${served}` } });
    assert.equal(right.code, 0, right.stderr);
    assert.equal(JSON.parse(right.stdout).home, `${served}`);
  } finally {
    assert.equal((await daemon.stop()).code, 0);
  }
  assert.deepEqual([...Deno.readDirSync(`${runtime}`)], [], "the daemon's entry left with it");
  const gone = await runMain(["status", "--home", `${other}`], { env });
  assert.match(gone.stderr, /start one with `.*homeagent serve`/);
});

Deno.test("CLI config set refuses a bad value and changes take effect in the running daemon", async () => {
  await using first = startFakeOpenAI({ fallback: reply.text("from first") });
  await using second = startFakeOpenAI({ fallback: reply.text("from second") });
  await using home = await tempHome();
  const h = `${home}`;
  const set = (key: string, value: string) => runMain(["config", "--home", h, "set", key, value]);
  assert.equal((await set("core.llm.sources.main.base_url", first.url)).code, 0);
  assert.equal((await set("core.llm.sources.main.model", "m")).code, 0);
  const bad = await set("core.agent.max_tool_turns", "many");
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /Cannot set "core.agent.max_tool_turns": expected an integer/);
  await using _daemon = await startServe(h);
  assert.equal((await runMain(["chat", "--home", h, "a"])).stdout, "from first\n");
  assert.equal((await set("core.llm.sources.main.base_url", second.url)).code, 0);
  assert.equal((await runMain(["chat", "--home", h, "b"])).stdout, "from second\n");
  const list = await runMain(["config", "--home", h, "list", "core.llm.sources"]);
  assert.match(list.stdout, /core\.llm\.sources\.main\.base_url = ".*" {2}\(stored\)/);
});

Deno.test("serve removes a stale socket left by a crashed daemon", async () => {
  await using home = await tempHome();
  const run = join(`${home}`, "run");
  await Deno.mkdir(run, { recursive: true });
  // A process that listens and is then killed leaves the socket file behind, as a crash does.
  const holder = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const l = Deno.listen({ transport: "unix", path: ${
        JSON.stringify(join(run, "homed.sock"))
      } });
       console.log("up");
       for await (const c of l) c.close();`,
    ],
    stdout: "piped",
  }).spawn();
  const reader = holder.stdout.getReader();
  await reader.read();
  reader.releaseLock();
  holder.kill("SIGKILL");
  await holder.stdout.cancel();
  await holder.status;
  assert.ok((await Deno.lstat(join(run, "homed.sock"))).isSocket);
  await using daemon = await startServe(`${home}`);
  const status = await runMain(["status", "--home", `${home}`]);
  assert.equal(status.code, 0, status.stderr);
  assert.equal(JSON.parse(status.stdout).pid, await daemon.agentPid());
});

Deno.test("The daemon keeps its context across restarts and archives pruned turns as documents", async () => {
  await using server = startFakeOpenAI({
    fallback: (request) => reply.text(`noted: ${request.body.messages.at(-1)!.content}`),
  });
  await using home = await tempHome();
  const h = `${home}`;
  const env = { HOMEAGENT_LLM_BASE_URL: server.url, HOMEAGENT_LLM_MODEL: "fake-model" };
  assert.equal(
    (await runMain(["config", "--home", h, "set", "core.agent.max_context_size", "1"])).code,
    0,
  );
  {
    await using daemon = await startServe(h, env);
    const topics = ["my cat Mimi eats tuna", "the car needs tyres", "Ann lives in Oslo"];
    for (let i = 0; i < 9; i++) {
      const chat = await runMain(["chat", "--home", h, `${topics[i % 3]} (${i})`]);
      assert.equal(chat.code, 0, chat.stderr);
    }
    const status = JSON.parse((await runMain(["status", "--home", h])).stdout);
    assert.ok(status.memory.documents > 0, "pruned turns became documents");
    // The newest 10 events (11 with the rest of the exchange at their edge), one exchange kept
    // on relevance, and the last reply: 14 at most.
    assert.ok(status.memory.contextEvents <= 14, String(status.memory.contextEvents));
    assert.match(status.memory.vectorSpace, /^hash-ngram:v1:\d+$/);
    assert.equal((await daemon.stop()).code, 0);
  }
  const saved = JSON.parse(await Deno.readTextFile(join(h, "memory", "context.json")));
  assert.ok(saved.events.length >= 10);
  const docs = [...Deno.readDirSync(join(h, "memory", "docs"))].filter((e) =>
    e.name.endsWith(".json")
  );
  assert.ok(docs.length > 0);

  await using _again = await startServe(h, env);
  await runMain(["chat", "--home", h, "what does Mimi eat?"]);
  const prompt = String(server.requests.at(-1)!.body.messages[0]!.content);
  assert.match(prompt, /\[Conversation so far\]/);
  assert.match(prompt, /Ann lives in Oslo \(8\)/, "the window came back after the restart");
  const tools = (server.requests.at(-1)!.body.tools as { function: { name: string } }[])
    .map((t) => t.function.name);
  assert.ok(tools.includes("doc_query"), "doc_query goes with every request");
  assert.ok(!tools.includes("doc_commit"), "an 8k window finds doc_commit with tool_search");
});

Deno.test("serve refuses a web port in use with a clear line, before starting anything", async () => {
  await using home = await tempHome();
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (taken.addr as Deno.NetAddr).port;
    const result = await runMain(["serve", "--home", `${home}`, "--port", String(port)]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      new RegExp(
        `^error: Cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use.*--port`,
        "m",
      ),
    );
    await assert.rejects(Deno.stat(join(`${home}`, "run", "homed.sock")), Deno.errors.NotFound);
  } finally {
    taken.close();
  }
});
