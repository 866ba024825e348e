/**
 * The knowledge base on disk (ARCHITECTURE.md "Knowledge Base", DESIGN.md §3):
 * knowledge/<name>/content.md, where a name may hold "/" for categories but never leaves the
 * folder. A hybrid index (int8 vectors in the shared space + BM25 over the analyzer's words)
 * is kept in memory and brought up to date incrementally by mtime and size before each query,
 * so a file added by hand is found on the next search.
 */
import { join, relative, resolve, sep } from "node:path";
import {
  type Embedder,
  errorMessage,
  type KnowledgeBase,
  type KnowledgeEntry,
  KnowledgeError,
  type KnowledgeHit,
  type Logger,
  namePathProblem,
  silentLogger,
} from "../../core/mod.ts";
import { Bm25Index } from "../text/bm25.ts";
import { DocVectors } from "../docs/vectors.ts";
import { mergeHits, mixScores } from "../recall/mix.ts";
import {
  defaultRecallSettings,
  denseWeightFor,
  type RecallSettingsSource,
} from "../recall/config.ts";
import { pathExists, writeFileAtomic } from "../home.ts";
import type { TextAnalyzer } from "../text/keywords.ts";

/** Options of KnowledgeStore. */
export interface KnowledgeStoreOptions {
  /** The knowledge/ folder. */
  dir: string;
  embedder: Embedder;
  analyzer: TextAnalyzer;
  logger?: Logger;
  /** The dense/keyword mix; default the space's defaults. */
  recall?: RecallSettingsSource;
}

interface Indexed {
  entry: KnowledgeEntry;
  mtime: number;
  text: string;
  terms: Set<string>;
}

const FILE = "content.md";

/** Check an entry name (core's name rules, per segment); returns its segments or throws KnowledgeError. */
export function checkKnowledgeName(name: string): string[] {
  const why = namePathProblem(name);
  if (why) {
    throw new KnowledgeError(
      "knowledge_bad_name",
      name,
      `Cannot use knowledge name ${JSON.stringify(name)}: ${why}`,
    );
  }
  return name.split("/");
}

/** The knowledge base of a home. */
export class KnowledgeStore implements KnowledgeBase {
  #o: KnowledgeStoreOptions;
  #logger: Logger;
  #entries = new Map<string, Indexed>();
  #bm25 = new Bm25Index();
  #vectors: DocVectors;
  #scanning: Promise<void> = Promise.resolve();

