/**
 * Keeps the house plan honest (DESIGN.md §1, STYLE.md, docs/architecture.md "Rooms and
 * arrows"): arrows point down only, between modules and between the rooms inside each module;
 * a module is entered through its mod.ts and a `_private.ts` file only from its own folder;
 * core/ does no IO; the plugin SDK stands alone; and no import circle exists anywhere.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
const MODULES = ["core", "memory", "plugins", "adapters", "wasm", "web"];

/** Which top-level modules each module may import (always through the other's mod.ts). */
const ALLOWED: Record<string, string[]> = {
  core: [],
  wasm: [],
  memory: ["core", "wasm"],
  adapters: ["core"],
  plugins: ["core"],
  web: ["core"],
};

/**
 * The rooms of each module and the rooms each may import. A room is a folder directly under
 * its module (`core/llm`), one level deeper where a folder holds rooms of its own
 * (`plugins/builtin/timer`), or the module's top-level files together (`.`). A mod.ts may
 * import anything in its module: it is the face that names what others get.
 */
const ROOMS: Record<string, Record<string, string[]>> = {
  core: {
    lua: [],
    config: [],
    llm: ["config"],
    prompt: ["llm"],
    kernel: ["llm", "prompt"],
    memory: ["prompt", "kernel"],
    agents: ["config", "llm", "prompt", "kernel", "memory"],
    ".": ["kernel"],
  },
  memory: {
    text: [],
    image: [],
    embed: ["text", "image"],
    recall: ["text", "embed"],
    stores: [],
    log: [],
    docs: ["text", "embed", "recall", "stores"],
    graph: ["text", "embed", "recall", "docs"],
    knowledge: ["text", "recall", "docs"],
    media: ["image", "embed", "graph"],
    loops: ["text", "log", "graph"],
    forget: ["docs", "graph", "knowledge", "log"],
    backup: [],
    ".": [
      "text",
      "embed",
      "recall",
      "stores",
      "log",
      "docs",
      "graph",
      "knowledge",
      "media",
      "loops",
      "forget",
      "backup",
    ],
    eval: [".", "text", "recall", "docs", "graph", "loops"],
    cli: [
      ".",
      "text",
      "embed",
      "recall",
      "stores",
      "docs",
      "graph",
      "knowledge",
      "media",
      "loops",
      "eval",
      "backup",
    ],
  },
  plugins: {
    sdk: [],
    host: ["sdk"],
    guard: ["sdk"],
    "builtin/agentcli": [],
    "builtin/cfgmgr": [],
    "builtin/files": [],
    "builtin/changes": [],
    "builtin/cmd": ["builtin/files"],
    "builtin/timer": [],
    "builtin/healthcheck": ["host"],
    "builtin/clawhubadapter": ["host"],
    "builtin/cli": ["host", "guard", "builtin/clawhubadapter"],
    "builtin/mcp": ["host", "builtin/cli"],
    "builtin/.": ["host", "builtin/files", "builtin/changes", "builtin/cmd", "builtin/timer"],
    ".": [
      "host",
      "guard",
      "builtin/.",
      "builtin/agentcli",
      "builtin/cfgmgr",
      "builtin/clawhubadapter",
      "builtin/cli",
      "builtin/healthcheck",
      "builtin/mcp",
    ],
  },
  adapters: { lua: [], ".": ["lua"] },
  wasm: { ".": [] },
  web: { ui: [], ".": [] },
};

/**
 * What main.ts may import besides each module's mod.ts: the light path of the guard process.
 * `serve` runs as a small guard that must not evaluate the daemon's modules (docs/operations.md),
 * so main.ts loads these first and the five mod.ts only when it runs the agent; before all of
 * them, first_agent.ts, with which a plain `serve` starts its agent.
 */
const MAIN_ENTRIES = [
  "plugins/guard/first_agent.ts",
  "plugins/guard/mod.ts",
  "memory/home.ts",
  "adapters/json_logger.ts",
  "adapters/system_clock.ts",
];

