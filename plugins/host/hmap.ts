/**
 * .hmap packages: a zip with plugin.json at its root. Reading verifies before anything is
 * written: no path traversal, absolute paths, links (the symlink bit of the zip's Unix
 * attributes), duplicates or shipped data/ folder; an unambiguous central directory; sizes and
 * the compression ratio within the limits, counted while inflating (zip.ts); a valid manifest
 * of a known kind whose entry is in the package.
 */
import type { Zippable } from "fflate";
import { dirname, join } from "node:path";
import { PluginError } from "../../core/mod.ts";
import { type Manifest, parseManifest } from "./manifest.ts";
import { isDenoEntry } from "./permissions.ts";
import { inflateEntries, readCentralDirectory, refuse, type ZipEntry } from "./zip.ts";

/** Total uncompressed size allowed, bytes. */
export const HMAP_MAX_BYTES = 100 * 1024 * 1024;

/** Largest inflated/packed ratio of a package (past the first 4 MiB). */
export const HMAP_MAX_RATIO = 100;

/** A verified package, ready to write. */
export interface HmapPackage {
  manifest: Manifest;
  /** Relative path → content (directories omitted). */
  files: Map<string, Uint8Array>;
  /** Files written executable (0755): those packed with an x bit, and a native entry. */
  executable: Set<string>;
  /** Hex sha256 of the package bytes. */
  sha256: string;
}

/** Options of readHmap. */
export interface ReadHmapOptions {
  maxTotalBytes?: number;
  maxEntryBytes?: number;
  maxRatio?: number;
  /** Inflated bytes before the ratio limit applies; default 4 MiB. */
  ratioGraceBytes?: number;
}

/** Verify and read a package; throws PluginError naming the first problem. */
export async function readHmap(
  bytes: Uint8Array,
  options: ReadHmapOptions = {},
): Promise<HmapPackage> {
  const { files, entries } = await readZipFiles(bytes, { ...options, refuseName: dataFolder });
  const manifestBytes = files.get("plugin.json");
  if (!manifestBytes) throw refuse("no plugin.json at the root of the archive");
  const manifest = parseManifest(new TextDecoder().decode(manifestBytes), "plugin.json");
  if (!files.has(manifest.entry)) {
    throw new PluginError(
      manifest.name,
      `Cannot install package: entry "${manifest.entry}" is not in it`,
    );
  }
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  const sha256 = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  const executable = new Set(
    entries.filter((e) => (e.unixMode & 0o111) !== 0 && files.has(e.name)).map((e) => e.name),
  );
  if (manifest.kind === "subprocess" && !isDenoEntry(manifest.entry)) {
    executable.add(manifest.entry);
  }
  return { manifest, files, sha256, executable };
}

/**
 * Verify and inflate a zip with the package rules: no traversal, absolute paths, links or
 * duplicates; sizes and ratio within the limits. `refuseName` adds a rule of the caller's.
 */
export async function readZipFiles(
  bytes: Uint8Array,
  options: ReadHmapOptions & { refuseName?: (name: string) => string | undefined } = {},
): Promise<{ files: Map<string, Uint8Array>; entries: ZipEntry[] }> {
  const maxTotal = options.maxTotalBytes ?? HMAP_MAX_BYTES;
  const maxEntry = options.maxEntryBytes ?? maxTotal;
  const entries = readCentralDirectory(bytes);
  checkEntries(entries, maxEntry, maxTotal, options.refuseName);
  const files = await inflateEntries(bytes, entries, {
    maxTotalBytes: maxTotal,
    maxEntryBytes: maxEntry,
    maxRatio: options.maxRatio ?? HMAP_MAX_RATIO,
    ratioGraceBytes: options.ratioGraceBytes ?? 4 * 1024 * 1024,
  });
  return { files, entries };
}

function dataFolder(name: string): string | undefined {
  return name === "data" || name.startsWith("data/")
    ? `entry "${name}": data/ is the plugin's own writable folder, made at install`
    : undefined;
}

/** Names, kinds and declared sizes, before anything is inflated. */
function checkEntries(
  entries: ZipEntry[],
  maxEntry: number,
  maxTotal: number,
  refuseName?: (name: string) => string | undefined,
): void {
  let total = 0;
  const seen = new Set<string>();
  for (const entry of entries) {
    checkEntryName(entry.name);
    const why = refuseName?.(entry.name);
    if (why) throw refuse(why);
    if ((entry.unixMode & 0o170000) === 0o120000) {
      throw refuse(`entry "${entry.name}" is a symbolic link`);
    }
    if (seen.has(entry.name)) throw refuse(`entry "${entry.name}" appears twice`);
    seen.add(entry.name);
    if (entry.size > maxEntry) {
      throw refuse(`entry "${entry.name}" is ${entry.size} bytes, over the ${maxEntry} limit`);
    }
    total += entry.size;
    if (total > maxTotal) throw refuse(`contents exceed ${maxTotal} bytes uncompressed`);
  }
}

function checkEntryName(name: string): void {
  if (name === "" || name.includes("\0") || name.includes("\\")) {
    throw refuse(`entry "${name}" has an invalid name`);
  }
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) {
    throw refuse(`entry "${name}" has an absolute path`);
  }
  if (name.split("/").some((part) => part === "..")) {
    throw refuse(`entry "${name}" leaves the package folder (path traversal)`);
  }
}

/** Write a verified package into `dir` (created; must not exist). */
export async function writeHmap(pkg: HmapPackage, dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: false });
  for (const [name, data] of pkg.files) {
    const path = join(dir, name);
    await Deno.mkdir(dirname(path), { recursive: true });
    const mode = pkg.executable.has(name) ? 0o755 : 0o644;
    await Deno.writeFile(path, data, { mode });
    await Deno.chmod(path, mode); // writeFile's mode is masked by the umask
  }
}

/** Build a package from files (path → text or bytes); deterministic for the same input. */
export async function buildHmap(
  files: Record<string, string | Uint8Array>,
  options: { executable?: string[] } = {},
): Promise<Uint8Array> {
  const { zipSync } = await import("fflate");
  const encoder = new TextEncoder();
  const zippable: Zippable = {};
  for (const name of Object.keys(files).sort()) {
    const value = files[name]!;
    zippable[name] = [typeof value === "string" ? encoder.encode(value) : value, {
      mtime: new Date(Date.UTC(2026, 0, 1)),
      os: 3,
      attrs: (options.executable?.includes(name) ? 0o100755 : 0o100644) << 16,
    }];
  }
  return zipSync(zippable, { level: 6 });
}
