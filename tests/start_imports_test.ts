/**
 * What the daemon loads at start (docs/benchmarks.md "The guard and the daemon's footprint"):
 * every module main.ts reaches through static imports from the daemon's folders is loaded and
 * run before `serve` starts, so a heavy package there costs every daemon its memory and start-up
 * time. These are loaded on first use instead (an `import()` inside the function that needs it).
 */
import assert from "node:assert/strict";
import { ON_FIRST_USE } from "./fixtures/first_use.ts";

const ROOT = new URL("../", import.meta.url);
const FOLDERS = ["core", "wasm", "adapters", "memory", "plugins", "web"];

interface InfoModule {
  specifier: string;
  dependencies?: { specifier: string; isDynamic?: boolean; code?: { specifier: string } }[];
}

async function graph(): Promise<Map<string, InfoModule>> {
  const modules = new Map<string, InfoModule>();
  for (const folder of FOLDERS) {
    const { stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", new URL(`${folder}/mod.ts`, ROOT).href],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    const info = JSON.parse(new TextDecoder().decode(stdout)) as { modules: InfoModule[] };
    for (const m of info.modules) modules.set(m.specifier, m);
  }
  return modules;
}

/** The package a resolved specifier belongs to (`npm:/zod@4.6.7/v4` → `npm:zod`). */
function packageOf(specifier: string): string {
  if (specifier.startsWith("node:")) return specifier;
  const match = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)/.exec(specifier);
  return match ? `npm:${match[1]}` : specifier;
}

Deno.test("the daemon's folders reach no package of first use through a static import", async () => {
  const modules = await graph();
  const seen = new Set<string>();
  const found: string[] = [];
  const visit = (specifier: string, path: string[]) => {
    if (seen.has(specifier)) return;
    seen.add(specifier);
    for (const dep of modules.get(specifier)?.dependencies ?? []) {
      if (dep.isDynamic || !dep.code) continue;
      const target = dep.code.specifier;
      const file = target.replace(ROOT.href, "");
      const name = [packageOf(target), dep.specifier, file].find((n) => n in ON_FIRST_USE);
      if (name) {
        const via = [...path, specifier].map((s) => s.replace(ROOT.href, "")).join(" → ");
        found.push(`${name} (${ON_FIRST_USE[name]}) is imported at start: ${via}`);
        continue;
      }
      if (target.startsWith("file:")) visit(target, [...path, specifier]);
    }
  };
  for (const folder of FOLDERS) visit(new URL(`${folder}/mod.ts`, ROOT).href, []);
  assert.deepStrictEqual(found, []);
});

Deno.test("main.ts loads nothing that runs but the first agent's module before a plain serve starts its agent", async () => {
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", new URL("main.ts", ROOT).href],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const info = JSON.parse(new TextDecoder().decode(stdout)) as { modules: InfoModule[] };
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const loaded = new Set<string>();
  const visit = (specifier: string) => {
    if (loaded.has(specifier)) return;
    loaded.add(specifier);
    for (const dep of modules.get(specifier)?.dependencies ?? []) {
      if (!dep.isDynamic && dep.code) visit(dep.code.specifier);
    }
  };
  visit(new URL("main.ts", ROOT).href);
  // Each of these a guard loads before its agent starts: node: and npm: packages cost the most.
  assert.deepStrictEqual([...loaded].map((s) => s.replace(ROOT.href, "")).sort(), [
    "main.ts",
    "plugins/builtin/cli/launch.ts",
    "plugins/guard/agent_cache.ts",
    "plugins/guard/first_agent.ts",
  ]);
});

Deno.test("what the guard loads after its first agent reaches no daemon module, even by a literal import()", async () => {
  // Deno reads every literal import() of a graph ahead, as if static: one in the guard's
  // modules made the guard read core's ~90 modules and sync node_modules beside its agent.
  const main = await Deno.readTextFile(new URL("main.ts", ROOT));
  const entries = [...main.matchAll(/entryModule<[^>]*>\(\s*"\.\/([^"]+)"/g)].map((m) => m[1]!);
  assert.ok(entries.includes("plugins/guard/mod.ts"), `main.ts's entry modules: ${entries}`);
  const read = new Set<string>();
  for (const entry of entries) {
    const { stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", new URL(entry, ROOT).href],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    const info = JSON.parse(new TextDecoder().decode(stdout)) as { modules: InfoModule[] };
    const modules = new Map(info.modules.map((m) => [m.specifier, m]));
    const visit = (specifier: string) => {
      if (read.has(specifier)) return;
      read.add(specifier);
      for (const dep of modules.get(specifier)?.dependencies ?? []) {
        if (dep.code) visit(dep.code.specifier);
      }
    };
    visit(new URL(entry, ROOT).href);
  }
  const daemon = [...read].map((s) => s.replace(ROOT.href, ""))
    .filter((s) => s.startsWith("npm:") || /^(core|web|wasm)\//.test(s));
  assert.deepStrictEqual(daemon, []);
});
