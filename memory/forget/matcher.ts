/**
 * Forgotten names as keyed hashes (issue 14: a tombstone is a keyed hash of the name, never the
 * name): HMAC-SHA256 under a key of the home, over the name folded (NFKC, lower case, spaces
 * collapsed). A text mentions a forgotten name when one of its windows of a forgotten length
 * hashes to a tombstone; in Latin-like script a window must start and end at a word boundary
 * ("Bo" is not in "both"), in Chinese and Japanese any window counts (no spaces to wait for).
 */
import { quickBase, quickHash, rollWindows } from "./quick_hash.ts";

/**
 * One tombstone: the hash of a folded name under key `keyId`, and its length in characters;
 * `quick` is the pre-check of quick_hash.ts (absent in tombstones made before it: those
 * lengths are matched by hashing every window, as before).
 */
export interface Tombstone {
  keyId: number;
  hash: string;
  length: number;
  quick?: number;
}

/** What replaces a forgotten name in stored text. */
export const FORGOTTEN_MARK = "[forgotten]";

/** A text folded for matching: each folded code point with its span in the original. */
interface Folded {
  codes: number[];
  starts: number[];
  ends: number[];
}

/** The folded form of `text`: NFKC per character, lower case, whitespace runs as one space. */
export function foldText(text: string): Folded {
  const folded: Folded = { codes: [], starts: [], ends: [] };
  for (let at = 0; at < text.length;) {
    const code = text.codePointAt(at)!;
    const end = at + (code > 0xffff ? 2 : 1);
    if (code < 128 ? ASCII_SPACE.has(code) : /\s/u.test(String.fromCodePoint(code))) {
      if (folded.codes.at(-1) === SPACE) folded.ends[folded.ends.length - 1] = end;
      else push(folded, SPACE, at, end);
    } else if (
      code < 128 || (code >= 0x4e00 && code <= 0x9fff) || (code >= 0x3400 && code <= 0x4dbf)
    ) {
      // ASCII and the unified Han ideographs are their own NFKC forms: skip normalize().
      push(folded, code >= 65 && code <= 90 ? code + 32 : code, at, end);
    } else {
      for (const c of String.fromCodePoint(code).normalize("NFKC").toLowerCase()) {
        push(folded, c.codePointAt(0)!, at, end);
      }
    }
    at = end;
  }
  return folded;
}

const SPACE = 32;
/** The ASCII characters `\s` matches. */
const ASCII_SPACE = new Set([9, 10, 11, 12, 13, 32]);

function push(folded: Folded, code: number, start: number, end: number): void {
  folded.codes.push(code);
  folded.starts.push(start);
  folded.ends.push(end);
}

/** The folded name as one string (trimmed): what a tombstone hashes. */
export function foldName(name: string): string {
  return String.fromCodePoint(...foldText(name.trim()).codes).trim();
}

const WORDLIKE = /[\p{L}\p{N}_]/u;
const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** A code point that glues to its neighbours into one word (Latin, Cyrillic, digits, …). */
function glues(code: number | undefined): boolean {
  if (code === undefined) return false;
  if (code < 128) return ASCII_WORDLIKE.test(String.fromCharCode(code));
  const c = String.fromCodePoint(code);
  return WORDLIKE.test(c) && !SPACELESS.test(c);
}

const ASCII_WORDLIKE = /[A-Za-z0-9_]/;

/** The forgotten names of a home, by hash; matching and redaction need no plain name. */
export class ForgottenNames {
  #keys = new Map<number, Uint8Array>();
  #tombstones: Tombstone[] = [];
  #hashes = new Set<string>();
  #lengths = new Set<number>();
  /** Quick hashes by key and length (`keyId:length`): windows rolled, HMAC only on a hit. */
  #quick = new Map<string, { keyId: number; length: number; values: Set<number> }>();
  /** Lengths with a tombstone that has no quick hash: every window of them is hashed. */
  #slowLengths = new Set<number>();

  constructor(keys: Iterable<[number, Uint8Array]> = [], tombstones: Iterable<Tombstone> = []) {
    for (const [id, key] of keys) this.#keys.set(id, key);
    for (const t of tombstones) this.add(t);
  }

  /** How many tombstones are held. */
  get size(): number {
    return this.#hashes.size;
  }

  /** Hold a key (another home's tombstones keep their own key). */
  addKey(id: number, key: Uint8Array): void {
    this.#keys.set(id, key);
  }

