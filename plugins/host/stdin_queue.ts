/**
 * The bounded queue of frames the kernel writes to one plugin's stdin. A plugin that stops
 * reading fills its pipe, and then every write waits in this queue; past the byte or frame
 * bound, or after the stall deadline with nothing taken, the owner is told to disconnect it
 * (instead of buffering for ever, which once grew the daemon by 1.3 GB in 15 s).
 */
import type { Clock, TimerHandle } from "../../core/mod.ts";
import { formatCount } from "./limits.ts";

const encoder = new TextEncoder();
/** Size of a pooled output buffer: frames up to a third of it (in UTF-16 units) fit. */
const POOLED_BYTES = 4096;
/** Pooled buffers kept per queue: the writes of a burst in flight at once. */
const POOL_SIZE = 4;

/** Options of a StdinQueue. */
export interface StdinQueueOptions {
  writer: WritableStreamDefaultWriter<Uint8Array>;
  clock: Clock;
  maxBytes: number;
  maxFrames: number;
  stallMs: number;
  /** The plugin does not keep up; called once, with the reason. The queue drops writes after. */
  onBlocked(reason: string): void;
}

/** Writes to a child's stdin with its bytes and frames in flight accounted and bounded. */
export class StdinQueue {
  #options: StdinQueueOptions;
  #bytes = 0;
  #frames = 0;
  /** Monotonic time the queue last moved (a write finished, or it went from empty to waiting). */
  #movedAt = 0;
  #timer: TimerHandle | undefined;
  #closed = false;
  #pool: Uint8Array[] = [];

  constructor(options: StdinQueueOptions) {
    this.#options = options;
  }

  /** Bytes written and not yet taken by the plugin. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Encode `text` (holding `frames` frames) and queue it, like write(). A small batch is
   * encoded into a buffer taken back once the pipe has it: a fresh ArrayBuffer per frame costs
   * more than encoding it.
   */
  writeText(text: string, frames: number): void {
    if (this.#closed) return;
    if (text.length * 3 > POOLED_BYTES) return this.write(encoder.encode(text), frames);
    const buffer = this.#pool.pop() ?? new Uint8Array(POOLED_BYTES);
    const bytes = buffer.subarray(0, encoder.encodeInto(text, buffer).written);
    this.write(bytes, frames, buffer);
  }

  /** Queue `bytes` (holding `frames` frames); dropped once closed or blocked. */
  write(bytes: Uint8Array, frames: number, pooled?: Uint8Array): void {
    if (this.#closed) return;
    const { clock, maxBytes, maxFrames } = this.#options;
    const size = bytes.length;
    if (this.#bytes > 0 && (this.#bytes + size > maxBytes || this.#frames + frames > maxFrames)) {
      return this.#block(
        `it stopped reading its input (${formatCount(this.#bytes)} bytes in ` +
          `${formatCount(this.#frames)} frames queued)`,
      );
    }
    if (this.#bytes === 0) this.#movedAt = clock.monotonic();
    this.#bytes += size;
    this.#frames += frames;
    // Armed once and left to fire: a timer per write costs more than the write.
    this.#timer ??= clock.setTimer(this.#options.stallMs, () => this.#check());
    this.#options.writer.write(bytes).then(() => {
      this.#bytes -= size;
      this.#frames -= frames;
      // An emptied queue is not stalled, and the next write restarts the count: the clock is
      // read only while something still waits (a read costs as much as the rest of the call).
      if (this.#bytes > 0) this.#movedAt = clock.monotonic();
      if (pooled && this.#pool.length < POOL_SIZE) this.#pool.push(pooled);
    }, () => {
      // A broken pipe: the child is gone, and its wait loop reports the exit.
    });
  }

  /** Stop accepting writes and cancel the stall timer. */
  close(): void {
    this.#closed = true;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  #check(): void {
    this.#timer = undefined;
    if (this.#closed || this.#bytes === 0) return;
    const { clock, stallMs } = this.#options;
    const still = clock.monotonic() - this.#movedAt;
    if (still < stallMs) {
      this.#timer = clock.setTimer(stallMs - still, () => this.#check());
      return;
    }
    this.#block(
      `it took nothing from its input for ${Math.round(still / 1000)} s ` +
        `(${formatCount(this.#bytes)} bytes queued)`,
    );
  }

  #block(reason: string): void {
    this.close();
    this.#options.onBlocked(reason);
  }
}
