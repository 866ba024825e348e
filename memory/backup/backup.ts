/**
 * `homeagent backup FILE` (DESIGN.md §4): one .tar.gz of a whole home, taken while the daemon
 * runs. Databases are copied with SQLite's online backup (a consistent copy beside live
 * writers); files the daemon replaces atomically are read from one open handle; append-only
 * files up to their size when opened. Memory moves between tiers while the copy runs, so the
 * tiers are read in an order that can duplicate a memory but never lose one: documents, then
 * the context window (journal before snapshot), then documents again, then the graph; a
 * restored home drops what is doubled when it opens. A manifest with each file's size and
 * sha256 ends the archive; the archive is written beside FILE and renamed when complete.
 */
import { backup as sqliteBackup, DatabaseSync } from "node:sqlite";
import { dirname, join } from "node:path";
import { HomeAgentError } from "../../core/mod.ts";
import { pathExists } from "../home.ts";
import { type TarFile, tarStream } from "./tar.ts";

/** The archive's last entry. */
export const MANIFEST = "homeagent-backup.json";

/** Folders of a home never archived: the running daemon's sockets and pid, its logs. */
const SKIPPED = new Set(["run", "logs"]);

/** One archived file as the manifest lists it. */
export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

/** The manifest. */
export interface BackupManifest {
  format: "homeagent-backup";
  version: 1;
  createdAt: string;
  files: ManifestFile[];
}

/** What a backup wrote. */
export interface BackupReport {
  file: string;
  files: number;
  bytes: number;
  /** The databases copied with SQLite's online backup (relative paths). */
  databases: string[];
}

/**
 * Write a backup of the home at `root` to `file` (which must not exist). Throws
 * HomeAgentError `backup_exists` when it does, `backup_folder_missing` when its folder does
 * not exist, and the storage's error on failure (then no file is left behind).
 */
export async function backupHome(
  root: string,
  file: string,
  options: { now: () => number },
): Promise<BackupReport> {
  if (await pathExists(file)) {
    throw new HomeAgentError("backup_exists", `Cannot back up to "${file}": it exists already`);
  }
  // Found out before the copy, not as "No such file or directory (os error 2): open …" after it.
  const folder = dirname(file);
  if (!await Deno.stat(folder).then((info) => info.isDirectory, () => false)) {
    throw new HomeAgentError(
      "backup_folder_missing",
      `Cannot back up to "${file}": there is no folder "${folder}"; make it first or choose ` +
        "another path",
    );
  }
  await Deno.mkdir(join(root, "run"), { recursive: true, mode: 0o700 });
  const stage = await Deno.makeTempDir({ dir: join(root, "run"), prefix: "backup-" });
  const partial = `${file}.partial`;
  try {
    const plan = await stageHome(root, stage);
    const manifest: BackupManifest = {
      format: "homeagent-backup",
      version: 1,
      createdAt: new Date(options.now()).toISOString(),
      files: [],
    };
    const out = await Deno.open(partial, { write: true, createNew: true, mode: 0o600 });
    const tar = tarStream(entries(plan, manifest)) as ReadableStream<Uint8Array<ArrayBuffer>>;
    await tar.pipeThrough(new CompressionStream("gzip")).pipeTo(out.writable);
    await syncFile(partial);
    await Deno.rename(partial, file);
    return {
      file,
      files: manifest.files.length,
      bytes: manifest.files.reduce((n, f) => n + f.size, 0),
      databases: plan.filter((p) => p.database).map((p) => p.path),
    };
  } catch (error) {
    await Deno.remove(partial).catch(() => {});
    throw error;
  } finally {
    await Deno.remove(stage, { recursive: true });
  }
}

/** A file to archive: read from `source` (the home, or the staging copy). */
interface Planned {
  path: string;
  source: string;
  database?: boolean;
}

/**
 * The home's files in archive order, with the live ones copied into `stage` first: documents,
 * the context journal then its snapshot, documents again (new ones), the databases (online
 * backup), then everything else read in place.
 */
