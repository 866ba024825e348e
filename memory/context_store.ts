/** memory/context.json: the working window on disk, written atomically, validated on read. */
import { z } from "zod";
import type { ContextEvent, ContextSnapshot, ContextStore, Logger } from "../core/mod.ts";
import { errorMessage } from "../core/mod.ts";
import { writeFileAtomic } from "./home.ts";

const VectorJson = z.object({ fingerprint: z.string(), data: z.string() });

const EventJson = z.object({
  id: z.string(),
  role: z.enum(["user", "agent", "cold_storage"]),
  source: z.string(),
  channel: z.string(),
  input: z.string().optional(),
  response: z.string().optional(),
  tools: z.array(z.object({ name: z.string(), output: z.string() })).optional(),
  turnIds: z.array(z.string()).optional(),
  timestamp: z.number(),
  vector: VectorJson.optional(),
});

const SnapshotJson = z.object({ version: z.literal(1), events: z.array(EventJson) });

/** Float32 bytes as base64: compact and exact. */
export function encodeVector(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
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

/** A ContextStore on one JSON file. */
export class JsonContextStore implements ContextStore {
  #path: string;
  #logger: Logger;

  constructor(options: { path: string; logger: Logger }) {
    this.#path = options.path;
    this.#logger = options.logger;
  }

  /** The saved window; a missing file is undefined, a corrupt one is moved aside and reported. */
  async load(): Promise<ContextSnapshot | undefined> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.#path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
    try {
      const parsed = SnapshotJson.parse(JSON.parse(text));
      return { version: 1, events: parsed.events.map(fromJson) };
    } catch (error) {
      const aside = `${this.#path}.corrupt-${new Date().toISOString().replaceAll(":", "-")}`;
      await Deno.rename(this.#path, aside);
      this.#logger.error("The context window file is corrupt; moved it aside and started empty", {
        path: this.#path,
        movedTo: aside,
        error: errorMessage(error),
      });
      return undefined;
    }
  }

  /** Replace the file atomically (temp file, fsync, rename). */
  async save(snapshot: ContextSnapshot): Promise<void> {
    const json = { version: 1, events: snapshot.events.map(toJson) };
    await writeFileAtomic(this.#path, JSON.stringify(json));
  }
}
