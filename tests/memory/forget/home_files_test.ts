/**
 * Forget reaches the home's own files (issue 14): the daemon's log, rotated files included, while
 * the guard's RotatingLog goes on writing it, and copies set aside as corrupt.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ensureHome, openMemory, registerMemoryDefaults } from "../../../memory/mod.ts";
import { RotatingLog } from "../../../plugins/guard/log_file.ts";
import { openTestRegistry } from "../../fakes/config.ts";
import { grepHome } from "../../fakes/grep.ts";

const NAME = "Mirelle Dufort";
const logLine = (msg: string) => JSON.stringify({ level: "info", msg });

/** The memory of a test home, as the daemon opens it. */
function openHomeMemory(
  paths: Awaited<ReturnType<typeof ensureHome>>,
  config: ReturnType<typeof openTestRegistry>,
) {
  return openMemory({
    paths,
    config: config.registry,
    clock: config.clock,
    logger: config.logger,
  });
}

Deno.test("memory forget blanks the name out of the daemon's log and deletes corrupt copies that hold it", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-forget-files-" });
  using config = openTestRegistry();
  registerMemoryDefaults(config.registry);
  const paths = await ensureHome(home);
  const write = (path: string, text: string) => Deno.writeTextFile(join(home, path), text);
  await write("logs/homeagent.log.2", `${logLine(`Tool call for ${NAME}`)}\n${logLine("ok")}\n`);
  await write("logs/homeagent.log.1", `${logLine("nothing here")}\n`);
  await write("memory/context.json.corrupt-1700000000000", `{"events":[{"input":"${NAME} is`);
  await write("timers.json.corrupt-1700000000001", "[{torn");
  await write("agentfs/draft.corrupt-1", `a file of the owner's about ${NAME}`);
  // The guard's log, open for appending as it is while the daemon runs.
  const errors: string[] = [];
  using log = new RotatingLog({
    path: join(paths.logs, "homeagent.log"),
    maxBytes: 1 << 20,
    keep: 5,
    onError: (m) => errors.push(m),
  });
  log.write(logLine("started"));
  log.write(logLine(`Input from web: my friend ${NAME.toUpperCase()} visits`));
  log.write(logLine("Heartbeat ran"));
  const memory = await openHomeMemory(paths, config);
  try {
    await memory.graph.graph.commit([{ subject: "owner", predicate: "friend_of", object: NAME }]);
    const report = await memory.forget.forget(NAME);
    assert.deepEqual(report.logs, { files: 2, lines: 2 });
    assert.deepEqual(report.removedCopies, ["memory/context.json.corrupt-1700000000000"]);
    log.write(logLine("after the forget"));

    assert.deepEqual(errors, []);
    assert.deepEqual(await grepHome(home, "Mirelle"), ["agentfs/draft.corrupt-1"]);
    const live = (await Deno.readTextFile(join(paths.logs, "homeagent.log"))).trim().split("\n");
    assert.deepEqual(live.map((l) => JSON.parse(l).msg), [
      "started",
      "Input from web: my friend [forgotten] visits",
      "Heartbeat ran",
      "after the forget",
    ]);
    const old = await Deno.readTextFile(join(paths.logs, "homeagent.log.2"));
    assert.equal(old, `${logLine("Tool call for [forgotten]")}\n${logLine("ok")}\n`);
    assert.equal(
      await Deno.readTextFile(join(home, "timers.json.corrupt-1700000000001")),
      "[{torn",
    );
  } finally {
    await memory.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("memory forget run again after a crash still blanks the aliases its first run tombstoned out of the log", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-forget-again-" });
  using config = openTestRegistry();
  registerMemoryDefaults(config.registry);
  const paths = await ensureHome(home);
  const memory = await openHomeMemory(paths, config);
  try {
    const graph = memory.graph.graph;
    await graph.commit([
      { subject: "owner", predicate: "friend_of", object: NAME },
      { subject: "Mimi Dufort", predicate: "likes", object: "sailing" },
    ]);
    await graph.merge(NAME, "Mimi Dufort");
    // The first run's graph step committed (tombstones for the name and its alias), then the
    // process died before the log was swept.
    await graph.forget(NAME);
    await Deno.writeTextFile(
      join(paths.logs, "homeagent.log.1"),
      `${logLine("Tool call about Mimi Dufort")}\n${logLine(`and ${NAME}`)}\n`,
    );
    const report = await memory.forget.forget(NAME);
    assert.deepEqual(report.logs, { files: 1, lines: 2 });
    assert.deepEqual(await grepHome(home, "Mimi"), []);
    assert.deepEqual(await grepHome(home, "Mirelle"), []);
  } finally {
    await memory.close();
    await Deno.remove(home, { recursive: true });
  }
});
