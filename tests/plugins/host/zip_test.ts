/**
 * Crafted zips against readHmap: what the central directory declares is cross-checked, and
 * what the inflater produces is counted while it inflates, so a bomb is refused before it
 * costs its inflated size.
 */
import assert from "node:assert/strict";
import { deflateSync } from "fflate";
import { Buffer } from "node:buffer";
import { readHmap } from "../../../plugins/mod.ts";

const MB = 1024 * 1024;
const text = (s: string) => new TextEncoder().encode(s);
const MANIFEST = text(
  JSON.stringify({ name: "pkg", version: "1.0.0", entry: "SKILL.md", kind: "skill" }),
);
const SKILL = text("---\nname: pkg\ndescription: a packaged skill\n---\n# Steps\n");

interface RawEntry {
  name: string;
  data: Uint8Array;
  /** Declared uncompressed size; default the real one. */
  size?: number;
  /** Point this central record at the local entry of another (by index). */
  sameDataAs?: number;
}

interface Crafted {
  entries: RawEntry[];
  /** EOCD "entries on this disk" and "total entries"; default the real count. */
  onDisk?: number;
  total?: number;
}

const packed = new Map<Uint8Array, Uint8Array>();
const pack = (data: Uint8Array) => {
  if (!packed.has(data)) packed.set(data, deflateSync(data, { level: 9 }));
  return packed.get(data)!;
};

/** Write a zip by hand, as a hostile archiver could: every field is what the test says. */
function craftZip(spec: Crafted): Uint8Array {
  const chunks: Uint8Array[] = [];
  let offset = 0;
  const put = (bytes: Uint8Array) => {
    chunks.push(bytes);
    offset += bytes.length;
  };
  const locals: { at: number; packed: number }[] = [];
  for (const entry of spec.entries) {
    const packed = pack(entry.data);
    const name = text(entry.name);
    const header = new DataView(new ArrayBuffer(30));
    header.setUint32(0, 0x04034b50, true);
    header.setUint16(4, 20, true);
    header.setUint16(8, 8, true);
    header.setUint32(18, packed.length, true);
    header.setUint32(22, entry.size ?? entry.data.length, true);
    header.setUint16(26, name.length, true);
    locals.push({ at: offset, packed: packed.length });
    put(new Uint8Array(header.buffer));
    put(name);
    put(packed);
  }
  const cdStart = offset;
  spec.entries.forEach((entry, i) => {
    const local = locals[entry.sameDataAs ?? i]!;
    const name = text(entry.name);
    const record = new DataView(new ArrayBuffer(46));
    record.setUint32(0, 0x02014b50, true);
    record.setUint16(4, (3 << 8) | 20, true);
    record.setUint16(6, 20, true);
    record.setUint16(10, 8, true);
    record.setUint32(20, local.packed, true);
    record.setUint32(24, entry.size ?? entry.data.length, true);
    record.setUint16(28, name.length, true);
    record.setUint32(38, (0o100644 << 16) >>> 0, true);
    record.setUint32(42, local.at, true);
    put(new Uint8Array(record.buffer));
    put(name);
  });
  const eocd = new DataView(new ArrayBuffer(22));
  eocd.setUint32(0, 0x06054b50, true);
  eocd.setUint16(8, spec.onDisk ?? spec.entries.length, true);
  eocd.setUint16(10, spec.total ?? spec.entries.length, true);
  eocd.setUint32(12, offset - cdStart, true);
  eocd.setUint32(16, cdStart, true);
  put(new Uint8Array(eocd.buffer));
  return Buffer.concat(chunks, offset);
}

const base = (): RawEntry[] => [
  { name: "plugin.json", data: MANIFEST },
  { name: "SKILL.md", data: SKILL },
];
const zeroBlocks = new Map<number, Uint8Array>();
/** `n` zero bytes; the same array for the same size, so each size is deflated once. */
const zeros = (n: number) => {
  if (!zeroBlocks.has(n)) zeroBlocks.set(n, new Uint8Array(n));
  return zeroBlocks.get(n)!;
};

Deno.test("readHmap refuses a zip whose end record declares two different entry counts", async () => {
  const bombs = Array.from({ length: 20 }, (_, i) => ({ name: `b${i}`, data: zeros(10 * MB) }));
  const entries = [...base(), ...bombs];
  const bytes = craftZip({ entries, onDisk: entries.length, total: 2 });
  await assert.rejects(readHmap(bytes), /declares two different entry counts \(22 and 2\)/);
});

Deno.test("readHmap stops an entry that inflates past its declared size", async () => {
  const bytes = craftZip({
    entries: [...base(), { name: "liar", data: zeros(20 * MB), size: 10 }],
  });
  await assert.rejects(readHmap(bytes), /entry "liar" inflates past its declared 10 bytes/);
});

Deno.test("readHmap stops at the compression-ratio limit, counted while inflating", async () => {
  const bytes = craftZip({ entries: [...base(), { name: "sparse", data: zeros(20 * MB) }] });
  assert.ok(bytes.length < 100_000, `${bytes.length} bytes packed`);
  const error = await readHmap(bytes).then(() => undefined, (e: Error) => e);
  assert.match(String(error?.message), /inflate \d+ times their packed size \(limit 100\)/);
  const stoppedAt = Number(/stopped after (\d+) bytes/.exec(String(error?.message))?.[1]);
  assert.ok(stoppedAt < 4 * MB + 2 * MB, `stopped after ${stoppedAt} bytes, not near 20 MB`);
  // A ratio a real package has passes: 2 MB of text that packs about 8:1.
  const words = text(
    Array.from({ length: 200_000 }, (_, i) => `w${(i * 7919) % 5003}`).join(" ").slice(0, 2 * MB),
  );
  await readHmap(craftZip({ entries: [...base(), { name: "words.txt", data: words }] }));
});

Deno.test("readHmap refuses central records that share one entry's data", async () => {
  const entries: RawEntry[] = [...base(), { name: "a", data: zeros(10 * MB) }];
  for (let i = 0; i < 7; i++) {
    entries.push({ name: "a", data: zeros(0), size: 10 * MB, sameDataAs: 2 });
  }
  // The copies' local headers are never read: rename them so only the central records differ.
  entries.forEach((e, i) => i > 2 && (e.name = `copy${i}`));
  await assert.rejects(readHmap(craftZip({ entries })), /overlap|local header/);
});

Deno.test("readHmap holds declared sizes to the limits before inflating anything", async () => {
  const entries = [...base(), { name: "big", data: zeros(8 * MB), size: 8 * MB }];
  const error = await readHmap(craftZip({ entries }), {
    maxTotalBytes: 9 * MB,
    maxEntryBytes: 9 * MB,
    maxRatio: Infinity,
  }).then(() => undefined, (e: Error) => e);
  assert.equal(error, undefined, "8 MB within a 9 MB limit is fine");
  const two = [...base(), { name: "a", data: zeros(5 * MB) }, { name: "b", data: zeros(5 * MB) }];
  await assert.rejects(
    readHmap(craftZip({ entries: two }), { maxTotalBytes: 9 * MB, maxRatio: Infinity }),
    /exceed 9437184 bytes uncompressed/,
  );
});
