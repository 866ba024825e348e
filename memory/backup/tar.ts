/**
 * A small tar (POSIX ustar, PAX `path` records for long names) over Web Streams, for home
 * backups: regular files and folders only. Writing streams each file's bytes in order; reading
 * refuses every other kind of entry (links, devices), a bad checksum or a truncated archive,
 * and hands each file's bytes to the caller as a bounded stream.
 */

const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One file to write: its relative path, size and bytes. */
export interface TarFile {
  path: string;
  size: number;
  mtime: number;
  open(): Promise<ReadableStream<Uint8Array>>;
}

/** The tar bytes of `files`, in order, ending with the two zero blocks. */
export function tarStream(files: AsyncIterable<TarFile>): ReadableStream<Uint8Array> {
  const iterator = files[Symbol.asyncIterator]();
  let current:
    | { reader: ReadableStreamDefaultReader<Uint8Array>; left: number; size: number }
    | undefined;
  // Each pull enqueues something (or closes): a pull that returns with nothing is not repeated.
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (current) {
          const { value, done } = await current.reader.read();
          if (!done) {
            if (value.length > current.left) {
              throw new RangeError("A file grew while it was archived");
            }
            current.left -= value.length;
            if (value.length > 0) return controller.enqueue(value);
            continue;
          }
          if (current.left !== 0) throw new RangeError("A file shrank while it was archived");
          const pad = (BLOCK - (current.size % BLOCK)) % BLOCK;
          current = undefined;
          if (pad > 0) return controller.enqueue(new Uint8Array(pad));
          continue;
        }
        const next = await iterator.next();
        if (next.done) {
          controller.enqueue(new Uint8Array(2 * BLOCK));
          return controller.close();
        }
        const file = next.value;
        controller.enqueue(headerBlocks(file.path, file.size, file.mtime));
        current = { reader: (await file.open()).getReader(), left: file.size, size: file.size };
        return;
      }
    },
    async cancel(reason) {
      await current?.reader.cancel(reason);
      await iterator.return?.();
    },
  });
}

function headerBlocks(path: string, size: number, mtime: number): Uint8Array {
  const name = encoder.encode(path);
  if (name.length <= 100) return header(name, size, mtime, "0");
  // A PAX record ("<len> path=<path>\n") names the next entry; its own name is a stand-in.
  const body = paxRecord("path", path);
  const pax = header(encoder.encode("PaxHeader"), body.length, mtime, "x");
  const padded = new Uint8Array(Math.ceil(body.length / BLOCK) * BLOCK);
  padded.set(body);
  const real = header(name.subarray(0, 100), size, mtime, "0");
  return concat([pax, padded, real]);
}

/** `<length> key=value\n`, where the length counts its own digits. */
function paxRecord(key: string, value: string): Uint8Array {
  const text = ` ${key}=${value}\n`;
  const base = encoder.encode(text).length;
  let length = base + String(base).length;
  if (String(length).length > String(base).length) length = base + String(length).length;
  return encoder.encode(`${length}${text}`);
}

function header(name: Uint8Array, size: number, mtime: number, type: string): Uint8Array {
  const block = new Uint8Array(BLOCK);
  block.set(name.subarray(0, 100), 0);
  octal(block, 100, 8, 0o600);
  octal(block, 108, 8, 0);
  octal(block, 116, 8, 0);
  octal(block, 124, 12, size);
  octal(block, 136, 12, Math.floor(mtime / 1000));
  block.fill(0x20, 148, 156); // checksum counted as spaces
  block[156] = type.charCodeAt(0);
  block.set(encoder.encode("ustar\u000000"), 257);
  octal(block, 148, 8, block.reduce((sum, b) => sum + b, 0));
  return block;
}

function octal(block: Uint8Array, at: number, width: number, value: number): void {
  if (value < 0 || value >= 8 ** (width - 1)) {
    throw new RangeError(`Tar field out of range: ${value}`);
  }
  block.set(encoder.encode(value.toString(8).padStart(width - 1, "0") + "\u0000"), at);
}

/** One entry read from an archive. */
export interface TarEntry {
  path: string;
  size: number;
  /** The file's bytes; read it to the end before the next entry comes. */
  body: ReadableStream<Uint8Array>;
}

/** Why an archive was refused. */
export class TarError extends Error {}

/**
 * Read the files of a tar stream in order, calling `onFile` for each (folders are skipped);
 * throws TarError on anything but files and folders, a bad header or a cut-off archive.
 */
