/** The home is private whatever the umask: folders 0700, databases and state files 0600. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ensureHome, writeFileAtomic } from "../../memory/home.ts";
import { openDatabase } from "../../memory/sqlite.ts";
import { MemoryLogger } from "../fakes/logger.ts";

const modeOf = async (path: string) => (await Deno.stat(path)).mode! & 0o777;

async function withRoot(fn: (root: string) => Promise<void>): Promise<void> {
  const root = join(await Deno.makeTempDir({ prefix: "homeagent-modes-" }), "home");
  try {
    await fn(root);
  } finally {
    await Deno.remove(join(root, ".."), { recursive: true });
  }
}

Deno.test("ensureHome creates every folder 0700 and the persona 0600", async () => {
  await withRoot(async (root) => {
    const paths = await ensureHome(root);
    for (const dir of [root, paths.memory, paths.docs, paths.plugins, paths.run, paths.logs]) {
      assert.equal(await modeOf(dir), 0o700, dir);
    }
    assert.equal(await modeOf(paths.persona), 0o600);
  });
});

Deno.test("ensureHome tightens an existing home with loose modes and says so", async () => {
  await withRoot(async (root) => {
    const paths = await ensureHome(root);
    const loose = [paths.configDb, `${paths.configDb}-wal`, paths.context, paths.graphDb];
    for (const file of loose) await Deno.writeTextFile(file, "x", { mode: 0o644 });
    for (const file of loose) await Deno.chmod(file, 0o644);
    await Deno.chmod(root, 0o755);
    await Deno.chmod(paths.memory, 0o775);
    const logger = new MemoryLogger();
    await ensureHome(root, { logger });
    assert.equal(await modeOf(root), 0o700);
    assert.equal(await modeOf(paths.memory), 0o700);
    for (const file of loose) assert.equal(await modeOf(file), 0o600, file);
    const [line] = logger.find("Tightened loose permissions in the home (others could read them)");
    assert.deepEqual(
      (line!.fields.paths as string[]).sort(),
      [root, paths.memory, ...loose].sort(),
    );
    const quiet = new MemoryLogger();
    await ensureHome(root, { logger: quiet });
    assert.equal(quiet.lines.length, 0);
  });
});

Deno.test("openDatabase makes a new database and its WAL files 0600, and tightens an old one", async () => {
  await withRoot(async (root) => {
    await Deno.mkdir(root, { recursive: true });
    const path = join(root, "config.db");
    const db = openDatabase(path, { migrations: ["create table t (x)"] });
    db.exec("insert into t values (1)");
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      assert.equal(await modeOf(file), 0o600, file);
    }
    db.close();
    await Deno.chmod(path, 0o644);
    openDatabase(path, { migrations: ["create table t (x)"] }).close();
    assert.equal(await modeOf(path), 0o600);
  });
});

Deno.test("openDatabase leaves a new database and a reopened one in WAL with synchronous normal", async () => {
  await withRoot(async (root) => {
    await Deno.mkdir(root, { recursive: true });
    const path = join(root, "usage.db");
    for (let open = 0; open < 2; open++) {
      const db = openDatabase(path, { migrations: ["create table t (x)"] });
      assert.equal(db.prepare("pragma journal_mode").get()?.journal_mode, "wal");
      assert.equal(db.prepare("pragma synchronous").get()?.synchronous, 1, "normal");
      db.close();
    }
  });
});

Deno.test("writeFileAtomic writes 0600 files", async () => {
  await withRoot(async (root) => {
    await Deno.mkdir(root, { recursive: true });
    const path = join(root, "context.json");
    await writeFileAtomic(path, "{}");
    assert.equal(await modeOf(path), 0o600);
  });
});
