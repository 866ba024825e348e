/**
 * An in-memory BM25 index over the analyzer's words: posting lists in typed arrays, scored
 * term-at-a-time into one accumulator. SQLite FTS5's bm25() costs a function call per matching
 * row, which at 100,000 documents and common words is hundreds of milliseconds; this is about
 * one float add per posting.
 */

const K1 = 1.2;
const B = 0.75;

interface Postings {
  slots: Int32Array;
  tfs: Uint16Array;
  length: number;
  /** Live documents holding the word (postings of removed ones linger until compaction). */
  df: number;
}

/** BM25 over documents identified by string ids. */
export class Bm25Index {
  #terms = new Map<string, Postings>();
  #slotOf = new Map<string, number>();
  #ids: (string | undefined)[] = [];
  /** The distinct words of each live slot, so a removal can keep document frequencies exact. */
  #slotTerms: (string[] | undefined)[] = [];
  /** Words per slot; -1 marks a removed document whose postings are skipped until compaction. */
  #lengths = new Float32Array(1024);
  #scores = new Float32Array(1024);
  /** Slots a search has scored (scratch). */
  #touched = new Int32Array(1024);
  /**
   * Each slot's length term of BM25's denominator, `K1 * (1 - B + B * length / avg)` (-1 for a
   * removed one), computed at a search after any change: the same number the formula takes.
   */
  #norms?: Float64Array;
  #dead = 0;
  #totalLength = 0;

  /** Number of documents. */
  get size(): number {
    return this.#slotOf.size;
  }