export async function readTar(
  stream: ReadableStream<Uint8Array>,
  onFile: (entry: TarEntry) => Promise<void>,
): Promise<void> {
  const input = new ByteQueue(stream.getReader());
  let longName: string | undefined;
  for (;;) {
    const block = await input.take(BLOCK);
    if (block === undefined) throw new TarError("The archive ends before its end marker");
    if (block.every((b) => b === 0)) return;
    const { name, size, type } = parseHeader(block);
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    if (type === "x") {
      if (size > 64 * 1024) throw new TarError("A PAX header is too long");
      const body = await input.take(padded);
      if (!body) throw new TarError("The archive is cut off in a PAX header");
      longName = paxPath(decoder.decode(body.subarray(0, size)));
      continue;
    }
    const path = longName ?? name;
    longName = undefined;
    if (type === "5") {
      if (size !== 0) throw new TarError(`Folder "${path}" has a size`);
      continue;
    }
    if (type !== "0" && type !== "\u0000") {
      throw new TarError(`Entry "${path}" is not a file or a folder (type "${type}")`);
    }
    await onFile({ path, size, body: input.stream(size) });
    await input.drain();
    if (!(await input.skip(padded - size))) {
      throw new TarError(`The archive is cut off in "${path}"`);
    }
  }
}

function parseHeader(block: Uint8Array): { name: string; size: number; type: string } {
  const stored = readOctal(block, 148, 8);
  const copy = block.slice();
  copy.fill(0x20, 148, 156);
  if (copy.reduce((sum, b) => sum + b, 0) !== stored) {
    throw new TarError("A tar header is damaged (checksum)");
  }
  const field = (at: number, width: number) => {
    const bytes = block.subarray(at, at + width);
    const end = bytes.indexOf(0);
    return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
  };
  const prefix = field(345, 155);
  const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
  return { name, size: readOctal(block, 124, 12), type: String.fromCharCode(block[156]!) };
}

function readOctal(block: Uint8Array, at: number, width: number): number {
  // deno-lint-ignore no-control-regex
  const text = decoder.decode(block.subarray(at, at + width)).replace(/[\u0000 ]+$/, "").trim();
  if (!/^[0-7]*$/.test(text)) throw new TarError("A tar header is damaged (number)");
  return text === "" ? 0 : parseInt(text, 8);
}

function paxPath(text: string): string | undefined {
  for (const line of text.split("\n")) {
    const record = /^\d+ path=(.*)$/.exec(line);
    if (record) return record[1];
  }
  return undefined;
}

/** Bytes from a reader, taken in exact amounts. */
class ByteQueue {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffer: Uint8Array = new Uint8Array(0);
  #done = false;
  /** Bytes of the current file not yet handed out. */
  #left = 0;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>) {
    this.#reader = reader;
  }

  async #fill(n: number): Promise<boolean> {
    while (this.#buffer.length < n && !this.#done) {
      const { value, done } = await this.#reader.read();
      if (done) this.#done = true;
      else this.#buffer = this.#buffer.length === 0 ? value : concat([this.#buffer, value]);
    }
    return this.#buffer.length >= n;
  }

  async take(n: number): Promise<Uint8Array | undefined> {
    if (!(await this.#fill(n))) return undefined;
    const out = this.#buffer.slice(0, n);
    this.#buffer = this.#buffer.subarray(n);
    return out;
  }

  async skip(n: number): Promise<boolean> {
    return (await this.take(n)) !== undefined;
  }

  /** The next `size` bytes as a stream (at most 64 KiB a chunk). */
  stream(size: number): ReadableStream<Uint8Array> {
    this.#left = size;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (this.#left === 0) return controller.close();
        if (!(await this.#fill(1))) {
          return controller.error(new TarError("The archive is cut off inside a file"));
        }
        const n = Math.min(this.#left, 64 * 1024, this.#buffer.length);
        const chunk = this.#buffer.slice(0, n);
        this.#buffer = this.#buffer.subarray(n);
        this.#left -= n;
        controller.enqueue(chunk);
      },
    });
  }

  /** Skip what the caller left unread of the last stream. */
  async drain(): Promise<void> {
    while (this.#left > 0) {
      const n = Math.min(this.#left, 64 * 1024);
      if (!(await this.skip(n))) throw new TarError("The archive is cut off inside a file");
      this.#left -= n;
    }
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