  /** Hold a tombstone. */
  add(tombstone: Tombstone): void {
    const id = `${tombstone.keyId}:${tombstone.hash}`;
    if (this.#hashes.has(id)) return;
    this.#hashes.add(id);
    this.#tombstones.push(tombstone);
    this.#lengths.add(tombstone.length);
    if (tombstone.quick === undefined) {
      this.#slowLengths.add(tombstone.length);
      return;
    }
    const group = `${tombstone.keyId}:${tombstone.length}`;
    const values = this.#quick.get(group)?.values ?? new Set<number>();
    values.add(tombstone.quick);
    this.#quick.set(group, { keyId: tombstone.keyId, length: tombstone.length, values });
  }

  /** A copy to extend (inside a transaction that may still fail). */
  copy(): ForgottenNames {
    return new ForgottenNames(this.#keys, this.#tombstones);
  }

  /** Take every key and tombstone of `other` (a copy extended and committed). */
  merge(other: ForgottenNames): void {
    const { keys, tombstones } = other.entries();
    for (const [id, key] of keys) this.addKey(id, key);
    for (const t of tombstones) this.add(t);
  }

  /** Every key and tombstone held (export). */
  entries(): { keys: [number, Uint8Array][]; tombstones: Tombstone[] } {
    return { keys: [...this.#keys], tombstones: [...this.#tombstones] };
  }

  /** The tombstone of `name` under key `keyId` (the key must be held). */
  tombstone(name: string, keyId: number): Tombstone {
    const key = this.#keys.get(keyId);
    if (!key) throw new RangeError(`No tombstone key ${keyId}`);
    const folded = [...foldName(name)];
    const quick = quickHash(quickBase(key), folded.map((c) => c.codePointAt(0)!));
    return { keyId, hash: hmac(key, folded.join("")), length: folded.length, quick };
  }

  /** Whether `name` as a whole is forgotten. */
  isForgotten(name: string): boolean {
    if (this.#hashes.size === 0) return false;
    const folded = foldName(name);
    return this.#lengths.has([...folded].length) && this.#known(folded);
  }

  /** Whether `text` mentions a forgotten name anywhere. */
  mentions(text: string): boolean {
    return this.spans(text).length > 0;
  }

  /** `text` with every forgotten name replaced by `mark`. */
  redact(text: string, mark = FORGOTTEN_MARK): string {
    let out = text;
    for (const [start, end] of this.spans(text).reverse()) {
      out = out.slice(0, start) + mark + out.slice(end);
    }
    return out;
  }

  /** The spans of `text` (UTF-16 offsets, ascending, merged) that hold a forgotten name. */
  spans(text: string): [number, number][] {
    if (this.#hashes.size === 0 || text === "") return [];
    const f = foldText(text);
    const found: [number, number][] = [];
    const { codes } = f;
    const check = (s: number, length: number) => {
      const e = s + length;
      if (codes[s] === SPACE || codes[e - 1] === SPACE) return;
      if (glues(codes[s]) && glues(codes[s - 1])) return;
      if (glues(codes[e - 1]) && glues(codes[e])) return;
      if (this.#known(String.fromCodePoint(...codes.slice(s, e)))) {
        found.push([f.starts[s]!, f.ends[e - 1]!]);
      }
    };
    for (const { keyId, length, values } of this.#quick.values()) {
      const key = this.#keys.get(keyId);
      if (key) rollWindows(quickBase(key), f.codes, length, values, (s) => check(s, length));
    }
    for (const length of this.#slowLengths) {
      for (let s = 0; s + length <= codes.length; s++) check(s, length);
    }
    return merge(found);
  }

  #known(folded: string): boolean {
    for (const [id, key] of this.#keys) {
      if (this.#hashes.has(`${id}:${hmac(key, folded)}`)) return true;
    }
    return false;
  }
}

/**
 * node:crypto, loaded with the first forgotten name: importing it costs the daemon ~1.5 MB and
 * ~30 ms at start. getBuiltinModule loads it synchronously, so matching stays synchronous.
 */
let nodeCrypto: typeof import("node:crypto") | undefined;

function hmac(key: Uint8Array, text: string): string {
  // globalThis.process, not an import of node:process: that would load Deno's `node:` layer at start.
  nodeCrypto ??= globalThis.process.getBuiltinModule("node:crypto") as typeof import("node:crypto");
  return nodeCrypto.createHmac("sha256", key).update(text).digest("hex");
}

function merge(spans: [number, number][]): [number, number][] {
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: [number, number][] = [];
  for (const span of spans) {
    const last = out.at(-1);
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else out.push([...span]);
  }
  return out;
}
