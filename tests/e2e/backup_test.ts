/**
 * `homeagent backup FILE` / `restore FILE` as an owner runs them: a backup taken while the
 * daemon serves the home, read by GNU tar, restored into a new home and over the old one (kept
 * aside), refused while a daemon runs and when the archive is damaged, never overwriting.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { runMain, startServe } from "../fakes/daemon.ts";

async function tempDir(): Promise<string & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-backup-" });
  return Object.assign(dir, {
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  }) as string & AsyncDisposable;
}

async function seed(home: string): Promise<void> {
  const lines = [
    { type: "homeagent-memory", version: 1 },
    ...Array.from({ length: 30 }, (_, i) => ({
      type: "document",
      summary: "",
      content: `Note ${i}: the heron nests by the lake`,
      source: "import",
      created_at: Date.UTC(2026, 0, 1) + i,
    })),
    { type: "fact", subject: "Ann", predicate: "lives_in", object: "Oslo", valid_from: 1 },
  ];
  const file = join(dirname(home), "seed.jsonl");
  await Deno.writeTextFile(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const result = await runMain(["memory", "import", "--home", home, file]);
  assert.equal(result.code, 0, result.stderr);
  await Deno.mkdir(join(home, "knowledge/birds"), { recursive: true });
  await Deno.writeTextFile(join(home, "knowledge/birds/content.md"), "# Birds\nHerons wade.\n");
}

async function stats(home: string): Promise<{ documents: number; graph: unknown }> {
  const result = await runMain(["memory", "stats", "--home", home]);
  assert.equal(result.code, 0, result.stderr);
  const { documents, graph } = JSON.parse(result.stdout);
  return { documents, graph };
}

Deno.test("backup while the daemon runs; restore into a new home and over the old one", async () => {
  await using dir = await tempDir();
  const home = join(`${dir}`, "home");
  await Deno.mkdir(home);
  await seed(home);
  const file = join(`${dir}`, "home.tar.gz");
  await using daemon = await startServe(home);
  const taken = await runMain(["backup", "--home", home, file]);
  assert.equal(taken.code, 0, taken.stderr);
  const report = JSON.parse(taken.stdout);
  for (const db of ["config.db", "memory/graph.db", "memory/docs/index.db"]) {
    assert.ok(report.databases.includes(db), `${db} copied online: ${report.databases}`);
  }
  const again = await runMain(["backup", "--home", home, file]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /exists already/);
  const listed = await new Deno.Command("tar", { args: ["-tzf", file] }).output();
  const names = new TextDecoder().decode(listed.stdout).split("\n");
  assert.ok(names.includes("homeagent-backup.json") && names.includes("persona.md"));
  assert.ok(!names.some((n) => n.startsWith("run/") || n.startsWith("logs/")));

  const busy = await runMain(["restore", "--home", home, file]);
  assert.equal(busy.code, 1);
  assert.match(busy.stderr, /while its daemon runs/);
  await daemon.stop();

  const fresh = join(`${dir}`, "fresh");
  const restored = await runMain(["restore", "--home", fresh, file]);
  assert.equal(restored.code, 0, restored.stderr);
  assert.equal(JSON.parse(restored.stdout).previous, undefined);
  const before = await stats(home);
  assert.equal(before.documents, 30);
  assert.deepEqual(await stats(fresh), before);
  assert.equal(
    await Deno.readTextFile(join(fresh, "knowledge/birds/content.md")),
    "# Birds\nHerons wade.\n",
  );
  const recall = JSON.parse((await runMain(["memory", "recall", "--home", fresh, "heron"])).stdout);
  assert.ok(recall.documents.length > 0);

  await Deno.writeTextFile(join(home, "persona.md"), "changed after the backup");
  const over = await runMain(["memory", "restore", "--home", home, file]);
  assert.equal(over.code, 0, over.stderr);
  const previous = JSON.parse(over.stdout).previous as string;
  assert.equal(await Deno.readTextFile(join(previous, "persona.md")), "changed after the backup");
  assert.notEqual(await Deno.readTextFile(join(home, "persona.md")), "changed after the backup");
});

Deno.test("restore refuses a damaged or foreign archive and leaves the home as it was", async () => {
  await using dir = await tempDir();
  const home = join(`${dir}`, "home");
  await Deno.mkdir(home);
  await seed(home);
  const file = join(`${dir}`, "b.tar.gz");
  assert.equal((await runMain(["backup", "--home", home, file])).code, 0);
  const bytes = await Deno.readFile(file);
  const cut = join(`${dir}`, "cut.tar.gz");
  await Deno.writeFile(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
  const plain = join(`${dir}`, "plain.tar.gz");
  const made = await new Deno.Command("tar", {
    args: ["-czf", plain, "-C", home, "persona.md"],
  }).output();
  assert.equal(made.code, 0);
  const target = join(`${dir}`, "target");
  for (const [archive, why] of [[cut, /Cannot restore/], [plain, /no homeagent-backup\.json/]]) {
    const result = await runMain(["restore", "--home", target, archive as string]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stderr, why as RegExp);
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
  }
  const left = [...Deno.readDirSync(`${dir}`)].map((e) => e.name).sort();
  assert.deepEqual(left, ["b.tar.gz", "cut.tar.gz", "home", "plain.tar.gz", "seed.jsonl"]);
});
