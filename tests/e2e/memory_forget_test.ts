/**
 * `homeagent memory forget NAME` as a user runs it: a bad name is refused (exit 2, one line);
 * without a daemon it opens the home's tiers itself; beside a running daemon it goes through
 * the daemon (whose stores stay open), and the web page's forget action does the same. In
 * every case no file of the home holds the name afterwards.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain, startServe } from "../fakes/daemon.ts";

async function tempHome(): Promise<string & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-forget-" });
  return Object.assign(dir, {
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  }) as string & AsyncDisposable;
}

/** An export that mentions `name` in documents and facts. */
async function seed(home: string, name: string): Promise<void> {
  const lines = [
    { type: "homeagent-memory", version: 1 },
    {
      type: "document",
      summary: "",
      content: `Tea with ${name} at noon`,
      source: "import",
      created_at: 1,
    },
    { type: "document", summary: "", content: "Buy bread", source: "import", created_at: 2 },
    { type: "fact", subject: "owner", predicate: "friend_of", object: name, valid_from: 3 },
    {
      type: "fact",
      subject: name,
      predicate: "lives_in",
      object: "Lyon",
      valid_from: 4,
      sentence: `${name} lives in Lyon`,
    },
  ];
  const file = join(home, "seed.jsonl");
  await Deno.writeTextFile(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const imported = await runMain(["memory", "import", "--home", home, file]);
  assert.equal(imported.code, 0, imported.stderr);
  await Deno.remove(file);
}

async function grep(home: string, name: string): Promise<string> {
  const out = await new Deno.Command("grep", { args: ["-r", "-l", "-a", "-i", "-F", name, home] })
    .output();
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test("memory forget refuses a bad name with exit 2 and one line saying why", async () => {
  await using home = await tempHome();
  for (const [args, why] of [[["x"], /single character/], [[], /Usage: .*forget NAME/]] as const) {
    const result = await runMain(["memory", "forget", "--home", `${home}`, ...args]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, why);
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
  }
});

Deno.test("memory forget without a daemon erases the name from the home's files", async () => {
  await using home = await tempHome();
  const h = `${home}`;
  await seed(h, "Quintessa");
  assert.notEqual(await grep(h, "Quintessa"), "");
  const result = await runMain(["memory", "forget", "--home", h, "Quintessa"]);
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.deepEqual([report.graph.entities, report.documents.redacted], [1, 1]);
  assert.equal(await grep(h, "Quintessa"), "");
});

Deno.test("memory forget beside a running daemon goes through it, as does the web page's action", async () => {
  await using home = await tempHome();
  const h = `${home}`;
  await seed(h, "Quintessa");
  await seed(h, "Oluwaseun");
  await using daemon = await startServe(h);
  const cli = await runMain(["memory", "forget", "--home", h, "Quintessa"]);
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(JSON.parse(cli.stdout).graph.entities, 1);
  const url = new URL(daemon.url);
  const web = await fetch(`${url.origin}/api/v1/memory/forget`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${url.searchParams.get("token")}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ name: "Oluwaseun" }),
  });
  assert.equal(web.status, 200);
  const { documents } = (await web.json()).report;
  // Redacted, it reads as the first one's redacted document: kept once.
  assert.deepEqual(documents, { redacted: 0, removed: 1 });
  assert.equal(await grep(h, "Quintessa"), "", "running: no file holds the name");
  assert.equal(await grep(h, "Oluwaseun"), "");
  const stopped = await daemon.stop();
  assert.equal(stopped.code, 0);
  assert.doesNotMatch(stopped.stderr, /Quintessa|Oluwaseun/, "the daemon never logs the name");
  assert.equal(await grep(h, "Quintessa"), "");
});
