/**
 * A strict reader of gzipped tar archives (npm package tarballs). Only regular files come out;
 * directories are skipped; links, devices and anything else are refused, as are absolute
 * paths, `..`, NUL or backslashes in names, and duplicates. Sizes are counted while gunzipping:
 * the archive stops at `maxTotalBytes` of inflated data, whatever its headers say.
 */
import { PluginError } from "../../core/mod.ts";
import { concatBytes } from "./zip.ts";

/** Limits of readTarGz. */
export interface TarLimits {
  /** Inflated bytes of the whole archive (headers included). */
  maxTotalBytes: number;
  maxEntryBytes: number;
  maxFiles: number;
}

const refuse = (message: string) => new PluginError("?", `Cannot install package: ${message}`);

/** Inflate `bytes` (gzip) within `max` bytes; throws PluginError past it or on bad data. */
async function gunzip(bytes: Uint8Array, max: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new DecompressionStream("gzip"));
  try {
    for await (const chunk of stream) {
      total += chunk.length;
      if (total > max) throw refuse(`the archive inflates past ${max} bytes`);
      parts.push(chunk);
    }
  } catch (error) {
    if (error instanceof PluginError) throw error;
    throw new PluginError("?", "Cannot install package: the archive is not valid gzip", {
      cause: error,
    });
  }
  return concatBytes(parts, total);
}

/** The files of a .tgz (path → bytes), in archive order. Throws PluginError naming the problem. */
export async function readTarGz(
  bytes: Uint8Array,
  limits: TarLimits,
): Promise<Map<string, Uint8Array>> {
  const tar = await gunzip(bytes, limits.maxTotalBytes);
  const files = new Map<string, Uint8Array>();
  let at = 0;
  let longName: string | undefined;
  let paxPath: string | undefined;
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break; // end of archive
    checkChecksum(header);
    const size = octal(header.subarray(124, 136), "size");
    const type = String.fromCharCode(header[156]!);
    const data = tar.subarray(at + 512, at + 512 + size);
    if (data.length !== size) throw refuse("an entry runs past the end of the archive");
    at += 512 + Math.ceil(size / 512) * 512;
    if (type === "L") {
      longName = cString(data);
      continue;
    }
    if (type === "x") {
      paxPath = paxValue(data, "path");
      continue;
    }
    if (type === "g") continue; // global pax header: nothing we use
    const name = paxPath ?? longName ?? headerName(header);
    paxPath = longName = undefined;
    if (type === "5") continue;
    if (type !== "0" && type !== "\0" && type !== "7") {
      throw refuse(`entry "${name}" is not a regular file (type "${type}")`);
    }
    checkName(name);
    if (size > limits.maxEntryBytes) {
      throw refuse(`entry "${name}" is ${size} bytes, over the ${limits.maxEntryBytes} limit`);
    }
    if (files.has(name)) throw refuse(`entry "${name}" appears twice`);
    files.set(name, data.slice());
    if (files.size > limits.maxFiles) throw refuse(`more than ${limits.maxFiles} files`);
  }
  return files;
}

function headerName(header: Uint8Array): string {
  const name = cString(header.subarray(0, 100));
  const ustar = cString(header.subarray(257, 263)).startsWith("ustar");
  const prefix = ustar ? cString(header.subarray(345, 500)) : "";
  return prefix ? `${prefix}/${name}` : name;
}

function checkName(name: string): void {
  if (name === "" || name.includes("\0") || name.includes("\\")) {
    throw refuse(`entry "${name}" has an invalid name`);
  }
  if (name.startsWith("/")) throw refuse(`entry "${name}" has an absolute path`);
  if (name.split("/").includes("..")) {
    throw refuse(`entry "${name}" leaves the package folder (path traversal)`);
  }
}

function checkChecksum(header: Uint8Array): void {
  const stored = octal(header.subarray(148, 156), "checksum");
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
  if (sum !== stored) throw refuse("a tar header's checksum does not match (corrupt archive)");
}

function octal(field: Uint8Array, what: string): number {
  const text = cString(field).trim();
  if (!/^[0-7]*$/.test(text)) throw refuse(`a tar header has an invalid ${what}`);
  return text === "" ? 0 : parseInt(text, 8);
}

function cString(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end));
}

/** A value of a pax extended header (`<len> key=value\n` records). */
function paxValue(data: Uint8Array, key: string): string | undefined {
  const text = new TextDecoder().decode(data);
  for (const record of text.split("\n")) {
    const match = /^\d+ ([^=]+)=(.*)$/.exec(record);
    if (match?.[1] === key) return match[2];
  }
  return undefined;
}
