/**
 * A strict zip reader for .hmap packages. The central directory is read once, refused when it
 * is ambiguous (two entry counts, overlapping or out-of-range data, zip64, encryption), and
 * then each listed entry is inflated with fflate's streaming Inflate in small pushes, counting
 * what the inflater actually produces: an entry that inflates past its declared size, the
 * entry or total limit, or the compression-ratio limit is refused at once, so a bomb costs
 * about one push of memory, not its inflated size.
 */
import type { Inflate } from "fflate";
import { PluginError } from "../../core/mod.ts";

/** One entry of the central directory. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate. */
  method: number;
  compressedSize: number;
  /** Declared uncompressed size. */
  size: number;
  unixMode: number;
  /** Where its compressed data starts and ends in the archive. */
  start: number;
  end: number;
}

/** Limits of inflateEntries. */
export interface ZipLimits {
  maxTotalBytes: number;
  maxEntryBytes: number;
  /** Largest inflated/compressed ratio of the whole package, once past `ratioGraceBytes`. */
  maxRatio: number;
  ratioGraceBytes: number;
}

/** The refusal every check throws. */
export const refuse = (message: string): PluginError =>
  new PluginError("?", `Cannot install package: ${message}`);

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Parse and cross-check the central directory; throws PluginError naming the first problem. */
export function readCentralDirectory(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEocd(view);
  const u16 = (at: number) => view.getUint16(at, true);
  const u32 = (at: number) => view.getUint32(at, true);
  if (u16(eocd + 4) !== 0 || u16(eocd + 6) !== 0) throw refuse("multi-disk zips are not supported");
  const onDisk = u16(eocd + 8), count = u16(eocd + 10);
  if (onDisk !== count) {
    throw refuse(`the zip declares two different entry counts (${onDisk} and ${count})`);
  }
  const cdSize = u32(eocd + 12), cdStart = u32(eocd + 16);
  if (count === 0xffff || cdStart === 0xffffffff) throw refuse("zip64 archives are not supported");
  if (cdStart + cdSize !== eocd) throw refuse("the central directory is not where the zip says");
  const entries: ZipEntry[] = [];
  let at = cdStart;
  for (let i = 0; i < count; i++) {
    const entry = centralEntry(view, bytes, { at, end: eocd, dataEnd: cdStart });
    entries.push(entry.entry);
    at = entry.next;
  }
  if (at !== eocd) throw refuse("the central directory holds more than its declared entries");
  checkNoOverlap(entries);
  return entries;
}

function findEocd(view: DataView): number {
  const last = view.byteLength - 22;
  for (let i = last; i >= Math.max(0, last - 65_535); i--) {
    if (view.getUint32(i, true) !== EOCD) continue;
    if (i + 22 + view.getUint16(i + 20, true) === view.byteLength) return i;
  }
  throw refuse("not a zip archive (no end of central directory)");
}

/** The entry at `where.at`; its record must end by `where.end`, its data by `where.dataEnd`. */
function centralEntry(
  view: DataView,
  bytes: Uint8Array,
  where: { at: number; end: number; dataEnd: number },
) {
  const { at, end: limit } = where;
  const u16 = (o: number) => view.getUint16(at + o, true);
  const u32 = (o: number) => view.getUint32(at + o, true);
  if (at + 46 > limit || u32(0) !== CENTRAL) throw refuse("corrupt central directory");
  const nameLength = u16(28);
  const next = at + 46 + nameLength + u16(30) + u16(32);
  if (next > limit) throw refuse("corrupt central directory");
  const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
  const [flags, method, compressedSize, size] = [u16(8), u16(10), u32(20), u32(24)];
  if (compressedSize === 0xffffffff || size === 0xffffffff) {
    throw refuse(`entry "${name}" uses zip64 sizes (too large)`);
  }
  if (flags & 1) throw refuse(`entry "${name}" is encrypted`);
  if (method !== 0 && method !== 8) {
    throw refuse(`entry "${name}" uses compression method ${method}`);
  }
  const start = localData(view, bytes, u32(42), name);
  const end = start + compressedSize;
  if (end > where.dataEnd) throw refuse(`entry "${name}" runs past the end of its data`);
  const unixMode = u16(4) >> 8 === 3 ? u32(38) >>> 16 : 0;
  return { entry: { name, method, compressedSize, size, unixMode, start, end }, next };
}

/** Where an entry's data starts, after its local header (whose name must match). */
function localData(view: DataView, bytes: Uint8Array, at: number, name: string): number {
  if (at + 30 > view.byteLength || view.getUint32(at, true) !== LOCAL) {
    throw refuse(`entry "${name}" has no local header`);
  }
  const nameLength = view.getUint16(at + 26, true);
  const local = new TextDecoder().decode(bytes.subarray(at + 30, at + 30 + nameLength));
  if (local !== name) throw refuse(`entry "${name}" is named "${local}" in its local header`);
  return at + 30 + nameLength + view.getUint16(at + 28, true);
}

