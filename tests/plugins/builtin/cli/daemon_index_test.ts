import assert from "node:assert/strict";
import { join } from "node:path";
import { DaemonIndex, daemonIndexDir } from "../../../../plugins/mod.ts";

async function tempDir(): Promise<string & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-index-" });
  return Object.assign(dir, {
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  }) as string & AsyncDisposable;
}

Deno.test("daemonIndexDir prefers HOMEAGENT_RUNTIME_DIR, then XDG_RUNTIME_DIR, then the temp folder", () => {
  assert.equal(daemonIndexDir({ HOMEAGENT_RUNTIME_DIR: "/r", XDG_RUNTIME_DIR: "/x" }, 7), "/r");
  assert.equal(daemonIndexDir({ HOMEAGENT_RUNTIME_DIR: "" }, 7), undefined, "empty turns it off");
  assert.equal(daemonIndexDir({ XDG_RUNTIME_DIR: "/run/user/7" }, 7), "/run/user/7/homeagent");
  assert.match(daemonIndexDir({}, 7)!, /homeagent-7$/);
  assert.equal(daemonIndexDir({}, null), undefined);
});

Deno.test("DaemonIndex lists daemons whose socket answers and forgets dead ones", async () => {
  await using dir = await tempDir();
  const index = new DaemonIndex(join(`${dir}`, "runtime"));
  assert.deepEqual(await index.running(), [], "no folder yet: nothing, no error");
  const socket = join(`${dir}`, "live.sock");
  const listener = Deno.listen({ transport: "unix", path: socket });
  const accepting = (async () => {
    for await (const conn of listener) conn.close();
  })();
  try {
    const removeLive = await index.add({ home: "/homes/live", pid: 11, socket });
    await index.add({ home: "/homes/dead", pid: 12, socket: join(`${dir}`, "dead.sock") });
    const info = await Deno.stat(join(`${dir}`, "runtime"));
    assert.equal(info.mode! & 0o777, 0o700);
    assert.deepEqual(await index.running(), [{ home: "/homes/live", pid: 11, socket }]);
    const left = [...Deno.readDirSync(join(`${dir}`, "runtime"))];
    assert.equal(left.length, 1, "the dead daemon's entry was removed");
    await removeLive();
    assert.deepEqual(await index.running(), []);
  } finally {
    listener.close();
    await accepting.catch(() => {});
  }
});

Deno.test("DaemonIndex ignores a folder others can read or write", async () => {
  await using dir = await tempDir();
  const open = join(`${dir}`, "open");
  await Deno.mkdir(open);
  await Deno.chmod(open, 0o777);
  const index = new DaemonIndex(open);
  await index.add({ home: "/h", pid: 1, socket: "/nowhere.sock" });
  assert.deepEqual([...Deno.readDirSync(open)], [], "nothing written into a shared folder");
  await Deno.writeTextFile(
    join(open, "planted.json"),
    JSON.stringify({ home: "/evil", pid: 1, socket: "/x" }),
  );
  assert.deepEqual(await index.running(), []);
});
