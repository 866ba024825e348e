import assert from "node:assert/strict";
import { join } from "node:path";
import {
  AGENT_CACHE_DIR,
  AGENT_CACHE_MANIFEST,
  type AgentCacheManifest,
  agentServe,
  checkAgentCache,
  NO_AGENT_CACHE,
} from "../../../plugins/guard/agent_cache.ts";
import { serviceCommand } from "../../../plugins/guard/mod.ts";

/** A checkout with two source files and a cache built from them. */
async function checkout(): Promise<{ repo: string } & AsyncDisposable> {
  const repo = await Deno.makeTempDir({ prefix: "homeagent-cache-" });
  await Deno.mkdir(join(repo, "core"));
  await Deno.writeTextFile(join(repo, "main.ts"), "// main\n");
  await Deno.writeTextFile(join(repo, "core/mod.ts"), "export const a = 1;\n");
  await Deno.mkdir(join(repo, AGENT_CACHE_DIR, "k1"), { recursive: true });
  await Deno.writeTextFile(join(repo, AGENT_CACHE_DIR, "k1/main.js"), "");
  await writeManifest(repo, await manifestOf(repo, ["main.ts", "core/mod.ts"]));
  return { repo, [Symbol.asyncDispose]: () => Deno.remove(repo, { recursive: true }) };
}

async function manifestOf(repo: string, paths: string[]): Promise<AgentCacheManifest> {
  const inputs: AgentCacheManifest["inputs"] = [];
  for (const path of paths) {
    const info = await Deno.stat(join(repo, path));
    inputs.push([path, info.size, info.mtime!.getTime()]);
  }
  return { format: 1, entry: "k1/main.js", inputs };
}

async function writeManifest(repo: string, manifest: unknown): Promise<void> {
  const file = join(repo, AGENT_CACHE_DIR, AGENT_CACHE_MANIFEST);
  await Deno.writeTextFile(file, JSON.stringify(manifest));
}

Deno.test("checkAgentCache gives the entry while every input is as it was built", async () => {
  await using c = await checkout();
  assert.deepEqual(checkAgentCache(c.repo), {
    entry: join(c.repo, AGENT_CACHE_DIR, "k1/main.js"),
  });
});

Deno.test("checkAgentCache calls the cache stale after an edit, a removal or a touch", async () => {
  await using c = await checkout();
  await Deno.writeTextFile(join(c.repo, "core/mod.ts"), "export const a = 2;\n"); // same size
  const when = new Date(Date.now() + 5000);
  await Deno.utime(join(c.repo, "core/mod.ts"), when, when);
  assert.deepEqual(checkAgentCache(c.repo), { stale: "core/mod.ts changed" });
  await writeManifest(c.repo, await manifestOf(c.repo, ["main.ts", "core/mod.ts"]));
  assert.ok("entry" in checkAgentCache(c.repo));
  await Deno.writeTextFile(join(c.repo, "main.ts"), "// main, longer\n");
  assert.deepEqual(checkAgentCache(c.repo), { stale: "main.ts changed" });
  await Deno.remove(join(c.repo, "main.ts"));
  assert.deepEqual(checkAgentCache(c.repo), { stale: "main.ts is gone" });
});

Deno.test("checkAgentCache refuses a missing, unreadable or ill-formed manifest", async () => {
  await using c = await checkout();
  const good = await manifestOf(c.repo, ["main.ts"]);
  for (
    const bad of [
      "not json",
      { ...good, format: 2 },
      { ...good, entry: "../../etc/main.js" },
      { ...good, entry: "/abs/main.js" },
      { ...good, inputs: [["/etc/passwd", 1, 1]] },
      { ...good, inputs: [["../x", 1, 1]] },
      { ...good, inputs: [["main.ts", "1", 1]] },
      null,
    ]
  ) {
    await writeManifest(c.repo, bad);
    const check = checkAgentCache(c.repo);
    assert.ok("stale" in check, JSON.stringify(bad));
  }
  await Deno.remove(join(c.repo, AGENT_CACHE_DIR), { recursive: true });
  assert.deepEqual(checkAgentCache(c.repo), { stale: "no build (deno task build:agent)" });
});

Deno.test("agentServe runs the cache's entry in main.ts's place, with the checkout's deno.json", async () => {
  await using c = await checkout();
  const facts = { execPath: "/usr/bin/deno", repo: c.repo };
  const source = serviceCommand(facts);
  const { command, stale } = agentServe(facts, {});
  assert.equal(stale, undefined);
  assert.deepEqual(command, [
    ...source.slice(0, -2),
    join(c.repo, AGENT_CACHE_DIR, "k1/main.js"),
    "serve",
  ]);
  assert.ok(command.includes(`--config=${join(c.repo, "deno.json")}`));
  // Opted out, stale, a bundle or a compiled binary: the command serviceCommand gives.
  assert.deepEqual(agentServe(facts, { [NO_AGENT_CACHE]: "1" }), {
    command: source,
    stale: `${NO_AGENT_CACHE} is set`,
  });
  const bundle = { ...facts, bundle: "/opt/homeagent.js" };
  assert.deepEqual(agentServe(bundle, {}), { command: serviceCommand(bundle) });
  const compiled = { ...facts, execPath: "/usr/bin/homeagent" };
  assert.deepEqual(agentServe(compiled, {}), { command: serviceCommand(compiled) });
  await Deno.writeTextFile(join(c.repo, "main.ts"), "// edited\n");
  assert.deepEqual(agentServe(facts, {}), { command: source, stale: "main.ts changed" });
});