  constructor(options: KnowledgeStoreOptions) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger;
    this.#vectors = new DocVectors(options.embedder.dim);
  }

  /** Number of indexed entries (as of the last scan). */
  size(): number {
    return this.#entries.size;
  }

  /** Bring the index up to date with the folder: new, changed and removed entries. */
  scan(signal?: AbortSignal): Promise<void> {
    const run = this.#scanning.then(() => this.#scan(signal));
    this.#scanning = run.catch(() => {});
    return run;
  }

  async search(
    query: string,
    options: { k?: number; signal?: AbortSignal; vector?: Float32Array } = {},
  ) {
    await this.scan(options.signal);
    const k = options.k ?? 3;
    const size = this.#entries.size;
    if (size === 0 || query.trim() === "") return [];
    const words = this.#o.analyzer.tokenize(query);
    const keyword = this.#bm25.search(words, size);
    const dense = await this.#dense(query, size, options.signal, options.vector);
    const settings = (this.#o.recall ?? (() => defaultRecallSettings(this.#o.embedder)))();
    const mixed = mixScores(mergeHits(dense, keyword), {
      dense: denseWeightFor(settings, [query]),
    });
    const wanted = new Set(words);
    return mixed.slice(0, k).map((hit): KnowledgeHit => {
      const item = this.#entries.get(hit.id)!;
      const found = [...wanted].filter((w) => item.terms.has(w)).length;
      return {
        entry: { ...item.entry },
        snippet: snippet(item.text),
        score: hit.score,
        dense: hit.dense,
        coverage: wanted.size === 0 ? 0 : found / wanted.size,
      };
    });
  }

  async create(name: string, content: string, options: { overwrite?: boolean } = {}) {
    const dir = await this.#dirOf(name, { create: true });
    const path = join(dir, FILE);
    if (!options.overwrite && await pathExists(path)) {
      throw new KnowledgeError(
        "knowledge_exists",
        name,
        `Cannot create knowledge entry "${name}": it exists (pass overwrite to replace it)`,
      );
    }
    await writeFileAtomic(path, content.endsWith("\n") ? content : content + "\n");
    await this.scan();
    return { ...this.#entries.get(name)!.entry };
  }

  async list(options: { category?: string } = {}): Promise<KnowledgeEntry[]> {
    await this.scan();
    const category = options.category?.replace(/\/+$/, "") ?? "";
    if (category !== "") checkKnowledgeName(category);
    return [...this.#entries.values()].map((i) => ({ ...i.entry }))
      .filter((e) => category === "" || e.name === category || e.name.startsWith(`${category}/`))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async read(name: string): Promise<string> {
    const dir = await this.#dirOf(name, { create: false });
    try {
      if ((await Deno.lstat(join(dir, FILE))).isSymlink) {
        throw new KnowledgeError(
          "knowledge_bad_name",
          name,
          `Cannot read knowledge entry "${name}": its content.md is a symlink`,
        );
      }
      return await Deno.readTextFile(join(dir, FILE));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new KnowledgeError("knowledge_not_found", name, `No knowledge entry "${name}"`);
    }
  }

  /** The entry's folder, refused when the name or a symlink on its way leads out of knowledge/. */
  async #dirOf(name: string, options: { create: boolean }): Promise<string> {
    const segments = checkKnowledgeName(name);
    await Deno.mkdir(this.#o.dir, { recursive: true });
    const root = await Deno.realPath(this.#o.dir);
    let at = root;
    for (const segment of segments) {
      at = join(at, segment);
      let real: string;
      try {
        real = await Deno.realPath(at);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
        if (!options.create) return at; // read() then reports it as not found
        await Deno.mkdir(at);
        real = await Deno.realPath(at);
      }
      if (!inside(root, real)) {
        throw new KnowledgeError(
          "knowledge_bad_name",
          name,
          `Cannot use knowledge name "${name}": "${segment}" leads out of the knowledge folder`,
        );
      }
      at = real;
    }
    return at;
  }

  async #scan(signal?: AbortSignal): Promise<void> {
    const found = new Map<string, Deno.FileInfo>();
    await walk(this.#o.dir, "", found);
    for (const name of [...this.#entries.keys()]) {
      if (!found.has(name)) this.#forget(name);
    }
    const changed: { name: string; info: Deno.FileInfo; text: string }[] = [];
    for (const [name, info] of found) {
      const old = this.#entries.get(name);
      const mtime = info.mtime?.getTime() ?? 0;
      if (old && old.mtime === mtime && old.entry.size === info.size) continue;
      try {
        changed.push({ name, info, text: await Deno.readTextFile(join(this.#o.dir, name, FILE)) });
      } catch (error) {
        this.#logger.warn("Cannot read knowledge entry", { name, error: errorMessage(error) });
      }
    }
    if (changed.length === 0) return;
    for (const c of changed) {
      const entry: KnowledgeEntry = {
        name: c.name,
        category: c.name.includes("/") ? c.name.slice(0, c.name.lastIndexOf("/")) : "",
        title: title(c.text) ?? c.name.split("/").at(-1)!,
        size: c.info.size,
        updatedAt: c.info.mtime?.getTime() ?? 0,
      };
      const words = this.#o.analyzer.tokenize(`${c.name.replaceAll("/", " ")} ${c.text}`);
      this.#bm25.add(c.name, words);
      this.#entries.set(c.name, {
        entry,
        mtime: entry.updatedAt,
        text: c.text,
        terms: new Set(words),
      });
    }
    await this.#embed(changed.map((c) => c.name), signal);
    this.#logger.debug("Knowledge index updated", {
      changed: changed.length,
      size: this.#entries.size,
    });
  }

  async #embed(names: string[], signal?: AbortSignal): Promise<void> {
    const texts = names.map((n) => {
      const item = this.#entries.get(n)!;
      return `${item.entry.title}\n${item.text}`.slice(0, 2000);
    });
    try {
      const vectors = await this.#o.embedder.embed(texts, { signal });
      names.forEach((n, i) => this.#vectors.put(n, vectors[i]!));
    } catch (error) {
      if (signal?.aborted) throw error;
      names.forEach((n) => this.#vectors.delete(n));
      this.#logger.warn("Cannot embed knowledge entries; keyword search only", {
        count: names.length,
        error: errorMessage(error),
      });
    }
  }

  async #dense(query: string, k: number, signal?: AbortSignal, given?: Float32Array) {
    if (this.#vectors.size === 0) return [];
    try {
      const [vector] = given?.length === this.#o.embedder.dim
        ? [given]
        : await this.#o.embedder.embed([query], { signal });
      return this.#vectors.search(vector!, k);
    } catch (error) {
      if (signal?.aborted) throw error;
      this.#logger.warn("Cannot embed the knowledge query", { error: errorMessage(error) });
      return [];
    }
  }

  #forget(name: string): void {
    this.#entries.delete(name);
    this.#bm25.remove(name);
    this.#vectors.delete(name);
  }
}

/** Collect `<name>/content.md` files under `dir`; symlinks are never followed. */
async function walk(root: string, prefix: string, found: Map<string, Deno.FileInfo>) {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(join(root, prefix)));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const e of entries) {
    if (e.isSymlink || e.name.startsWith(".")) continue;
    const rel = prefix === "" ? e.name : `${prefix}/${e.name}`;
    if (e.isFile && e.name === FILE && prefix !== "") {
      found.set(prefix, await Deno.lstat(join(root, rel)));
    } else if (e.isDirectory) {
      await walk(root, rel, found);
    }
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, resolve(path));
  return rel !== "" && !rel.startsWith("..") && !rel.startsWith(sep) && !rel.includes(`..${sep}`);
}

function title(text: string): string | undefined {
  return /^#\s+(.+)$/m.exec(text)?.[1]?.trim();
}

function snippet(text: string): string {
  const body = text.replace(/^#\s+.+$/m, "").replace(/\s+/g, " ").trim();
  return body.length > 160 ? `${body.slice(0, 160)}…` : body;
}
