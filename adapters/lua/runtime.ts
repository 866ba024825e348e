/**
 * The Lua adapter runtime: finds adapter scripts (a copy in `<home>/adapters/` wins over the
 * bundled one and is reloaded when its file changes), keeps one sandboxed VM per source, and
 * builds LuaProviders for createProviderFactory's `adapters` table.
 */
import { join } from "node:path";
import type { Logger, Provider, SourceConfig } from "../../core/mod.ts";
import type { NativeClientOptions } from "../_client.ts";
import { bundledAdapters } from "./bundled.ts";
import { hostHttp } from "./_host_http.ts";
import { LuaProvider, type LuaVmLease } from "./provider.ts";
import { createLuaVm, type LuaVm } from "./vm.ts";

export { installBundledAdapters } from "./_install.ts";

/** Builds the Provider of one source (the shape of adapters/mod.ts AdapterBuilder). */
export type LuaAdapterBuilder = (source: SourceConfig, options: NativeClientOptions) => Provider;

/** Prefix that picks the Lua adapter where a native client has the same name (`lua:openai`). */
export const LUA_PREFIX = "lua:";

/** Names served by a native TypeScript client unless prefixed with `lua:`. */
const NATIVE = new Set(["openai", "ollama"]);

/** One adapter script as loaded now. */
export interface LuaScript {
  name: string;
  text: string;
  /** Shown in Lua error lines: the file name. */
  chunkname: string;
  /** Changes whenever the text may have changed (file path, mtime and size). */
  version: string;
}

/** Options of LuaAdapterRuntime. */
export interface LuaAdapterRuntimeOptions {
  logger: Logger;
  /** `<home>/adapters`: a `<name>.lua` here wins over the bundled script. */
  dir?: string;
  /** Scripts shipped in the program; default the eight bundled adapters. */
  bundled?: ReadonlyMap<string, string>;
  /** wasmoon's glue.wasm path (for single-file bundles, RECIPES.md §11); default the package's. */
  wasmPath?: string;
  /** Instruction budget of one script call (default 5,000,000). */
  instructionLimit?: number;
  /** Execution time budget of one script call in ms (default 1000). */
  timeLimitMs?: number;
  /** Memory one VM may hold, bytes (default 64 MB). */
  memoryLimitBytes?: number;
  /** HTTP client of http_get/http_post; default globalThis.fetch. */
  fetch?: typeof fetch;
}

interface Loaded {
  version: string;
  vm: Promise<LuaVm>;
  /** The VM once it loaded. */
  instance?: LuaVm;
  active: number;
  retired: boolean;
}

/** What the runtime's live VMs hold. */
export interface LuaAdapterMemory {
  vms: number;
  /** Lua heaps together. */
  heapBytes: number;
  /** Their wasm memories together (what the process holds for them). */
  wasmBytes: number;
}

/** Script lookup, hot reload and VM leasing for every Lua-adapted source. */
export class LuaAdapterRuntime {
  #options: LuaAdapterRuntimeOptions;
  #bundled: ReadonlyMap<string, string>;
  #texts = new Map<string, LuaScript>();
  #live = new Set<LuaVm>();

  constructor(options: LuaAdapterRuntimeOptions) {
    this.#options = options;
    this.#bundled = options.bundled ?? bundledAdapters;
  }

