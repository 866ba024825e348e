/** Copying the bundled adapter scripts to `<home>/adapters/` without overwriting user edits. */
import { join } from "node:path";
import { z } from "zod";
import { errorMessage, type Logger } from "../../core/mod.ts";

/** Records the hash of each copy we wrote, to tell an untouched copy from a user's edit. */
const MANIFEST = ".bundled.json";

/**
 * Write each bundled script to `dir` when absent, or when the copy there is one we wrote
 * earlier and never edited (so upgrades reach it); an edited copy is left alone. Returns the
 * names written. Throws on filesystem failure. Each file appears whole (writeWhole), so the
 * runtime may read the folder meanwhile: the daemon's start does not wait for it.
 */
export async function installBundledAdapters(
  dir: string,
  bundled: ReadonlyMap<string, string>,
  logger: Logger,
): Promise<string[]> {
  await Deno.mkdir(dir, { recursive: true });
  const manifestPath = join(dir, MANIFEST);
  const manifest = await readManifest(manifestPath, logger);
  const written: string[] = [];
  for (const [name, text] of bundled) {
    const path = join(dir, `${name}.lua`);
    const wanted = await sha256(text);
    let present: string | undefined;
    try {
      present = await sha256(await Deno.readTextFile(path));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    if (present === wanted) {
      manifest[name] = wanted;
      continue;
    }
    if (present !== undefined && present !== manifest[name]) continue; // edited by the user
    await writeWhole(path, text);
    manifest[name] = wanted;
    written.push(name);
  }
  await writeWhole(manifestPath, JSON.stringify(manifest, null, 2) + "\n");
  if (written.length > 0) logger.info("Installed bundled Lua adapters", { dir, written });
  return written;
}

/** Built on first use, as every boundary schema (tests/lazy_schemas_test.ts). */
const Manifest = z.lazy(() => z.record(z.string(), z.string()));

/**
 * The hashes of the copies we wrote. A missing or unreadable record is an empty one, which
 * keeps every copy there as the user's (never overwritten); one that is not an object of
 * hashes (`null`, a list) made every start fail with "Cannot set properties of null".
 */
async function readManifest(path: string, logger: Logger): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return {};
    throw error;
  }
  try {
    return Manifest.parse(JSON.parse(text));
  } catch (error) {
    logger.warn("Unreadable record of the bundled Lua adapters; keeping every copy as edited", {
      path,
      error: errorMessage(error),
    });
    return {};
  }
}

/**
 * Write `text` to `path` whole: a reader (the runtime, while the start goes on) finds the old
 * file or the new one, never part of it. Not Deno.writeTextFile: it loads Deno's web streams.
 */
async function writeWhole(path: string, text: string): Promise<void> {
  const temporary = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    const file = await Deno.open(temporary, { write: true, createNew: true });
    try {
      const bytes = new TextEncoder().encode(text);
      for (let done = 0; done < bytes.length;) done += await file.write(bytes.subarray(done));
    } finally {
      file.close();
    }
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
