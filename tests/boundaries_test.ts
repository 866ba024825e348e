/**
 * Keeps the house plan honest (DESIGN.md §1, STYLE.md): arrows point down only, core/ does no
 * IO, other folders import a module through its mod.ts, the plugin SDK stands alone, and no
 * import circle exists anywhere.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
const MODULES = ["core", "memory", "plugins", "adapters", "wasm", "web"];

/** Which top-level modules each module may import. */
const ALLOWED: Record<string, string[]> = {
  core: [],
  wasm: [],
  memory: ["core", "wasm"],
  adapters: ["core"],
  plugins: ["core"],
  web: ["core"],
};

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && entry.name !== "dist" && entry.name !== "node_modules") {
      yield* sourceFiles(path);
    } else if (entry.isFile && /\.ts$/.test(entry.name)) yield path;
  }
}

function imports(text: string): string[] {
  const found: string[] = [];
  const pattern =
    /(?:^|\n)\s*(?:import|export)\b[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  for (const match of text.matchAll(pattern)) found.push(match[1] ?? match[2]!);
  return found;
}

function moduleOf(path: string): string | undefined {
  const top = relative(ROOT, path).split("/")[0]!;
  return MODULES.includes(top) ? top : undefined;
}

Deno.test("Module imports point down only and cross modules through mod.ts", async () => {
  const problems: string[] = [];
  for (const module of MODULES) {
    for await (const file of sourceFiles(join(ROOT, module))) {
      if (module === "wasm" && file.includes("/assembly/")) continue; // AssemblyScript source
      const text = await Deno.readTextFile(file);
      for (const specifier of imports(text)) {
        if (!specifier.startsWith(".")) continue;
        const target = resolve(dirname(file), specifier);
        const targetModule = moduleOf(target);
        const where = relative(ROOT, file);
        if (targetModule === undefined) {
          problems.push(`${where} imports "${specifier}" outside the modules`);
        } else if (targetModule !== module) {
          if (!ALLOWED[module]!.includes(targetModule)) {
            problems.push(`${where} imports ${targetModule}/ (not allowed from ${module}/)`);
          } else if (relative(join(ROOT, targetModule), target) !== "mod.ts") {
            problems.push(`${where} imports "${specifier}" instead of ${targetModule}/mod.ts`);
          }
        }
      }
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("plugins/sdk/ imports nothing outside itself (plugins run with only it readable)", async () => {
  const sdk = join(ROOT, "plugins", "sdk");
  const problems: string[] = [];
  for await (const file of sourceFiles(sdk)) {
    for (const specifier of imports(await Deno.readTextFile(file))) {
      const inside = specifier.startsWith(".") &&
        !relative(sdk, resolve(dirname(file), specifier)).startsWith("..");
      if (!inside) problems.push(`${relative(ROOT, file)} imports "${specifier}"`);
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("core/ does no IO of its own", async () => {
  const forbidden = [
    /\bDeno\./,
    /\bfetch\(/,
    /\bsetTimeout\(/,
    /\bsetInterval\(/,
    /\bconsole\./,
    /from\s+["']node:(fs|net|http|child_process|os|sqlite)/,
  ];
  const problems: string[] = [];
  for await (const file of sourceFiles(join(ROOT, "core"))) {
    const lines = (await Deno.readTextFile(file)).split("\n");
    lines.forEach((line, i) => {
      if (line.trimStart().startsWith("//") || line.trimStart().startsWith("*")) return;
      for (const pattern of forbidden) {
        if (pattern.test(line)) problems.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
      }
    });
  }
  assert.deepEqual(problems, []);
});

/** Every relative import of every source file (type-only ones too), as absolute paths. */
async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  const files = [join(ROOT, "main.ts")];
  for (const module of MODULES) {
    for await (const file of sourceFiles(join(ROOT, module))) {
      if (!file.includes("/assembly/")) files.push(file);
    }
  }
  for (const file of files) {
    const specifiers = imports(await Deno.readTextFile(file)).filter((s) => s.startsWith("."));
    graph.set(file, specifiers.map((s) => resolve(dirname(file), s)));
  }
  return graph;
}

/** Each circle found by a depth-first walk, as `a.ts → b.ts → a.ts`. */
function circles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string) => {
    const at = path.indexOf(file);
    if (at >= 0) {
      found.push([...path.slice(at), file].map((f) => relative(ROOT, f)).join(" → "));
      return;
    }
    if (done.has(file) || !graph.has(file)) return;
    path.push(file);
    for (const next of graph.get(file)!) visit(next);
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  return found;
}

Deno.test("No source file imports itself through a circle of imports", async () => {
  assert.deepEqual(circles(await importGraph()), []);
});
