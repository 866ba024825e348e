/**
 * No source file grows past 400 lines (DESIGN.md §1, issue 13): a file that big holds more than
 * one job. Generated files (the web bundles, fixtures, lock files) are not source.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const LIMIT = 400;
const SOURCE = /\.(ts|lua)$/;
const SKIP = ["node_modules", "web/ui/dist", "tests/fixtures", "tests/artifacts", "dist", ".git"];

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (SKIP.includes(relative(ROOT, path))) continue;
    if (entry.isDirectory) yield* sources(path);
    else if (entry.isFile && SOURCE.test(entry.name)) yield path;
  }
}

Deno.test("no source file is over 400 lines", async () => {
  const long: string[] = [];
  for await (const path of sources(ROOT)) {
    const lines = (await Deno.readTextFile(path)).split("\n").length - 1;
    if (lines > LIMIT) long.push(`${relative(ROOT, path)}: ${lines} lines`);
  }
  assert.deepEqual(long, [], "split these along their seams");
});
