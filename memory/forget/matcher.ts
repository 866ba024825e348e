/**
 * Forgotten names as keyed hashes (issue 14: a tombstone is a keyed hash of the name, never the
 * name): HMAC-SHA256 under a key of the home, over the name folded (NFKC, lower case, spaces
 * collapsed). A text mentions a forgotten name when one of its windows of a forgotten length
 * hashes to a tombstone; in Latin-like script a window must start and end at a word boundary
 * ("Bo" is not in "both"), in Chinese and Japanese any window counts (no spaces to wait for).
 */
import process from "node:process";

/** One tombstone: the hash of a folded name under key `keyId`, and its length in characters. */
export interface Tombstone {
  keyId: number;
  hash: string;
  length: number;
}

/** What replaces a forgotten name in stored text. */
export const FORGOTTEN_MARK = "[forgotten]";

/** A text folded for matching, with each folded character's span in the original. */
interface Folded {
  chars: string[];
  starts: number[];
  ends: number[];
}

/** The folded form of `text`: NFKC per character, lower case, whitespace runs as one space. */
export function foldText(text: string): Folded {
  const folded: Folded = { chars: [], starts: [], ends: [] };
  let at = 0;
  for (const point of text) {
    const end = at + point.length;
    if (/\s/u.test(point)) {
      if (folded.chars.at(-1) === " ") folded.ends[folded.ends.length - 1] = end;
      else push(folded, " ", at, end);
    } else {
      for (const c of point.normalize("NFKC").toLowerCase()) push(folded, c, at, end);
    }
    at = end;
  }
  return folded;
}

function push(folded: Folded, c: string, start: number, end: number): void {
  folded.chars.push(c);
  folded.starts.push(start);
  folded.ends.push(end);
}

/** The folded name as one string (trimmed): what a tombstone hashes. */
export function foldName(name: string): string {
  return foldText(name.trim()).chars.join("").trim();
}

const WORDLIKE = /[\p{L}\p{N}_]/u;
const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** A character that glues to its neighbours into one word (Latin, Cyrillic, digits, …). */
function glues(c: string | undefined): boolean {
  return c !== undefined && WORDLIKE.test(c) && !SPACELESS.test(c);
}

/** The forgotten names of a home, by hash; matching and redaction need no plain name. */
export class ForgottenNames {
  #keys = new Map<number, Uint8Array>();
  #tombstones: Tombstone[] = [];
  #hashes = new Set<string>();
  #lengths = new Set<number>();

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
    const folded = foldName(name);
    return { keyId, hash: hmac(key, folded), length: [...folded].length };
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
    for (const length of this.#lengths) {
      for (let s = 0; s + length <= f.chars.length; s++) {
        const e = s + length;
        if (f.chars[s] === " " || f.chars[e - 1] === " ") continue;
        if (glues(f.chars[s]) && glues(f.chars[s - 1])) continue;
        if (glues(f.chars[e - 1]) && glues(f.chars[e])) continue;
        if (this.#known(f.chars.slice(s, e).join(""))) found.push([f.starts[s]!, f.ends[e - 1]!]);
      }
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
  nodeCrypto ??= process.getBuiltinModule("node:crypto") as typeof import("node:crypto");
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