async function stageHome(root: string, stage: string): Promise<Planned[]> {
  const planned = new Map<string, Planned>();
  const copy = async (path: string) => {
    const source = join(root, path), target = join(stage, path);
    await Deno.mkdir(dirname(target), { recursive: true });
    try {
      await Deno.copyFile(source, target);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return; // consumed or replaced meanwhile
      throw error;
    }
    planned.set(path, { path, source: target });
  };
  const docs = async () => {
    for (const path of await listFiles(root, "memory/docs")) {
      if (path.endsWith(".json") && !planned.has(path)) await copy(path);
    }
  };
  await docs();
  for (const path of ["memory/context.journal", "memory/context.json"]) await copy(path);
  await docs();
  const all = await listFiles(root, "");
  for (const path of all.filter((p) => !planned.has(p) && isDatabase(p))) {
    if (!await isSqlite(join(root, path))) continue;
    const target = join(stage, path);
    await Deno.mkdir(dirname(target), { recursive: true });
    const db = new DatabaseSync(join(root, path));
    try {
      await sqliteBackup(db, target);
    } finally {
      db.close();
    }
    planned.set(path, { path, source: target, database: true });
  }
  for (const path of all) {
    if (!planned.has(path)) planned.set(path, { path, source: join(root, path) });
  }
  return [...planned.values()];
}

/** The tar entries of `plan`, each hashed as it streams, then the manifest. */
async function* entries(plan: Planned[], manifest: BackupManifest): AsyncGenerator<TarFile> {
  const { createHash } = await import("node:crypto"); // loaded by the first hash, not at start
  for (const item of plan) {
    let handle: Deno.FsFile;
    try {
      handle = await Deno.open(item.source, { read: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue; // removed since it was listed
      throw error;
    }
    const stat = await handle.stat();
    const hash = createHash("sha256");
    const size = stat.size;
    manifest.files.push({ path: item.path, size, sha256: "" });
    const record = manifest.files.at(-1)!;
    yield {
      path: item.path,
      size,
      mtime: stat.mtime?.getTime() ?? 0,
      open: () =>
        Promise.resolve(
          limited(handle.readable, size).pipeThrough(
            new TransformStream<Uint8Array, Uint8Array>({
              transform(chunk, controller) {
                hash.update(chunk);
                controller.enqueue(chunk);
              },
              flush() {
                record.sha256 = hash.digest("hex");
              },
            }),
          ),
        ),
    };
  }
  const bytes = new TextEncoder().encode(JSON.stringify(manifest, null, 1) + "\n");
  yield {
    path: MANIFEST,
    size: bytes.length,
    mtime: Date.parse(manifest.createdAt),
    open: () => Promise.resolve(new Blob([bytes]).stream()),
  };
}

/** The first `size` bytes of `stream` (an append-only file may grow while it is read). */
function limited(stream: ReadableStream<Uint8Array>, size: number): ReadableStream<Uint8Array> {
  let left = size;
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (left === 0) {
        await reader.cancel();
        return controller.close();
      }
      const { value, done } = await reader.read();
      if (done) return controller.error(new Error("A file shrank while it was backed up"));
      const chunk = value.length > left ? value.subarray(0, left) : value;
      left -= chunk.length;
      controller.enqueue(chunk);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** Every file under `root/under`, relative to `root`, sorted; skipped folders, temp files and SQLite side files left out. */
export async function listFiles(root: string, under: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(join(root, dir)));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    for (const entry of entries) {
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (dir === "" && SKIPPED.has(entry.name)) continue;
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile && !/(\.tmp|\.partial|-wal|-shm|-journal)$/.test(entry.name)) {
        out.push(path);
      }
    }
  };
  await walk(under);
  return out.sort();
}

function isDatabase(path: string): boolean {
  return path.endsWith(".db");
}

async function isSqlite(path: string): Promise<boolean> {
  const file = await Deno.open(path, { read: true });
  try {
    const head = new Uint8Array(16);
    const n = await file.read(head);
    return n === 16 && new TextDecoder().decode(head) === "SQLite format 3\u0000";
  } finally {
    file.close();
  }
}

async function syncFile(path: string): Promise<void> {
  const file = await Deno.open(path, { read: true });
  try {
    await file.sync();
  } finally {
    file.close();
  }
}
