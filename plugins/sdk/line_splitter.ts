/**
 * The protocol's framing: one JSON object per line. Splitting a byte stream into lines is here,
 * apart from the messages (protocol.ts), so a reader of plain lines (the guard's log relay) uses
 * it without the protocol.
 */
import { MAX_FRAME_BYTES } from "./protocol.ts";

const NEWLINE = 10;

/**
 * Splits a byte stream into lines without per-line awaits: feed chunks, get complete lines
 * back. A line longer than `maxBytes` is skipped to its newline and reported as oversize.
 */
export class LineSplitter {
  #decoder = new TextDecoder();
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #discarding = false;
  readonly #maxBytes: number;

  constructor(maxBytes = MAX_FRAME_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** Push one chunk; calls `onLine` per complete line and `onOversize` per refused line. */
  push(
    chunk: Uint8Array,
    onLine: (line: string) => void,
    onOversize: (bytes: number) => void,
  ): void {
    let start = 0;
    for (;;) {
      const cut = chunk.indexOf(NEWLINE, start);
      if (cut < 0) break;
      const size = this.#pendingBytes + cut - start;
      if (this.#discarding || size > this.#maxBytes) {
        onOversize(size);
      } else if (this.#pending.length === 0) {
        onLine(this.#decoder.decode(chunk.subarray(start, cut)));
      } else {
        this.#pending.push(chunk.subarray(start, cut));
        onLine(this.#decoder.decode(concat(this.#pending, size)));
      }
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#discarding = false;
      start = cut + 1;
    }
    if (start >= chunk.length) return;
    const rest = chunk.length - start;
    if (this.#discarding || this.#pendingBytes + rest > this.#maxBytes) {
      this.#discarding = true;
      this.#pending = [];
      this.#pendingBytes += rest;
      return;
    }
    this.#pending.push(chunk.slice(start)); // copy: the reader may reuse its buffer
    this.#pendingBytes += rest;
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
