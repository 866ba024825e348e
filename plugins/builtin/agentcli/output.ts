/**
 * A terminal's output: the newest bytes up to a bound, with absolute offsets so a reader can
 * tell what it has seen and what was dropped, and the cleaning that turns terminal output into
 * text for the model (ANSI sequences stripped, carriage returns and backspaces applied).
 */
import stripAnsi from "strip-ansi";

const encoder = new TextEncoder();

/** A slice of the output between two absolute offsets. */
export interface OutputSlice {
  text: string;
  /** Absolute offset of the first byte of `text`. */
  from: number;
  /** Absolute offset just past `text`. */
  to: number;
  /** Bytes between the requested offset and `from` that the bound had already dropped. */
  dropped: number;
}

/** The newest `capacity` bytes of a stream, as UTF-8 counted; whole chunks are dropped first. */
export class OutputRing {
  readonly capacity: number;
  #chunks: { text: string; bytes: number }[] = [];
  #start = 0;
  #end = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`Ring capacity must be a positive integer, not ${capacity}`);
    }
    this.capacity = capacity;
  }

  /** Absolute offset just past the newest byte. */
  get end(): number {
    return this.#end;
  }

  /** Absolute offset of the oldest byte kept. */
  get start(): number {
    return this.#start;
  }

  /** Append `text`, dropping the oldest output beyond the capacity. */
  push(text: string): void {
    if (text === "") return;
    const bytes = encoder.encode(text).length;
    if (bytes > this.capacity) {
      // Keep the tail; a character cut in two becomes U+FFFD, which the reader can bear.
      const all = encoder.encode(text);
      this.#start = this.#end + bytes - this.capacity;
      this.#end += bytes;
      const tail = new TextDecoder().decode(all.subarray(bytes - this.capacity));
      this.#chunks = [{ text: tail, bytes: this.capacity }];
      return;
    }
    this.#chunks.push({ text, bytes });
    this.#end += bytes;
    let kept = this.#end - this.#start;
    while (kept > this.capacity) {
      const first = this.#chunks.shift()!;
      this.#start += first.bytes;
      kept -= first.bytes;
    }
  }

  /** Everything kept from absolute offset `from` on (from the oldest kept byte when older). */
  since(from: number): OutputSlice {
    const dropped = Math.max(0, this.#start - from);
    let offset = this.#start;
    const parts: string[] = [];
    for (const chunk of this.#chunks) {
      const next = offset + chunk.bytes;
      if (next > from) {
        parts.push(offset >= from ? chunk.text : sliceBytes(chunk.text, from - offset));
      }
      offset = next;
    }
    return { text: parts.join(""), from: Math.max(from, this.#start), to: this.#end, dropped };
  }

  /** Drop everything kept (offsets go on from where they were). */
  clear(): void {
    this.#chunks = [];
    this.#start = this.#end;
  }
}

function sliceBytes(text: string, skip: number): string {
  return new TextDecoder().decode(encoder.encode(text).subarray(skip));
}

/**
 * Terminal output as text for the model: ANSI sequences stripped, CRLF as LF, a carriage
 * return overwrites its line (progress bars keep their last state), backspace erases, other
 * control characters go.
 */
export function cleanOutput(raw: string): string {
  const text = stripAnsi(raw).replace(/\r+\n/g, "\n");
  return text.split("\n").map(cleanLine).join("\n");
}

/** One line as a terminal shows it: each carriage return writes over the line from its start. */
function cleanLine(line: string): string {
  let shown = "";
  for (const segment of line.split("\r")) {
    let out = "";
    for (const ch of segment) {
      if (ch === "\b") out = out.slice(0, -1);
      else if (ch === "\t" || ch >= " ") out += ch;
    }
    shown = out + shown.slice(out.length);
  }
  return shown;
}
