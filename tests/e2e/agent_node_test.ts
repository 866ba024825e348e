/**
 * The agent build's `node:` stand-ins (.ci/agent_node/, aliased by .ci/agent_build.ts on POSIX)
 * answer as Deno's node:path, node:url, node:os and node:util do, on random paths and URLs; and
 * the chunks' banner gives packages a working `require` without importing node:module.
 */
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import * as nodeUrl from "node:url";
import * as nodeOs from "node:os";
import { parseArgs as nodeParseArgs } from "node:util";
import fc from "fast-check";
import * as path from "../../.ci/agent_node/path.ts";
import * as url from "../../.ci/agent_node/url.ts";
import * as os from "../../.ci/agent_node/os.ts";
import { parseArgs } from "../../.ci/agent_node/util.ts";
import { AGENT_BANNER } from "../../.ci/agent_build.ts";

const part = fc.constantFrom(
  "",
  ".",
  "..",
  "/",
  "//",
  "a",
  "b.ts",
  ".x",
  "x.",
  "...",
  "é",
  "%2F",
  " ",
);
const pathText = fc.array(part, { maxLength: 6 }).map((parts) => parts.join("/"));
const RUNS = { numRuns: 3000 };

Deno.test("the agent's node:path answers as node:path", () => {
  fc.assert(
    fc.property(pathText, pathText, pathText, (a, b, c) => {
      assert.equal(path.join(a, b, c), nodePath.join(a, b, c));
      assert.equal(path.resolve(a, b), nodePath.resolve(a, b));
      assert.equal(path.normalize(a), nodePath.normalize(a));
      assert.equal(path.relative(a, b), nodePath.relative(a, b));
      assert.equal(path.dirname(a), nodePath.dirname(a));
      assert.equal(path.basename(a), nodePath.basename(a));
      assert.equal(path.basename(a, b), nodePath.basename(a, b));
      assert.equal(path.isAbsolute(a), nodePath.isAbsolute(a));
    }),
    RUNS,
  );
  assert.equal(path.join(), nodePath.join());
  assert.equal(path.resolve(), nodePath.resolve());
  assert.deepEqual([path.sep, path.delimiter], [nodePath.sep, nodePath.delimiter]);
});

Deno.test("the agent's node:url converts file URLs as node:url does", () => {
  fc.assert(
    fc.property(pathText, (p) => {
      const href = nodeUrl.pathToFileURL(`/${p}`).href;
      assert.equal(url.fileURLToPath(href), nodeUrl.fileURLToPath(href));
      assert.equal(url.fileURLToPath(new URL(href)), nodeUrl.fileURLToPath(new URL(href)));
      assert.equal(url.pathToFileURL(p).href, nodeUrl.pathToFileURL(p).href);
    }),
    RUNS,
  );
  for (const bad of ["https://example.com/a", "file://host/a", "file:///a%2Fb", "file:///a%2fb"]) {
    assert.throws(() => nodeUrl.fileURLToPath(bad), TypeError);
    assert.throws(() => url.fileURLToPath(bad), TypeError);
  }
});

Deno.test("the agent's node:os and node:util answer as theirs do", () => {
  assert.equal(os.tmpdir(), nodeOs.tmpdir());
  assert.equal(os.homedir(), nodeOs.homedir());
  const options = { home: { type: "string" }, agent: { type: "boolean" } } as const;
  const args = ["serve", "--home", "/h", "--agent"];
  assert.deepEqual(
    parseArgs({ args, options, allowPositionals: true }),
    nodeParseArgs({ args, options, allowPositionals: true }),
  );
});

Deno.test("the agent chunks' require loads a built-in on its first call", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-agent-banner-" });
  try {
    const file = `${dir}/chunk.js`;
    await Deno.writeTextFile(
      file,
      `${AGENT_BANNER}\nexport const joined = require("node:path").join("a", "..", "b");\n` +
        `export const events = typeof require("node:events").EventEmitter;\n` +
        `export const here = [__filename, __dirname];\n`,
    );
    const chunk = await import(nodeUrl.pathToFileURL(file).href);
    assert.equal(chunk.joined, "b");
    assert.equal(chunk.events, "function");
    assert.deepEqual(chunk.here, [file, `${dir}/`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
