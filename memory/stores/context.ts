/**
 * The working window on disk: memory/context.json, a snapshot written atomically, and
 * memory/context.journal, one JSON record a line for every change since (fsynced per commit).
 * Both are validated on read; a torn last journal line (a write cut short by a kill) is skipped.
 */
import { z } from "zod";
import { dirname } from "node:path";
import type {
  ContextEvent,
  ContextRecord,
  ContextSnapshot,
  ContextStore,
  Logger,
  StoredContext,
} from "../../core/mod.ts";
import { errorMessage } from "../../core/mod.ts";
import { syncPath, writeFileAtomic } from "../home.ts";

const VectorJson = z.lazy(() => z.object({ fingerprint: z.string(), data: z.string() }));

const EventJson = z.lazy(() =>
  z.object({
    id: z.string(),
    role: z.enum(["user", "agent", "cold_storage"]),
    source: z.string(),
    channel: z.string(),
    input: z.string().optional(),
    response: z.string().optional(),
    tools: z.array(z.object({ name: z.string(), output: z.string() })).optional(),
    turnIds: z.array(z.string()).optional(),
    exchange: z.string().optional(),
    timestamp: z.number(),
    noMemory: z.boolean().optional(),
    vector: VectorJson.optional(),
  })
);

const SnapshotJson = z.lazy(() =>
  z.object({
    version: z.literal(1),
    events: z.array(EventJson),
    seq: z.number().int().nonnegative().optional(),
    archiving: z.array(z.string()).optional(),
  })
);

const RecordJson = z.lazy(() =>
  z.discriminatedUnion("op", [
    z.object({ seq: z.number().int().positive(), op: z.literal("add"), event: EventJson }),
    z.object({
      seq: z.number().int().positive(),
      op: z.enum(["archive", "remove"]),
      ids: z.array(z.string()),
    }),
  ])
);

/**
 * Float32 bytes as base64: compact and exact. Natively: a window's snapshot encodes every
 * event's vector (~100 of 2 KB), which through a binary string and `btoa` took 6–20 ms of the
 * main thread (a recall under way waited for it), and ~0.3 ms so.
 */
export function encodeVector(vector: Float32Array): string {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength).toBase64();
}

