/**
 * What a new owner sees when they type something wrong: one `error:` line that says what to do,
 * exit 2 for bad usage and 1 for a failure, never a stack trace or an OS error's bare text.
 */
import assert from "node:assert/strict";
import { runMain } from "../fakes/daemon.ts";

async function tempDir(): Promise<string & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-bad-input-" });
  return Object.assign(dir, {
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  }) as string & AsyncDisposable;
}

/** Runs `args` and checks it failed with exit `code` and one `error:` line matching `message`. */
async function fails(args: string[], code: number, message: RegExp): Promise<void> {
  const result = await runMain(args);
  assert.equal(result.code, code, `${args.join(" ")}: ${result.stderr}`);
  assert.equal(result.stdout, "", args.join(" "));
  assert.match(result.stderr, /^error: [^\n]+\n$/, `${args.join(" ")}: one line`);
  assert.match(result.stderr, message, args.join(" "));
}

Deno.test("a wrong flag is one error line naming it and what to type instead", async () => {
  await using home = await tempDir();
  const h = ["--home", `${home}`];
  await fails(["serve", "--bogus", ...h], 2, /Unknown option "--bogus": --help lists/);
  await fails(["status", "-x", ...h], 2, /Unknown option "-x"/);
  // parseArgs says this in three lines ("… is ambiguous. Did you forget …").
  await fails(["serve", "--port", ...h], 2, /Option "--port" needs a value, as in --port VALUE/);
  await fails(["chat", "hi", ...h, "--image"], 2, /Option "--image" needs a value/);
  await fails(["config", "get", "--reveal=yes", "k", ...h], 2, /"--reveal" does not take/);
});

Deno.test("a home that is a file is refused by every command with one line, not an OS error", async () => {
  await using dir = await tempDir();
  const file = `${dir}/home`;
  await Deno.writeTextFile(file, "not a home\n");
  const isFile = /Cannot use home ".*\/home": it is a file, not a folder; pass --home/;
  for (const command of [["serve", "--port", "0"], ["status"], ["config", "list"], ["doctor"]]) {
    await fails([...command, "--home", file], 1, isFile);
  }
  await fails(["memory", "stats", "--home", `${file}/sub`], 1, /a file is in its path/);
  assert.equal(await Deno.readTextFile(file), "not a home\n");
});

Deno.test("a path that is not there is named with what to give instead", async () => {
  await using home = await tempDir();
  const h = ["--home", `${home}`];
  const missing = `${home}/nowhere`;
  await fails(
    ["plugin", "install", `${missing}.hmap`, ...h],
    1,
    /^error: Cannot install ".*nowhere\.hmap": there is no such file; give .*FILE\.hmap/,
  );
  await fails(
    ["memory", "import", missing, ...h],
    1,
    /^error: Cannot import ".*nowhere": there is no such file or folder; give what `memory export`/,
  );
  await fails(
    ["backup", `${missing}/home.tar.gz`, ...h],
    1,
    /^error: Cannot back up to ".*nowhere\/home\.tar\.gz": there is no folder ".*nowhere"/,
  );
  await assert.rejects(Deno.stat(missing), Deno.errors.NotFound);
});

Deno.test("plugin install of a folder says to pack it as a .hmap", async () => {
  await using home = await tempDir();
  const folder = new URL("../fixtures/plugins/outbox", import.meta.url).pathname;
  await fails(
    ["plugin", "install", folder, "--yes", "--home", `${home}`],
    1,
    /^error: Cannot install ".*outbox": it is a folder, not a package; zip it first/,
  );
});

Deno.test("eval memory names the corpus or questions file that is not there", async () => {
  await using home = await tempDir();
  const missing = `${home}/turns.jsonl`;
  await fails(
    ["eval", "memory", "--corpus", missing, "--questions", missing, "--home", `${home}`],
    1,
    /^error: Cannot read ".*turns\.jsonl": there is no such file\n$/,
  );
});

Deno.test("plugin's usage line names npm: installs, as --help does", async () => {
  await using home = await tempDir();
  await fails(
    ["plugin", "install", "--home", `${home}`],
    2,
    /^error: Usage: .* plugin list \| install FILE\.hmap\|npm:PACKAGE \[--yes\] \| /,
  );
});