  /** Index `terms` for `id` (replacing what it had). */
  add(id: string, terms: readonly string[]): void {
    this.remove(id);
    this.#norms = undefined;
    const slot = this.#ids.length;
    if (slot >= this.#lengths.length) this.#grow(slot + 1);
    this.#ids.push(id);
    this.#slotOf.set(id, slot);
    this.#lengths[slot] = terms.length;
    this.#totalLength += terms.length;
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, tf] of counts) this.#append(term, slot, Math.min(tf, 65535));
    this.#slotTerms[slot] = [...counts.keys()];
  }

  /** Forget `id`; false when it was not indexed. */
  remove(id: string): boolean {
    const slot = this.#slotOf.get(id);
    if (slot === undefined) return false;
    this.#norms = undefined;
    this.#slotOf.delete(id);
    this.#ids[slot] = undefined;
    for (const term of this.#slotTerms[slot] ?? []) this.#terms.get(term)!.df--;
    this.#slotTerms[slot] = undefined;
    this.#totalLength -= this.#lengths[slot]!;
    this.#lengths[slot] = -1;
    this.#dead++;
    if (this.#dead > 1024 && this.#dead > this.#slotOf.size) this.#compact();
    return true;
  }

  /**
   * The `k` best ids for the query words, best first (ties: earlier added first). A word given
   * more than once weighs more (`weights` overrides: word → weight).
   */
  search(
    terms: readonly string[],
    k: number,
    weights?: ReadonlyMap<string, number>,
  ): { id: string; score: number }[] {
    const n = this.size;
    if (n === 0 || k <= 0) return [];
    const scores = this.#scores;
    const norms = this.#norms ??= this.#lengthNorms(this.#totalLength / n || 1);
    let touched = this.#touched;
    let count = 0;
    const queryWeights = weights ?? new Map(terms.map((t) => [t, 1]));
    for (const [term, weight] of queryWeights) {
      const postings = this.#terms.get(term);
      if (!postings || weight <= 0) continue;
      const df = postings.df;
      if (df === 0) continue;
      const idf = weight * Math.log(1 + (n - df + 0.5) / (df + 0.5));
      if (touched.length < count + postings.length) {
        touched = this.#touched = grown(touched, count + postings.length);
      }
      for (let i = 0; i < postings.length; i++) {
        const slot = postings.slots[i]!;
        const norm = norms[slot]!;
        if (norm < 0) continue;
        const tf = postings.tfs[i]!;
        if (scores[slot] === 0) touched[count++] = slot;
        scores[slot]! += idf * tf * (K1 + 1) / (tf + norm);
      }
    }
    const best = count <= k
      ? Array.from(touched.subarray(0, count))
      : topSlots(scores, touched, count, k);
    const hits = best.map((slot) => ({ slot, score: scores[slot]! }))
      .sort((a, b) => b.score - a.score || a.slot - b.slot)
      .map((h) => ({ id: this.#ids[h.slot]!, score: h.score }));
    // Indexed, not `for … of`: a search touches up to every document, and the iterator's
    // result objects were most of what a recall allocated (~1 MB a turn for the collector).
    for (let i = 0; i < count; i++) scores[touched[i]!] = 0;
    return hits;
  }

  #lengthNorms(avg: number): Float64Array {
    const norms = new Float64Array(this.#ids.length);
    const lengths = this.#lengths;
    for (let slot = 0; slot < norms.length; slot++) {
      const length = lengths[slot]!;
      norms[slot] = length < 0 ? -1 : K1 * (1 - B + B * length / avg);
    }
    return norms;
  }

  #append(term: string, slot: number, tf: number): void {
    let postings = this.#terms.get(term);
    if (!postings) {
      postings = { slots: new Int32Array(4), tfs: new Uint16Array(4), length: 0, df: 0 };
      this.#terms.set(term, postings);
    }
    if (postings.length === postings.slots.length) {
      const slots = new Int32Array(postings.slots.length * 2);
      slots.set(postings.slots);
      const tfs = new Uint16Array(postings.tfs.length * 2);
      tfs.set(postings.tfs);
      postings.slots = slots;
      postings.tfs = tfs;
    }
    postings.slots[postings.length] = slot;
    postings.tfs[postings.length] = tf;
    postings.length++;
    postings.df++;
  }

  /** Renumber live documents densely and drop every posting of a removed one. */
  #compact(): void {
    const renumber = new Int32Array(this.#ids.length).fill(-1);
    const ids: string[] = [];
    const slotTerms: (string[] | undefined)[] = [];
    const lengths = new Float32Array(Math.max(1024, this.#lengths.length));
    this.#ids.forEach((id, slot) => {
      if (id === undefined) return;
      renumber[slot] = ids.length;
      lengths[ids.length] = this.#lengths[slot]!;
      slotTerms.push(this.#slotTerms[slot]);
      this.#slotOf.set(id, ids.length);
      ids.push(id);
    });
    for (const [term, postings] of this.#terms) {
      let write = 0;
      for (let read = 0; read < postings.length; read++) {
        const slot = renumber[postings.slots[read]!]!;
        if (slot < 0) continue;
        postings.slots[write] = slot;
        postings.tfs[write] = postings.tfs[read]!;
        write++;
      }
      postings.length = write;
      if (write === 0) this.#terms.delete(term);
    }
    this.#ids = ids;
    this.#slotTerms = slotTerms;
    this.#lengths = lengths;
    this.#scores = new Float32Array(lengths.length);
    this.#dead = 0;
  }

  #grow(min: number): void {
    let size = this.#lengths.length;
    while (size < min) size *= 2;
    const lengths = new Float32Array(size);
    lengths.set(this.#lengths);
    this.#lengths = lengths;
    this.#scores = new Float32Array(size);
  }
}

/** `array` copied into one of at least `min` entries. */
function grown(array: Int32Array, min: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(Math.max(min, array.length * 2));
  next.set(array);
  return next;
}

/**
 * The `k` highest-scoring slots among the first `count` of `touched` (unordered), by a size-k
 * min-heap. Indexed loops and a plain swap: this runs over every touched slot of a search, and
 * the iterator's results and the swap's destructuring arrays were garbage per slot.
 */
function topSlots(scores: Float32Array, touched: Int32Array, count: number, k: number): number[] {
  const heap: number[] = [];
  const worse = (a: number, b: number) =>
    scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
  const swap = (i: number, j: number) => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  for (let n = 0; n < count; n++) {
    const slot = touched[n]!;
    if (heap.length < k) {
      heap.push(slot);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!worse(heap[i]!, heap[parent]!)) break;
        swap(i, parent);
        i = parent;
      }
    } else if (worse(heap[0]!, slot)) {
      heap[0] = slot;
      for (let i = 0;;) {
        const left = 2 * i + 1, right = left + 1;
        let m = i;
        if (left < heap.length && worse(heap[left]!, heap[m]!)) m = left;
        if (right < heap.length && worse(heap[right]!, heap[m]!)) m = right;
        if (m === i) break;
        swap(i, m);
        i = m;
      }
    }
  }
  return heap;
}
