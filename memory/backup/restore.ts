/**
 * `homeagent restore FILE` (DESIGN.md §4): put a backup back as the home, with no daemon
 * running. Nothing is written into the home until the whole archive is read and checked: it is
 * unpacked beside the home, every file against the manifest (size and sha256, none missing,
 * none extra), every name checked (relative, no "..", no link or device). Then the home is
 * moved aside (kept, never deleted) and the restored folder takes its place.
 */
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { HomeAgentError } from "../../core/mod.ts";
import { pathExists } from "../home.ts";
import { MANIFEST } from "./backup.ts";
import { readTar, TarError } from "./tar.ts";

const Manifest = z.lazy(() =>
  z.object({
    format: z.literal("homeagent-backup"),
    version: z.literal(1),
    createdAt: z.string(),
    files: z.array(z.object({
      path: z.string(),
      size: z.number().int().min(0),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
    })),
  })
);

/** What a restore did. */
export interface RestoreReport {
  home: string;
  files: number;
  bytes: number;
  /** When the backup was taken. */
  createdAt: string;
  /** Where the home as it was before is kept (absent when there was none). */
  previous?: string;
}

/** A backup that cannot be restored; the message says why, naming the file. */
export class RestoreError extends HomeAgentError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("restore_refused", message, options);
  }
}

/** Restore `file` as the home at `root`. Throws RestoreError; the home is unchanged then. */
export async function restoreHome(
  file: string,
  root: string,
  options: { now: () => number },
): Promise<RestoreReport> {
  const stamp = new Date(options.now()).toISOString().replace(/[:.]/g, "-");
  const stage = join(dirname(root), `.${basename(root)}.restore-${stamp}`);
  await Deno.mkdir(stage, { recursive: true, mode: 0o700 });
  try {
    const found = await unpack(file, stage);
    const manifest = await checkManifest(file, stage, found);
    let previous: string | undefined;
    if (await pathExists(root)) {
      previous = `${root}.before-restore-${stamp}`;
      await Deno.rename(root, previous);
    }
    await Deno.rename(stage, root);
    return {
      home: root,
      files: manifest.files.length,
      bytes: manifest.files.reduce((n, f) => n + f.size, 0),
      createdAt: manifest.createdAt,
      ...(previous ? { previous } : {}),
    };
  } catch (error) {
    await Deno.remove(stage, { recursive: true }).catch(() => {});
    if (error instanceof TarError) {
      throw new RestoreError(`Cannot restore "${file}": ${error.message}`, { cause: error });
    }
    throw error;
  }
}

/** Unpack the archive into `stage`; resolves each file's size and sha256. */
async function unpack(file: string, stage: string): Promise<Map<string, [number, string]>> {
  const found = new Map<string, [number, string]>();
  let input: Deno.FsFile;
  try {
    input = await Deno.open(file, { read: true });
  } catch (error) {
    throw new RestoreError(`Cannot restore "${file}": ${errorText(error)}`, { cause: error });
  }
  const stream = input.readable.pipeThrough(new DecompressionStream("gzip"));
  const { createHash } = await import("node:crypto"); // loaded by the first hash, not at start
  try {
    await readTar(stream, async ({ path, size, body }) => {
      const why = entryProblem(path);
      if (why) throw new TarError(`entry "${path}" ${why}`);
      if (found.has(path)) throw new TarError(`entry "${path}" appears twice`);
      const target = join(stage, path);
      await Deno.mkdir(dirname(target), { recursive: true, mode: 0o700 });
      const hash = createHash("sha256");
      const out = await Deno.open(target, { write: true, createNew: true, mode: 0o600 });
      await body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            hash.update(chunk);
            controller.enqueue(chunk);
          },
        }),
      ).pipeTo(out.writable);
      found.set(path, [size, hash.digest("hex")]);
    });
  } catch (error) {
    if (error instanceof TarError || error instanceof RestoreError) throw error;
    // gzip and read failures: not a backup, or a damaged one.
    throw new RestoreError(
      `Cannot restore "${file}": it is not a readable HomeAgent backup (${errorText(error)})`,
      { cause: error },
    );
  }
  return found;
}

async function checkManifest(
  file: string,
  stage: string,
  found: Map<string, [number, string]>,
): Promise<z.infer<typeof Manifest>> {
  if (!found.has(MANIFEST)) {
    throw new RestoreError(
      `Cannot restore "${file}": it has no ${MANIFEST} (not a HomeAgent backup)`,
    );
  }
  let manifest: z.infer<typeof Manifest>;
  try {
    manifest = Manifest.parse(JSON.parse(await Deno.readTextFile(join(stage, MANIFEST))));
  } catch (error) {
    throw new RestoreError(
      `Cannot restore "${file}": its manifest is unreadable (${errorText(error)})`,
    );
  }
  await Deno.remove(join(stage, MANIFEST));
  found.delete(MANIFEST);
  for (const entry of manifest.files) {
    const got = found.get(entry.path);
    if (!got) throw new RestoreError(`Cannot restore "${file}": "${entry.path}" is missing`);
    if (got[0] !== entry.size || got[1] !== entry.sha256) {
      throw new RestoreError(`Cannot restore "${file}": "${entry.path}" is damaged (checksum)`);
    }
    found.delete(entry.path);
  }
  const extra = [...found.keys()][0];
  if (extra !== undefined) {
    throw new RestoreError(`Cannot restore "${file}": "${extra}" is not in its manifest`);
  }
  return manifest;
}

/** Why an archive path cannot be written under the home, or undefined. */
export function entryProblem(path: string): string | undefined {
  if (path === "" || path.length > 4096) return "has no usable name";
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\\]/.test(path)) return "has a control character or a backslash";
  if (path.startsWith("/")) return "is an absolute path";
  const segments = path.split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) return "leads out of the home";
  if (segments[0] === "run" || segments[0] === "logs") return "is in run/ or logs/";
  return undefined;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
