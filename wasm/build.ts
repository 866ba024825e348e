// deno-lint-ignore-file no-console
/**
 * Builds wasm/hot_loops.wasm from wasm/assembly/index.ts (the entry; it gathers the kernel
 * modules beside it) with the npm AssemblyScript compiler.
 *
 *   deno task build:wasm            rebuild and write wasm/hot_loops.wasm
 *   deno task build:wasm --check    rebuild in memory; exit 1 if it differs from the committed file
 *
 * The compiler runs in-process through its JS API (`asc.main`), with file output captured in
 * memory, so the build needs no network and no child process.
 * @module
 */
import asc from "assemblyscript/asc";

/** Compiler flags; changing them changes the committed bytes, so rebuild after an edit. */
export const ASC_FLAGS: readonly string[] = [
  "-O3",
  "--runtime",
  "stub",
  "--noAssert",
  "--enable",
  "simd",
  "--initialMemory",
  "1",
];

const WASM_DIR = new URL("./", import.meta.url);
const SOURCE = new URL("assembly/index.ts", WASM_DIR);
const OUTPUT = new URL("hot_loops.wasm", WASM_DIR);
const REBUILD = "deno task build:wasm";

/** Compiles the AssemblyScript source and returns the wasm bytes; throws with asc's diagnostics. */
export async function compileHotLoops(): Promise<Uint8Array> {
  const outName = "hot_loops.wasm";
  let binary: Uint8Array | undefined;
  const { error, stderr } = await asc.main(
    ["assembly/index.ts", ...ASC_FLAGS, "--outFile", outName],
    {
      readFile: async (name, baseDir) => {
        try {
          // The modules import each other as "./x.ts", the way Deno resolves them (deno check
          // and lint read them too); asc appends its own ".ts" to an import path.
          const path = name.endsWith(".ts.ts") ? name.slice(0, -3) : name;
          return await Deno.readTextFile(new URL(`${baseDir}/${path}`, toDirUrl(WASM_DIR)));
        } catch {
          return null;
        }
      },
      writeFile: (name, contents) => {
        if (name === outName && contents instanceof Uint8Array) binary = contents.slice();
      },
      listFiles: () => [],
    },
  );
  if (error) throw new Error(`Cannot compile "${SOURCE.pathname}": ${error.message}\n${stderr}`);
  if (!binary) throw new Error(`Cannot compile "${SOURCE.pathname}": asc wrote no binary`);
  return binary;
}

function toDirUrl(url: URL): URL {
  return url.href.endsWith("/") ? url : new URL(`${url.href}/`);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

async function readCommitted(): Promise<Uint8Array | null> {
  try {
    return await Deno.readFile(OUTPUT);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

async function main(args: string[]): Promise<number> {
  const check = args.includes("--check");
  const started = performance.now();
  const bytes = await compileHotLoops();
  const ms = Math.round(performance.now() - started);
  console.log(`build:wasm: compiled wasm/assembly/index.ts (${bytes.length} bytes, ${ms} ms)`);
  if (check) {
    const committed = await readCommitted();
    if (!committed || !sameBytes(committed, bytes)) {
      const why = committed ? "differs from a fresh build" : "is missing";
      console.error(`build:wasm: wasm/hot_loops.wasm ${why}; rebuild with \`${REBUILD}\``);
      return 1;
    }
    console.log("build:wasm: wasm/hot_loops.wasm matches the source");
    return 0;
  }
  await Deno.writeFile(OUTPUT, bytes);
  console.log(`build:wasm: wrote wasm/hot_loops.wasm`);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