/** Two entries sharing compressed bytes would be inflated twice from one upload: refused. */
function checkNoOverlap(entries: ZipEntry[]): void {
  const sorted = [...entries].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.start < sorted[i - 1]!.end) {
      throw refuse(`entries "${sorted[i - 1]!.name}" and "${sorted[i]!.name}" overlap`);
    }
  }
}

/** Deflate inflates at most about 1032 bytes per input byte. */
const DEFLATE_MAX_RATIO = 1032;

/**
 * Inflate every file entry within `limits`; directory entries (ending in "/") are skipped.
 * fflate is loaded on the first call: only installs and downloads unzip.
 */
export async function inflateEntries(
  bytes: Uint8Array,
  entries: ZipEntry[],
  limits: ZipLimits,
): Promise<Map<string, Uint8Array>> {
  const { Inflate } = await import("fflate");
  const files = new Map<string, Uint8Array>();
  const total = { inflated: 0, compressed: 0 };
  for (const entry of entries) {
    if (entry.name.endsWith("/")) continue;
    files.set(entry.name, inflateOne(bytes, entry, { limits, total, Inflate }));
  }
  return files;
}

function inflateOne(
  bytes: Uint8Array,
  entry: ZipEntry,
  job: {
    limits: ZipLimits;
    total: { inflated: number; compressed: number };
    Inflate: typeof Inflate;
  },
): Uint8Array {
  const { limits, total, Inflate } = job;
  const data = bytes.subarray(entry.start, entry.end);
  const parts: Uint8Array[] = [];
  let produced = 0;
  const take = (chunk: Uint8Array) => {
    produced += chunk.length;
    total.inflated += chunk.length;
    checkLimits(entry, produced, total, limits);
    parts.push(chunk);
  };
  if (entry.method === 0) {
    total.compressed += data.length;
    take(data);
  } else {
    const inflater = new Inflate((chunk) => take(chunk));
    let at = 0;
    do {
      const step = pushSize(produced, total, limits);
      const next = Math.min(data.length, at + step);
      total.compressed += next - at;
      push(inflater, data.subarray(at, next), next === data.length, entry.name);
      at = next;
    } while (at < data.length);
  }
  if (produced !== entry.size) {
    throw refuse(
      `entry "${entry.name}" inflates to ${produced} bytes, not its declared ${entry.size}`,
    );
  }
  return parts.length === 1 ? parts[0]! : concatBytes(parts, produced);
}

/**
 * Compressed bytes for the next push: small while little room is left under a limit (the size
 * limits, or what the ratio limit allows for what was read so far), so no single push can
 * inflate far past one.
 */
function pushSize(
  produced: number,
  total: { inflated: number; compressed: number },
  limits: ZipLimits,
): number {
  const byRatio = total.compressed === 0 ? 0 : limits.maxRatio * total.compressed;
  const allowedByRatio = Math.max(limits.ratioGraceBytes, byRatio);
  const room = Math.min(
    limits.maxEntryBytes - produced,
    limits.maxTotalBytes - total.inflated,
    allowedByRatio - total.inflated,
  );
  return Math.max(1024, Math.min(65_536, Math.floor(room / DEFLATE_MAX_RATIO)));
}

function push(inflater: Inflate, chunk: Uint8Array, final: boolean, name: string): void {
  try {
    inflater.push(chunk, final);
  } catch (error) {
    if (error instanceof PluginError) throw error;
    throw new PluginError(
      "?",
      `Cannot install package: entry "${name}" is not valid deflate data`,
      {
        cause: error,
      },
    );
  }
}

function checkLimits(
  entry: ZipEntry,
  produced: number,
  total: { inflated: number; compressed: number },
  limits: ZipLimits,
): void {
  if (produced > entry.size) {
    throw refuse(`entry "${entry.name}" inflates past its declared ${entry.size} bytes`);
  }
  if (produced > limits.maxEntryBytes) {
    throw refuse(
      `entry "${entry.name}" inflates past the ${limits.maxEntryBytes}-byte entry limit`,
    );
  }
  if (total.inflated > limits.maxTotalBytes) {
    throw refuse(`contents inflate past the ${limits.maxTotalBytes}-byte limit`);
  }
  const ratio = total.inflated / Math.max(1, total.compressed);
  if (total.inflated > limits.ratioGraceBytes && ratio > limits.maxRatio) {
    throw refuse(
      `contents inflate ${Math.round(ratio)} times their packed size (limit ${limits.maxRatio}); ` +
        `stopped after ${total.inflated} bytes`,
    );
  }
}

/** `parts` in one array of `total` bytes (node:buffer's Buffer.concat without node:buffer). */
export function concatBytes(parts: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    if (at >= total) break;
    out.set(part.subarray(0, total - at), at);
    at += part.length;
  }
  return out;
}
