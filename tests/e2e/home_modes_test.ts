/** A daemon started under umask 022 keeps its home private (issue 11: config.db was 0644). */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { runMain, startServe } from "../fakes/daemon.ts";

const modeOf = async (path: string) => (await Deno.stat(path)).mode! & 0o777;

const PRIVATE = [
  "config.db",
  "config.db-wal",
  "config.db-shm",
  "usage.db",
  "memory/graph.db",
  "memory/graph.db-wal",
  "memory/docs/index.db",
  "memory/context.json",
  "memory/context.journal",
];

Deno.test("serve under umask 022 makes the home 0700 and its databases and state 0600; a loose home is tightened", async () => {
  await using llm = startFakeOpenAI({ fallback: () => reply.text("hello back") });
  const top = await Deno.makeTempDir({ prefix: "homeagent-umask-" });
  const home = join(top, "home");
  const env = { HOMEAGENT_LLM_BASE_URL: llm.url, HOMEAGENT_LLM_MODEL: "fake-model" };
  try {
    const daemon = await startServe(home, env, { umask: "022" });
    const chat = await runMain(["chat", "--home", home, "hello"]);
    assert.equal(chat.code, 0, chat.stderr);
    assert.equal(await modeOf(home), 0o700);
    for (const dir of ["memory", "plugins", "knowledge", "logs"]) {
      assert.equal(await modeOf(join(home, dir)), 0o700, dir);
    }
    // While it runs (a clean stop folds the -wal and -shm files back into the database).
    for (const file of PRIVATE.filter((f) => f.endsWith(".db") || f.startsWith("config"))) {
      assert.equal(await modeOf(join(home, file)), 0o600, file);
    }
    assert.equal((await daemon.stop()).code, 0);
    for (const file of PRIVATE.filter((f) => !f.includes(".db-"))) {
      assert.equal(await modeOf(join(home, file)), 0o600, file);
    }
    // An existing home someone loosened: tightened at the next start, with a line in the log.
    await Deno.chmod(home, 0o755);
    await Deno.chmod(join(home, "config.db"), 0o644);
    const again = await startServe(home, env, { umask: "022" });
    const stopped = await again.stop();
    assert.equal(await modeOf(home), 0o700);
    assert.equal(await modeOf(join(home, "config.db")), 0o600);
    assert.match(stopped.stderr, /Tightened loose permissions in the home/);
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});
