/** The reader of a response body: one reused buffer where the stream allows it. */

/** Size of the one buffer a body is read into. */
const READ_BUFFER_BYTES = 65_536;

/**
 * Reads a body into one reused buffer where the stream allows it (fetch bodies are byte
 * streams), else with a default reader. A default reader gets a fresh 64 KiB chunk for every
 * network read, so a stream that arrives in small reads spent most of its time collecting
 * garbage. A chunk read here is valid until the next read: decode it first.
 */
export class BodyReader {
  #byob?: ReadableStreamBYOBReader;
  #plain?: ReadableStreamDefaultReader<Uint8Array>;
  #buffer = new ArrayBuffer(0);

  constructor(body: ReadableStream<Uint8Array>) {
    try {
      this.#byob = body.getReader({ mode: "byob" });
      this.#buffer = new ArrayBuffer(READ_BUFFER_BYTES);
    } catch {
      this.#plain = body.getReader(); // not a byte stream (a Response built from a string)
    }
  }

  async read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    if (!this.#byob) return await this.#plain!.read();
    const result = await this.#byob.read(new Uint8Array(this.#buffer));
    if (result.value) this.#buffer = result.value.buffer as ArrayBuffer;
    return result as ReadableStreamReadResult<Uint8Array>;
  }

  cancel(): Promise<void> {
    return (this.#byob ?? this.#plain!).cancel();
  }

  releaseLock(): void {
    (this.#byob ?? this.#plain!).releaseLock();
  }
}
