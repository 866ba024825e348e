import assert from "node:assert/strict";
import { join } from "node:path";
import { type FakeRequest, reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { runMain, type RunningDaemon, startServe } from "../fakes/daemon.ts";
import { inputText } from "../fakes/scripted_agent.ts";
import { copyFixture } from "../plugins/host/_support.ts";

const firstUser = (r: FakeRequest) => inputText(r.body as { messages: { role: string }[] });

/** Wait until an agent other than `old` has written its pid and its socket accepts. */
async function nextAgent(daemon: RunningDaemon, old: number): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const pid = await daemon.agentPid().catch(() => old);
    if (pid !== old) {
      try {
        (await Deno.connect({ transport: "unix", path: daemon.socket })).close();
        return pid;
      } catch {
        // bound soon
      }
    }
    if (Date.now() > deadline) throw new Error(`No new agent after ${old} within 60 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function alive(pid: number): boolean {
  try {
    return !Deno.readTextFileSync(`/proc/${pid}/stat`).includes(") Z ");
  } catch {
    return false;
  }
}

async function tempHome(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "homeagent-guard-" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

Deno.test({
  name:
    "serve's guard restarts an agent killed under a chat; the next chat answers on the same socket and port",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using server = startFakeOpenAI({ fallback: reply.text("hi") });
    server.enqueue(reply.hang());
    await using home = await tempHome();
    const env = { HOMEAGENT_LLM_BASE_URL: server.url, HOMEAGENT_LLM_MODEL: "fake-model" };
    await using daemon = await startServe(home.path, env);
    const first = await daemon.agentPid();
    // The first agent, which serve starts before it loads its own modules, runs as every other.
    const flags = "DENO_V8_FLAGS=--max-semi-space-size=4,--optimize-for-size";
    assert.ok(Deno.readTextFileSync(`/proc/${first}/environ`).split("\0").includes(flags));
    const before = JSON.parse((await runMain(["status", "--home", home.path])).stdout);
    assert.deepEqual(before.guard, { pid: daemon.child.pid, boot: "normal", restarts: 0 });
    const chat = runMain(["chat", "--home", home.path, "are you there"]);
    await server.waitForRequests(1, 30_000);
    Deno.kill(first, "SIGKILL");
    const cut = await chat;
    assert.equal(cut.code, 1, "the chat under the kill fails");
    const second = await nextAgent(daemon, first);
    assert.ok(Deno.readTextFileSync(`/proc/${second}/environ`).split("\0").includes(flags));
    const again = await runMain(["chat", "--home", home.path, "hello again"]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, "hi\n");
    assert.equal(firstUser(server.requests.at(-1)!), "hello again");
    const health = await fetch(new URL("/healthz", daemon.url));
    assert.equal(health.status, 200, "the web port is the same");
    await health.body?.cancel();
    const status = JSON.parse((await runMain(["status", "--home", home.path])).stdout);
    assert.equal(status.pid, second);
    assert.equal(status.boot, "normal");
    assert.equal(status.guard.restarts, 1);
    assert.equal(status.guard.lastCrash.reason, "killed by SIGKILL");
    const stopped = await daemon.stop();
    assert.equal(stopped.code, 0);
    assert.match(
      stopped.stderr,
      /"msg":"The agent crashed; restarting it".*"reason":"killed by SIGKILL"/,
    );
    assert.equal(alive(second), false, "the agent stopped with its guard");
    const logged = await Deno.readTextFile(join(home.path, "logs", "homeagent.log"));
    assert.equal(logged.match(/"msg":"HomeAgent started"/g)?.length, 2, "both agents' lines");
    assert.match(logged, /"msg":"The agent crashed; restarting it".*"component":"guard"/);
    // Every run file removed (from the checkout Lua reads wasmoon's own glue.wasm: none here).
    assert.deepEqual([...Deno.readDirSync(join(home.path, "run"))].map((e) => e.name), []);
  },
});

Deno.test({
  name: "Three quick crashes of the agent lead to fail-back boot with an L4 notice to the owner",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using server = startFakeOpenAI({ fallback: reply.text("noted") });
    await using home = await tempHome();
    await copyFixture(join(home.path, "plugins"), "luademo");
    const env = { HOMEAGENT_LLM_BASE_URL: server.url, HOMEAGENT_LLM_MODEL: "fake-model" };
    await using daemon = await startServe(home.path, env);
    let pid = await daemon.agentPid();
    for (let crash = 0; crash < 3; crash++) {
      Deno.kill(pid, "SIGKILL");
      pid = await nextAgent(daemon, pid);
    }
    await server.waitForRequests(1, 30_000);
    const notice = firstUser(server.requests[0]!);
    assert.match(
      notice,
      /^HomeAgent restarted in fail-back boot because the agent crashed 3 times within 5 minutes \((killed by SIGKILL( while starting)?(; |\))){3}\. Only the built-in plugins and memory run; the installed plugins "luademo" are not started\./,
    );
    const list = JSON.parse((await runMain(["plugin", "list", "--home", home.path])).stdout) as {
      name: string;
      kind: string;
      state: string;
      error?: string;
    }[];
    const luademo = list.find((p) => p.name === "luademo")!;
    assert.equal(luademo.state, "disabled");
    assert.match(luademo.error!, /^Not started: fail-back boot/);
    assert.ok(list.filter((p) => p.kind === "builtin").every((p) => p.state !== "failed"));
    const status = JSON.parse((await runMain(["status", "--home", home.path])).stdout);
    assert.equal(status.boot, "failback");
    assert.equal(status.guard.failback.crashes.length, 3);
    const chat = await runMain(["chat", "--home", home.path, "still there?"]);
    assert.equal(chat.stdout, "noted\n", "memory and chat work in fail-back boot");
    const stopped = await daemon.stop();
    assert.match(
      stopped.stderr,
      /"msg":"The agent keeps crashing; restarting it in fail-back boot/,
    );
    assert.match(stopped.stderr, /"msg":"Kernel notice".*"kind":"failback_boot"/);
  },
});

Deno.test({
  name: "The agent stops in order when its guard is killed",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using home = await tempHome();
    const daemon = await startServe(home.path);
    const agent = await daemon.agentPid();
    daemon.child.kill("SIGKILL");
    await daemon.stop();
    const deadline = Date.now() + 30_000;
    while (alive(agent) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(alive(agent), false, "the agent ended once its guard's pipe closed");
    await assert.rejects(Deno.lstat(daemon.socket), Deno.errors.NotFound);
  },
});

Deno.test("serve refuses a bad log file setting with one clear line", async () => {
  await using home = await tempHome();
  const env = { HOMEAGENT_LOG_FILE_KEEP: "many" };
  const result = await runMain(["serve", "--home", home.path, "--port", "0"], { env });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /^error: Cannot use HOMEAGENT_LOG_FILE_KEEP="many": .*\n$/);
});
