/**
 * A Map that keeps its `capacity` most recently used keys: reading or writing a key makes it
 * the newest, and a write past the capacity drops the oldest. One definition for the memos and
 * read caches of the memory tiers (embeddings, the analyzer's cuts, the graph's recall reads).
 */
export class LruMap<K, V> {
  readonly #map = new Map<K, V>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = Math.max(0, capacity);
  }

  /** Entries held now. */
  get size(): number {
    return this.#map.size;
  }

  /** The value of `key`, made the newest; undefined when not held. */
  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }

  /** Hold `value` under `key` as the newest, dropping the oldest past the capacity; returns it. */
  set(key: K, value: V): V {
    this.#map.delete(key);
    this.#map.set(key, value);
    while (this.#map.size > this.#capacity) this.#map.delete(this.#map.keys().next().value!);
    return value;
  }

  clear(): void {
    this.#map.clear();
  }
}
