/**
 * .hmap packages: a zip with plugin.json at its root. Reading verifies before extracting:
 * no path traversal, absolute paths, links (the symlink bit of the zip's Unix attributes) or
 * duplicates; sizes within the limits (per entry and in total, from the central directory and
 * again after inflating); a valid manifest of a known kind whose entry is in the package.
 */
import { unzipSync, type Zippable, zipSync } from "fflate";
import { dirname, join } from "node:path";
import { PluginError } from "../../core/mod.ts";
import { type Manifest, parseManifest } from "./manifest.ts";

/** Total uncompressed size allowed, bytes. */
export const HMAP_MAX_BYTES = 100 * 1024 * 1024;

/** A verified package, ready to write. */
export interface HmapPackage {
  manifest: Manifest;
  /** Relative path → content (directories omitted). */
  files: Map<string, Uint8Array>;
  /** Hex sha256 of the package bytes. */
  sha256: string;
}

/** Options of readHmap. */
export interface ReadHmapOptions {
  maxTotalBytes?: number;
  maxEntryBytes?: number;
}

interface CentralEntry {
  name: string;
  size: number;
  unixMode: number;
}

const refuse = (message: string) => new PluginError("?", `Cannot install package: ${message}`);

/** Verify and read a package; throws PluginError naming the first problem. */
export async function readHmap(
  bytes: Uint8Array,
  options: ReadHmapOptions = {},
): Promise<HmapPackage> {
  const maxTotal = options.maxTotalBytes ?? HMAP_MAX_BYTES;
  const maxEntry = options.maxEntryBytes ?? maxTotal;
  const entries = centralDirectory(bytes);
  let total = 0;
  const seen = new Set<string>();
  for (const entry of entries) {
    checkName(entry.name);
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
  let unpacked: Record<string, Uint8Array>;
  try {
    unpacked = unzipSync(bytes);
  } catch (error) {
    throw refuse(`not a valid zip (${(error as Error).message})`);
  }
  const files = new Map<string, Uint8Array>();
  let actual = 0;
  for (const [name, data] of Object.entries(unpacked)) {
    if (name.endsWith("/")) continue;
    if (!seen.has(name)) throw refuse(`entry "${name}" is not in the central directory`);
    actual += data.length;
    if (data.length > maxEntry || actual > maxTotal) throw refuse("contents exceed the size limit");
    files.set(name, data);
  }
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
  return { manifest, files, sha256 };
}

function checkName(name: string): void {
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

/** Parse the zip central directory (names, uncompressed sizes, Unix modes). */
function centralDirectory(bytes: Uint8Array): CentralEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65_535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw refuse("not a zip archive (no end of central directory)");
  const count = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  const decoder = new TextDecoder();
  const entries: CentralEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (offset + 46 > bytes.length || view.getUint32(offset, true) !== 0x02014b50) {
      throw refuse("corrupt central directory");
    }
    const madeBy = view.getUint16(offset + 4, true) >> 8;
    const size = view.getUint32(offset + 24, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const external = view.getUint32(offset + 38, true);
    const name = decoder.decode(bytes.subarray(offset + 46, offset + 46 + nameLength));
    if (size === 0xffffffff) throw refuse(`entry "${name}" uses zip64 sizes (too large)`);
    entries.push({ name, size, unixMode: madeBy === 3 ? external >>> 16 : 0 });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Write a verified package into `dir` (created; must not exist). */
export async function writeHmap(pkg: HmapPackage, dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: false });
  for (const [name, data] of pkg.files) {
    const path = join(dir, name);
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeFile(path, data, { mode: 0o644 });
  }
}

/**
 * Put a verified package in place as `<root>/<name>`: written to a staging folder first, the
 * previous version's data/ moved over, then swapped in; `.install.json` records the sha256.
 */
export async function placeHmap(root: string, pkg: HmapPackage, now: number): Promise<string> {
  const name = pkg.manifest.name;
  await Deno.mkdir(root, { recursive: true });
  const staging = join(root, `.install-${name}-${crypto.randomUUID().slice(0, 8)}`);
  await writeHmap(pkg, staging);
  const record = { sha256: pkg.sha256, version: pkg.manifest.version, installedAt: now };
  await Deno.writeTextFile(join(staging, ".install.json"), JSON.stringify(record) + "\n");
  const target = join(root, name);
  await Deno.rename(join(target, "data"), join(staging, "data")).catch(() => {});
  await Deno.remove(target, { recursive: true }).catch(() => {});
  await Deno.rename(staging, target);
  return target;
}

/** Build a package from files (path → text or bytes); deterministic for the same input. */
export function buildHmap(files: Record<string, string | Uint8Array>): Uint8Array {
  const encoder = new TextEncoder();
  const zippable: Zippable = {};
  for (const name of Object.keys(files).sort()) {
    const value = files[name]!;
    zippable[name] = [typeof value === "string" ? encoder.encode(value) : value, {
      mtime: new Date(Date.UTC(2026, 0, 1)),
      os: 3,
      attrs: 0o100644 << 16,
    }];
  }
  return zipSync(zippable, { level: 6 });
}