/** The inverse of encodeVector; throws RangeError on a length that is not whole floats. */
export function decodeVector(data: string): Float32Array {
  const binary = atob(data);
  if (binary.length % 4 !== 0) throw new RangeError("Vector data is not a whole number of floats");
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

function toJson(event: ContextEvent): z.infer<typeof EventJson> {
  const { vector, ...rest } = event;
  return vector
    ? { ...rest, vector: { fingerprint: vector.fingerprint, data: encodeVector(vector.vector) } }
    : rest;
}

function fromJson(event: z.infer<typeof EventJson>): ContextEvent {
  const { vector, ...rest } = event;
  return vector
    ? { ...rest, vector: { fingerprint: vector.fingerprint, vector: decodeVector(vector.data) } }
    : rest;
}

/** What reading the journal found: its records and where its readable part ends. */
interface JournalRead {
  records: ContextRecord[];
  /** Complete lines that did not parse (real damage, not a cut-short write). */
  bad: { line: number; error: string }[];
  /** Bytes of a torn last line (no newline, does not parse); 0 when none. */
  tornBytes: number;
  /** Whether the file ends with a whole record but no newline. */
  unterminated: boolean;
  size: number;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function parseRecord(text: string): ContextRecord {
  const json = RecordJson.parse(JSON.parse(text));
  return json.op === "add" ? { ...json, event: fromJson(json.event) } : json;
}

/** Split the journal at newline bytes (never inside a UTF-8 character) and parse each line. */
function parseJournal(bytes: Uint8Array): JournalRead {
  const read: JournalRead = {
    records: [],
    bad: [],
    tornBytes: 0,
    unterminated: false,
    size: bytes.length,
  };
  let start = 0;
  for (let line = 1; start < bytes.length; line++) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    const text = decoder.decode(bytes.subarray(start, end)).trim();
    if (text !== "") {
      try {
        read.records.push(parseRecord(text));
        read.unterminated = newline === -1;
      } catch (error) {
        if (newline === -1) read.tornBytes = end - start;
        else read.bad.push({ line, error: errorMessage(error) });
      }
    }
    start = end + 1;
  }
  return read;
}

/** Options of a JsonContextStore. */
export interface JsonContextStoreOptions {
  /** The snapshot (memory/context.json). */
  path: string;
  /** The journal; default: the snapshot's path with `.journal` for `.json`. */
  journalPath?: string;
  logger: Logger;
}

/** A ContextStore on a JSON snapshot and a JSON-lines journal beside it. */
export class JsonContextStore implements ContextStore {
  #path: string;
  #journal: string;
  #logger: Logger;
  /** The journal's folder entry is known durable (the file existed, or was synced once). */
  #journalEntrySynced = false;
  /** A failed append may have left a partial line: the next one starts on a fresh line. */
  #startFresh = false;

  constructor(options: JsonContextStoreOptions) {
    this.#path = options.path;
    this.#journal = options.journalPath ?? options.path.replace(/(\.json)?$/, ".journal");
    this.#logger = options.logger;
  }

  /**
   * The snapshot and the journal after it. A corrupt snapshot is moved aside and reported; a
   * torn last journal line is reported and cut off, so the next append starts clean; damaged
   * lines inside the journal are reported, a copy of the file is kept, the rest is used.
   */
  async load(): Promise<StoredContext> {
    const snapshot = await this.#loadSnapshot();
    return { snapshot, journal: await this.#loadJournal() };
  }

  /** The same as load without repairing anything (for inspection while a daemon may run). */
  async read(): Promise<StoredContext> {
    const text = await readIfExists(this.#path);
    const snapshot = text === undefined ? undefined : parseSnapshot(text);
    const bytes = await readBytesIfExists(this.#journal);
    return { snapshot, journal: bytes ? parseJournal(bytes).records : [] };
  }

  /** Replace the snapshot atomically (temp file, fsync, rename), then empty the journal. */
  async save(snapshot: ContextSnapshot): Promise<void> {
    const json = {
      version: 1,
      seq: snapshot.seq ?? 0,
      archiving: snapshot.archiving ?? [],
      events: snapshot.events.map(toJson),
    };
    await writeFileAtomic(this.#path, JSON.stringify(json));
    // A crash before this truncate leaves records the snapshot holds: replay skips them by seq.
    try {
      await Deno.truncate(this.#journal, 0);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }

  /** Append records as JSON lines and fsync; resolves once they are durable. */
  async append(records: readonly ContextRecord[]): Promise<void> {
    if (records.length === 0) return;
    const lines = records.map((r) =>
      JSON.stringify(r.op === "add" ? { ...r, event: toJson(r.event) } : r)
    );
    const bytes = encoder.encode((this.#startFresh ? "\n" : "") + lines.join("\n") + "\n");
    const file = await Deno.open(this.#journal, { append: true, create: true, mode: 0o600 });
    try {
      let written = 0;
      while (written < bytes.length) written += await file.write(bytes.subarray(written));
      await file.syncData();
      this.#startFresh = false;
    } catch (error) {
      this.#startFresh = true;
      throw error;
    } finally {
      file.close();
    }
    if (!this.#journalEntrySynced) {
      await syncPath(dirname(this.#journal));
      this.#journalEntrySynced = true;
    }
  }

  async #loadSnapshot(): Promise<ContextSnapshot | undefined> {
    const text = await readIfExists(this.#path);
    if (text === undefined) return undefined;
    try {
      return parseSnapshot(text);
    } catch (error) {
      const aside = `${this.#path}.corrupt-${stamp()}`;
      await Deno.rename(this.#path, aside);
      this.#logger.error("The context window file is corrupt; moved it aside and started empty", {
        path: this.#path,
        movedTo: aside,
        error: errorMessage(error),
      });
      return undefined;
    }
  }

  async #loadJournal(): Promise<ContextRecord[]> {
    const bytes = await readBytesIfExists(this.#journal);
    if (bytes === undefined) return [];
    this.#journalEntrySynced = true;
    const read = parseJournal(bytes);
    if (read.bad.length > 0) {
      const copy = `${this.#journal}.corrupt-${stamp()}`;
      await Deno.copyFile(this.#journal, copy);
      this.#logger.error("The context journal has damaged lines; skipped them and kept a copy", {
        path: this.#journal,
        copy,
        lines: read.bad.map((b) => b.line),
        error: read.bad[0]!.error,
      });
    }
    if (read.tornBytes > 0) {
      this.#logger.warn("The context journal ends in a torn line (a write cut short); skipped it", {
        path: this.#journal,
        bytes: read.tornBytes,
      });
      await Deno.truncate(this.#journal, read.size - read.tornBytes);
    }
    this.#startFresh = read.unterminated;
    return read.records;
  }
}

function parseSnapshot(text: string): ContextSnapshot {
  const parsed = SnapshotJson.parse(JSON.parse(text));
  return {
    version: 1,
    seq: parsed.seq,
    archiving: parsed.archiving,
    events: parsed.events.map(fromJson),
  };
}

async function readIfExists(path: string): Promise<string | undefined> {
  const bytes = await readBytesIfExists(path);
  return bytes === undefined ? undefined : decoder.decode(bytes);
}

async function readBytesIfExists(path: string): Promise<Uint8Array | undefined> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

function stamp(): string {
  return new Date().toISOString().replaceAll(":", "-");
}
