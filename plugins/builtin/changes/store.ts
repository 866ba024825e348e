/**
 * `<home>/changesets/`: one JSON file per changeset (the agent's file changes of one turn),
 * written atomically, validated with zod on read, kept within a count, a total size and an age.
 * A file that fails validation is moved aside (`*.corrupt`) with a log line, never used.
 */
import { join } from "node:path";
import { z } from "zod";
import { errorMessage, HomeAgentError, type Logger } from "../../../core/mod.ts";
import { sha256, writeAtomic } from "../_fs.ts";

/** A changeset id: `YYYYMMDD-HHMMSS-xxxx` (UTC), checked before it names a file. */
export const CHANGESET_ID = /^\d{8}-\d{6}-[0-9a-f]{4}$/;

const Content = z.lazy(() =>
  z.object({
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    size: z.number().int().min(0),
    /** The bytes as base64; absent when over the size kept per file. */
    base64: z.string().optional(),
  })
);

const FileEntry = z.lazy(() =>
  z.object({
    path: z.string().startsWith("/"),
    /** null: the file did not exist. */
    before: Content.nullable(),
    after: Content.nullable(),
    /** The content before was not known (too large to read). */
    beforeUnknown: z.boolean().optional(),
  })
);

/** One changeset as stored. */
export const Changeset = z.lazy(() =>
  z.object({
    version: z.literal(1),
    id: z.string().regex(CHANGESET_ID),
    turnId: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    tools: z.array(z.string()),
    files: z.array(FileEntry),
    /** Files the command may have changed that were not tracked, with why. */
    untracked: z.array(z.string()).optional(),
    rollbackOf: z.string().optional(),
    rolledBack: z.object({ by: z.string(), at: z.number() }).optional(),
  })
);

/** A changeset. */
export type Changeset = z.infer<typeof Changeset>;
/** One file of a changeset. */
export type ChangesetFile = z.infer<typeof FileEntry>;
/** Stored content of one side of a file change. */
export type StoredContent = z.infer<typeof Content>;

/** Limits of the store (plugin.changes.*). */
export interface StoreLimits {
  /** Content above this is kept as its hash only (rollback then refuses that file). */
  maxFileBytes: number;
  /** Most changesets kept; the oldest go first. */
  keep: number;
  /** Most bytes all changesets may take together. */
  maxTotalBytes: number;
  maxAgeDays: number;
}

/** The changeset files of one home. Methods reject on IO failure. */
export class ChangeStore {
  readonly dir: string;
  #logger: Logger;

  constructor(options: { dir: string; logger: Logger }) {
    this.dir = options.dir;
    this.#logger = options.logger;
  }

  /** Encode one side of a change. */
  async content(bytes: Uint8Array | null, maxFileBytes: number): Promise<StoredContent | null> {
    if (bytes === null) return null;
    const stored: StoredContent = { sha256: await sha256(bytes), size: bytes.length };
    if (bytes.length <= maxFileBytes) stored.base64 = toBase64(bytes);
    return stored;
  }

  /** Write (or replace) a changeset. */
  async save(set: Changeset): Promise<void> {
    await Deno.mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeAtomic(this.#path(set.id), JSON.stringify(set), { mode: 0o600 });
  }

  /** One changeset. Throws HomeAgentError `changes_not_found` (also for a bad id). */
  async get(id: string): Promise<Changeset> {
    if (!CHANGESET_ID.test(id)) {
      throw new HomeAgentError(
        "changes_not_found",
        `"${id}" is not a changeset id (like 20260101-120000-ab12)`,
      );
    }
    const set = await this.#read(id);
    if (!set) throw new HomeAgentError("changes_not_found", `No changeset "${id}"`);
    return set;
  }

  /** Every valid changeset, newest first. */
  async list(): Promise<Changeset[]> {
    const sets: Changeset[] = [];
    for (const id of await this.#ids()) {
      const set = await this.#read(id);
      if (set) sets.push(set);
    }
    return sets.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  }

  /** Delete the oldest changesets beyond the limits; returns how many went. */
  async prune(limits: StoreLimits, now: number): Promise<number> {
    const entries: { id: string; mtime: number; size: number }[] = [];
    for (const id of await this.#ids()) {
      const info = await Deno.stat(this.#path(id)).catch(() => undefined);
      if (info) entries.push({ id, mtime: info.mtime?.getTime() ?? 0, size: info.size });
    }
    entries.sort((a, b) => b.id < a.id ? -1 : 1); // ids sort by time: newest first
    let total = 0;
    let removed = 0;
    const oldest = now - limits.maxAgeDays * 86_400_000;
    for (const [i, entry] of entries.entries()) {
      total += entry.size;
      const over = i >= limits.keep || (total > limits.maxTotalBytes && i > 0) ||
        entry.mtime < oldest;
      if (!over) continue;
      await Deno.remove(this.#path(entry.id)).catch(() => {});
      removed++;
    }
    if (removed > 0) this.#logger.info("Old changesets removed", { removed });
    return removed;
  }

  #path(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  async #ids(): Promise<string[]> {
    const ids: string[] = [];
    try {
      for await (const entry of Deno.readDir(this.dir)) {
        const id = entry.name.replace(/\.json$/, "");
        if (entry.isFile && entry.name.endsWith(".json") && CHANGESET_ID.test(id)) ids.push(id);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return ids;
  }

  async #read(id: string): Promise<Changeset | undefined> {
    const path = this.#path(id);
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
    let problem: string;
    try {
      const parsed = Changeset.safeParse(JSON.parse(text));
      if (parsed.success && parsed.data.id === id) return parsed.data;
      problem = parsed.success ? "its id does not match its name" : parsed.error.message;
    } catch (error) {
      problem = errorMessage(error);
    }
    const aside = `${path}.corrupt`;
    await Deno.rename(path, aside).catch(() => {});
    this.#logger.error("Corrupt changeset moved aside", { path, aside, problem });
    return undefined;
  }
}

/** Bytes of stored content; undefined when only the hash was kept. */
export function contentBytes(content: StoredContent): Uint8Array | undefined {
  return content.base64 === undefined ? undefined : fromBase64(content.base64);
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