/**
 * Faces: a module's mod.ts, and the guard's entries (with the agent build cache's check, which
 * first_agent.ts runs before the guard loads anything). A face may import anything in its module.
 */
const FACES = [
  "plugins/guard/mod.ts",
  "plugins/guard/first_agent.ts",
  "plugins/guard/agent_cache.ts",
];

/** Folders whose subfolders are rooms of their own. */
const SUBDIVIDED = ["plugins/builtin"];

/**
 * Files every room of their module may import, because they are the module's vocabulary: the
 * contracts and the small shared parts the rooms are written against. A vocabulary file
 * imports only vocabulary, so leaning on it never makes an arrow point up.
 */
const VOCABULARY: Record<string, string[]> = {
  core: [
    "errors.ts",
    "ports.ts",
    "names.ts",
    "input.ts",
    "events.ts",
    "llm/provider.ts",
    "llm/call.ts",
    "llm/sources.ts",
    "prompt/budget.ts",
    "prompt/estimate.ts",
    "kernel/tools.ts",
    "kernel/define_tool.ts",
    "kernel/questions.ts",
    "memory/embedding.ts",
    "memory/ranker.ts",
    "memory/media.ts",
    "memory/forget.ts",
  ],
  memory: ["home.ts", "sqlite.ts", "forget/matcher.ts", "forget/quick_hash.ts"],
  plugins: [
    "builtin/_fs.ts",
    "builtin/tool_errors.ts",
    "builtin/changes/types.ts",
    "builtin/files/sandbox.ts",
  ],
  adapters: [
    "_body_reader.ts",
    "_client.ts",
    "_http.ts",
    "_openai_wire.ts",
    "_stream_assembler.ts",
    "model_windows.ts",
    "system_clock.ts",
  ],
  wasm: [],
  web: [],
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

/** One relative import between two files of the tree, as paths from the root. */
interface Edge {
  from: string;
  to: string;
}

/** Every relative import of every module file and of main.ts (type-only ones too). */
async function importEdges(): Promise<Edge[]> {
  const files = [join(ROOT, "main.ts")];
  for (const module of MODULES) {
    for await (const file of sourceFiles(join(ROOT, module))) {
      if (!file.includes("/assembly/")) files.push(file); // AssemblyScript source
    }
  }
  const edges: Edge[] = [];
  for (const file of files) {
    for (const specifier of imports(await Deno.readTextFile(file))) {
      if (!specifier.startsWith(".")) continue;
      edges.push({
        from: relative(ROOT, file),
        to: relative(ROOT, resolve(dirname(file), specifier)),
      });
    }
  }
  return edges;
}

/** The room of `path` (a path from the root inside `module`). */
function roomOf(module: string, path: string): string {
  const parts = path.split("/").slice(1);
  if (parts.length === 1) return ".";
  const folder = `${module}/${parts[0]}`;
  if (SUBDIVIDED.includes(folder)) {
    return parts.length === 2 ? `${parts[0]}/.` : parts.slice(0, 2).join("/");
  }
  return parts[0]!;
}

function isVocabulary(module: string, path: string): boolean {
  return VOCABULARY[module]!.includes(path.slice(module.length + 1));
}

/** What is wrong with `edges` by the plan: one line per wrong import. */
function problemsOf(edges: readonly Edge[]): string[] {
  const problems: string[] = [];
  for (const { from, to } of edges) {
    const module = moduleOf(join(ROOT, from));
    const target = moduleOf(join(ROOT, to));
    if (module === undefined) {
      // main.ts: the composition root enters each module through its face
      const face = target !== undefined && to === `${target}/mod.ts`;
      if (to.endsWith(".ts") && !face && !MAIN_ENTRIES.includes(to)) {
        problems.push(`${from} imports "${to}" instead of a module's mod.ts`);
      }
      continue;
    }
    if (target === undefined) {
      problems.push(`${from} imports "${to}" outside the modules`);
    } else if (target !== module) {
      if (!ALLOWED[module]!.includes(target)) {
        problems.push(`${from} imports ${target}/ (not allowed from ${module}/)`);
      } else if (to !== `${target}/mod.ts`) {
        problems.push(`${from} imports "${to}" instead of ${target}/mod.ts`);
      }
    } else {
      problems.push(...roomProblems(module, from, to));
    }
  }
  return problems;
}

/** The problems of one import inside `module`: room arrows, vocabulary and private files. */
function roomProblems(module: string, from: string, to: string): string[] {
  const problems: string[] = [];
  const name = to.split("/").pop()!;
  if (name.startsWith("_") && !(from.startsWith(`${dirname(to)}/`))) {
    problems.push(`${from} imports "${to}", private to ${dirname(to)}/`);
  }
  // A mod.ts is a face, and a non-code file (a page, a bundle, a Lua script) is an asset.
  if (from === `${module}/mod.ts` || FACES.includes(from)) return problems;
  if (!to.endsWith(".ts")) return problems;
  const [a, b] = [roomOf(module, from), roomOf(module, to)];
  if (isVocabulary(module, from) && !isVocabulary(module, to)) {
    problems.push(`${from} is vocabulary of ${module}/ and imports "${to}", which is not`);
  } else if (a !== b && !isVocabulary(module, to) && !(ROOMS[module]![a] ?? []).includes(b)) {
    const known = a in ROOMS[module]! ? "" : ` (${module}/${a} is in no room of the plan)`;
    problems.push(`${from} imports "${to}": ${module}/${a} may not import ${module}/${b}${known}`);
  }
  return problems;
}

/** Each circle in a graph of names, as `a → b → a`. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string) => {
    const at = path.indexOf(node);
    if (at >= 0) {
      found.push([...path.slice(at), node].join(" → "));
      return;
    }
    if (done.has(node) || !graph.has(node)) return;
    path.push(node);
    for (const next of graph.get(node)!) visit(next);
    path.pop();
    done.add(node);
  };
  for (const node of graph.keys()) visit(node);
  return found;
}

Deno.test("Imports follow the plan: modules through mod.ts, rooms down their arrows", async () => {
  assert.deepEqual(problemsOf(await importEdges()), []);
});

Deno.test("The plan's checks find a wrong import of each kind", () => {
  const wrong: Edge[] = [
    { from: "core/llm/manager.ts", to: "core/agents/kernel.ts" },
    { from: "core/events.ts", to: "core/kernel/agent.ts" },
    { from: "memory/text/keywords.ts", to: "memory/graph/db.ts" },
    { from: "memory/graph/db.ts", to: "memory/docs/_index_db.ts" },
    { from: "plugins/builtin/timer/mod.ts", to: "plugins/host/registry.ts" },
    { from: "web/app.ts", to: "core/kernel/agent.ts" },
    { from: "memory/open.ts", to: "plugins/mod.ts" },
    { from: "core/newroom/x.ts", to: "core/kernel/agent.ts" },
    { from: "main.ts", to: "memory/open.ts" },
  ];
  assert.equal(problemsOf(wrong).length, wrong.length, problemsOf(wrong).join("\n"));
  assert.deepEqual(problemsOf([{ from: "core/agents/kernel.ts", to: "core/kernel/agent.ts" }]), []);
});

Deno.test("The plan's room arrows point down: no circle among the rooms", () => {
  const problems: string[] = [];
  for (const [module, rooms] of Object.entries(ROOMS)) {
    problems.push(...circles(new Map(Object.entries(rooms))).map((c) => `${module}: ${c}`));
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

Deno.test("No source file imports itself through a circle of imports", async () => {
  const graph = new Map<string, string[]>();
  for (const { from, to } of await importEdges()) graph.set(from, [...graph.get(from) ?? [], to]);
  assert.deepEqual(circles(graph), []);
});