  /** What the live VMs hold now. */
  memory(): LuaAdapterMemory {
    let heapBytes = 0;
    let wasmBytes = 0;
    for (const vm of this.#live) {
      heapBytes += vm.memoryUsed;
      wasmBytes += vm.wasmBytes;
    }
    return { vms: this.#live.size, heapBytes, wasmBytes };
  }

  /** Every adapter name: the bundled ones and the `.lua` files in the directory. */
  names(): string[] {
    const names = new Set(this.#bundled.keys());
    if (this.#options.dir) {
      try {
        for (const entry of Deno.readDirSync(this.#options.dir)) {
          if (entry.isFile && entry.name.endsWith(".lua")) names.add(entry.name.slice(0, -4));
        }
      } catch {
        // no directory: bundled scripts only
      }
    }
    return [...names];
  }

  /** The script of `name` now (the directory's copy when present), or undefined. */
  script(name: string): LuaScript | undefined {
    const path = this.#options.dir ? join(this.#options.dir, `${name}.lua`) : undefined;
    if (path) {
      let stat: Deno.FileInfo | undefined;
      try {
        stat = Deno.statSync(path);
      } catch {
        stat = undefined;
      }
      if (stat?.isFile) {
        const version = `${path}:${stat.mtime?.getTime() ?? 0}:${stat.size}`;
        const cached = this.#texts.get(name);
        if (cached?.version === version) return cached;
        const script = {
          name,
          text: Deno.readTextFileSync(path),
          chunkname: `${name}.lua`,
          version,
        };
        if (cached) this.#options.logger.info("Lua adapter reloaded", { adapter: name, path });
        this.#texts.set(name, script);
        return script;
      }
    }
    const text = this.#bundled.get(name);
    if (text === undefined) return undefined;
    return { name, text, chunkname: `${name}.lua`, version: "bundled" };
  }

  /** The builder of adapter `name`; throws TypeError when no script has that name. */
  builder(name: string): LuaAdapterBuilder {
    if (!this.script(name)) throw new TypeError(`No Lua adapter named "${name}"`);
    return (source, options) =>
      new LuaProvider({ ...options, source, adapter: name, lease: this.#leaser(name, source) });
  }

  /** Builders by adapter name: `lua:<name>` for every script, the bare name unless native. */
  adapters(): Map<string, LuaAdapterBuilder> {
    const table = new Map<string, LuaAdapterBuilder>();
    for (const name of this.names()) {
      const build = this.builder(name);
      table.set(LUA_PREFIX + name, build);
      if (!NATIVE.has(name)) table.set(name, build);
    }
    return table;
  }

  /** The builder for an adapter name not in the table (a script added after start), if any. */
  resolve(adapter: string): LuaAdapterBuilder | undefined {
    const name = adapter.startsWith(LUA_PREFIX) ? adapter.slice(LUA_PREFIX.length) : adapter;
    if (!adapter.startsWith(LUA_PREFIX) && NATIVE.has(name)) return undefined;
    return this.script(name) ? this.builder(name) : undefined;
  }

  /**
   * Leases of one source's VM: rebuilt when the script's version changes, or when the VM ran out
   * of memory (its wasm memory stays grown; a fresh VM gives it back once the old one closes).
   */
  #leaser(name: string, source: SourceConfig): () => Promise<LuaVmLease> {
    let current: Loaded | undefined;
    const close = (loaded: Loaded) =>
      loaded.vm.then((vm) => {
        this.#live.delete(vm);
        vm.close();
      }, () => {});
    return async () => {
      const script = this.script(name);
      if (!script) throw new TypeError(`Lua adapter "${name}" no longer exists`);
      if (!current || current.version !== script.version || current.instance?.spoiled) {
        const old = current;
        const loading: Loaded = {
          version: script.version,
          vm: this.#load(script, source),
          active: 0,
          retired: false,
        };
        loading.vm.then((vm) => loading.instance = vm, () => {}); // errors reach every caller
        current = loading;
        if (old) {
          old.retired = true;
          if (old.active === 0) await close(old);
        }
      }
      const loaded = current;
      const vm = await loaded.vm;
      loaded.active++;
      let released = false;
      return {
        vm,
        release: () => {
          if (released) return;
          released = true;
          loaded.active--;
          if (vm.spoiled && loaded === current) {
            current = undefined; // the next request builds a fresh VM
            loaded.retired = true;
          }
          if (loaded.retired && loaded.active === 0) void close(loaded);
        },
      };
    };
  }

  async #load(script: LuaScript, source: SourceConfig): Promise<LuaVm> {
    const vm = await createLuaVm(script.name, script.text, script.chunkname, {
      wasmPath: this.#options.wasmPath,
      logger: this.#options.logger.child({ source: source.name }),
      http: hostHttp(source, this.#options.fetch),
      instructionLimit: this.#options.instructionLimit,
      timeLimitMs: this.#options.timeLimitMs,
      memoryLimitBytes: this.#options.memoryLimitBytes,
    });
    this.#live.add(vm);
    return vm;
  }
}
