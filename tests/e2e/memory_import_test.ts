import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain, startServe } from "../fakes/daemon.ts";

async function tempHome(): Promise<string & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-import-" });
  return Object.assign(dir, {
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  }) as string & AsyncDisposable;
}

/** An export of `n` documents about zebras and two facts, as `memory export` writes it. */
async function writeExport(dir: string, n: number): Promise<string> {
  const lines = [{ type: "homeagent-memory", version: 1 }];
  for (let i = 0; i < n; i++) {
    lines.push({
      type: "document",
      summary: "",
      content: `Note ${i}: zebra number ${i} grazes near lake Kivu`,
      source: "import",
      "created_at": Date.UTC(2026, 0, 1) + i,
    } as never);
  }
  for (const [object, month] of [["Oslo", 0], ["Bergen", 6]] as const) {
    lines.push({
      type: "fact",
      subject: "Ann",
      predicate: "lives_in",
      object,
      "valid_from": Date.UTC(2025, month, 1),
    } as never);
  }
  const path = join(dir, "export.jsonl");
  await Deno.writeTextFile(path, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return path;
}

interface Counts {
  documents: number;
  facts: number;
  skipped: { documents: number; facts: number };
}

async function importFile(home: string, file: string): Promise<Counts> {
  const result = await runMain(["memory", "import", "--home", home, file]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

function docFiles(home: string): number {
  return [...Deno.readDirSync(join(home, "memory", "docs"))]
    .filter((e) => e.name.endsWith(".json")).length;
}

Deno.test("memory import beside a running daemon goes through it: searchable at once, concurrent imports both succeed", async () => {
  await using home = await tempHome();
  const h = `${home}`;
  const file = await writeExport(h, 300);
  await using daemon = await startServe(h);
  const [a, b] = await Promise.all([importFile(h, file), importFile(h, file)]);
  assert.equal(a.documents + b.documents, 300);
  assert.equal(a.skipped.documents + b.skipped.documents, 300, "the second finds every one");
  assert.equal(docFiles(h), 300, "no half-written copies left behind");

  const url = new URL(daemon.url);
  const token = url.searchParams.get("token")!;
  const search = await fetch(`${url.origin}/api/v1/memory/documents?q=zebra%20Kivu&limit=5`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const found = await search.json() as { documents: { summary: string }[] };
  assert.equal(found.documents.length, 5, "the daemon searches what was imported, no restart");
  assert.match(found.documents[0]!.summary, /zebra/);
  const status = JSON.parse((await runMain(["status", "--home", h])).stdout);
  assert.equal(status.memory.documents, 300);

  const again = await importFile(h, file);
  assert.deepEqual(again, { documents: 0, facts: 0, skipped: { documents: 300, facts: 2 } });
});

Deno.test("memory import without a daemon: two at once both succeed, all or nothing, each document once", async () => {
  await using home = await tempHome();
  const h = `${home}`;
  const file = await writeExport(h, 300);
  const [a, b] = await Promise.all([importFile(h, file), importFile(h, file)]);
  assert.equal(a.documents + b.documents, 300);
  assert.equal(a.skipped.documents + b.skipped.documents, 300);
  assert.equal(docFiles(h), 300);
  const stats = JSON.parse((await runMain(["memory", "stats", "--home", h])).stdout);
  assert.equal(stats.documents, 300);
  assert.deepEqual(
    [stats.graph.relations, stats.graph.closed],
    [1, 1],
    "facts committed once: Bergen open, Oslo closed",
  );
  const recall = JSON.parse((await runMain(["memory", "recall", "--home", h, "zebra 17"])).stdout);
  assert.ok(recall.documents.length > 0);
});
