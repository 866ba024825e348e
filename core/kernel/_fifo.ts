/** A first-in first-out list with O(1) push and shift (head index, compacted lazily). */
export class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  /** Items waiting. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  /** Append `item` at the tail. */
  push(item: T): void {
    this.#items.push(item);
  }

  /** The oldest item, left in place. */
  peek(): T | undefined {
    return this.#head < this.#items.length ? this.#items[this.#head] : undefined;
  }

  /** Remove and return the oldest item. */
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head]!;
    this.#items[this.#head] = undefined as T; // let it be collected before compaction
    this.#head++;
    if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Remove the items `drop` selects, keeping the order of the rest; returns the removed. */
  remove(drop: (item: T) => boolean): T[] {
    const removed: T[] = [];
    const kept: T[] = [];
    for (const item of this.values()) (drop(item) ? removed : kept).push(item);
    if (removed.length > 0) {
      this.#items = kept;
      this.#head = 0;
    }
    return removed;
  }

  /** The items oldest first. */
  *values(): IterableIterator<T> {
    for (let i = this.#head; i < this.#items.length; i++) yield this.#items[i]!;
  }
}
