/**
 * The agent's start does not load Deno's node:timers before its CLI socket listens (~25-35 ms
 * of CPU, docs/benchmarks.md): serve's clock runs its first seconds' timers on
 * AbortSignal.timeout. A probe preloaded into the agent marks the first read of the global
 * setTimeout; at the moment the socket accepts there is none, and the agent answers `status`.
 * Nor does a first chat within those seconds load it before its reply (the bench's
 * `first_chat_ms`): the idle trim's timer after the turn runs on the same clock.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CliClient } from "../../plugins/builtin/cli/client.ts";
import { QUIET_ENV } from "../fakes/daemon.ts";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const PROBE = new URL("../fixtures/timer_probe.js", import.meta.url).pathname;

/** The agent alone (`serve --agent`) in a fresh home with the probe; `use` runs once it accepts. */
async function withProbedAgent(
  env: Record<string, string>,
  use: (socket: string, probed: () => Promise<string>) => Promise<void>,
): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "homeagent-start-timers-" });
  const mark = join(home, "timer-probe.txt");
  const agent = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      "--preload",
      PROBE,
      MAIN,
      "serve",
      "--home",
      home,
      "--agent",
      "--port",
      "0",
    ],
    env: { ...QUIET_ENV, HOMEAGENT_LOG_LEVEL: "warn", TIMER_PROBE_FILE: mark, ...env },
    stdin: "piped", // the guard's pipe: open while the agent should run
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const socket = join(home, "run", "homed.sock");
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        (await Deno.connect({ transport: "unix", path: socket })).close();
        break;
      } catch {
        if (Date.now() > deadline) throw new Error("the agent's socket did not accept in time");
        await new Promise((r) => AbortSignal.timeout(5).onabort = r);
      }
    }
    await use(socket, () => Deno.readTextFile(mark).catch(() => ""));
  } finally {
    await agent.stdin.close();
    const out = await agent.output();
    await Deno.remove(home, { recursive: true });
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  }
}

Deno.test("the agent's start reads no global setTimeout before its CLI socket accepts", async () => {
  await withProbedAgent({}, async (socket, probed) => {
    const early = await probed();
    assert.equal(early, "", `setTimeout read before the socket accepted:\n${early}`);
    const client = await CliClient.connect(socket);
    try {
      await client.send({ type: "status" });
      await client.expect("status");
    } finally {
      client.close();
    }
  });
});

Deno.test("a first chat right after the start reads no global setTimeout before its reply", async () => {
  await using server = startFakeOpenAI({ fallback: () => reply.text("Hello there.") });
  const env = { HOMEAGENT_LLM_BASE_URL: server.url, HOMEAGENT_LLM_MODEL: "fake-model" };
  await withProbedAgent(env, async (socket, probed) => {
    const client = await CliClient.connect(socket);
    try {
      await client.send({ type: "chat", text: "Hello?" });
      const answer = await client.expect("reply");
      assert.equal(answer.status, "ok", JSON.stringify(answer));
      const read = await probed();
      assert.equal(read, "", `setTimeout read before the first chat's reply:\n${read}`);
    } finally {
      client.close();
    }
  });
});
