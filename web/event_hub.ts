/**
 * The SSE fan-out: kernel events get ids and go into a replay ring and into one bounded queue
 * per connected client. Publishing only appends to arrays, so a slow client never blocks the
 * kernel; a client whose queue overflows loses it and is told `sync_required`.
 */
import type { Clock, KernelEvent, TimerHandle } from "../core/mod.ts";

/** Kernel events the page sees; `custom` events stay inside the daemon. */
const FORWARDED = new Set<string>([
  "input",
  "agent_llm_chain",
  "content_delta",
  "reasoning_delta",
  "tool_call",
  "stage",
  "output",
  "status",
  "notice",
  "preempted",
  "resumed",
  "provider_fallback",
  "plugin_crashed",
  "stage_breaker",
  "kernel_notice",
  "owner_question",
  "owner_answered",
  "web_message",
]);

/** The web plugin's own event: a message sent to the `web` output channel (not a reply). */
export interface WebMessageEvent {
  type: "web_message";
  text: string;
  /** The payload type the sender named (text, file, …). */
  kind: string;
  at: number;
}

/** What the hub carries: kernel events and the web plugin's own. */
export type HubEvent = KernelEvent | WebMessageEvent;

/** One message for a client: a numbered event, or the hub's own `sync_required` / `ping`. */
export interface HubMessage {
  /** Set on kernel events only. */
  id?: number;
  event: string;
  /** JSON text (one line). */
  data: string;
  /** The whole SSE frame. */
  frame: string;
  /** The frame as UTF-8, encoded once and shared by every client. */
  bytes: Uint8Array;
}

/** Options of an EventHub. */
export interface EventHubOptions {
  clock: Clock;
  /** Events kept for Last-Event-ID replay; default 200. */
  ringSize?: number;
  /** Messages one client may have waiting before it is dropped to sync_required; default 1000. */
  clientBuffer?: number;
  /** Heartbeat period; default 15 000 ms. */
  heartbeatMs?: number;
}

/** A connected client; `next()` and `drain()` resolve undefined once it is closed. */
export class HubClient {
  #queue: HubMessage[] = [];
  #waiter?: () => void;
  #closed = false;
  #limit: number;
  #onClose: (client: HubClient) => void;
  /** Times this client overflowed. */
  dropped = 0;

  constructor(limit: number, onClose: (client: HubClient) => void) {
    this.#limit = limit;
    this.#onClose = onClose;
  }

  /** Messages waiting. */
  get buffered(): number {
    return this.#queue.length;
  }

  /** Queue a message; on overflow the queue is replaced by one sync_required. */
  push(message: HubMessage, lastId: number): void {
    if (this.#closed) return;
    if (this.#queue.length >= this.#limit) {
      this.dropped++;
      this.#queue = [syncRequired(lastId, "slow_client")];
    } else {
      this.#queue.push(message);
    }
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  /** The next message, waiting for one; undefined after close(). */
  async next(): Promise<HubMessage | undefined> {
    if (!(await this.#ready())) return undefined;
    return this.#queue.shift();
  }

  /** Every waiting message at once (one network write for a burst); undefined after close(). */
  async drain(): Promise<HubMessage[] | undefined> {
    if (!(await this.#ready())) return undefined;
    const all = this.#queue;
    this.#queue = [];
    return all;
  }

  /** Disconnect: pending reads resolve undefined and the hub forgets the client. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = [];
    this.#waiter?.();
    this.#waiter = undefined;
    this.#onClose(this);
  }

  async #ready(): Promise<boolean> {
    while (this.#queue.length === 0 && !this.#closed) {
      await new Promise<void>((resolve) => this.#waiter = resolve);
    }
    return this.#queue.length > 0;
  }
}

/** The SSE text of a message, made once per event and shared by every client. */
export function sseFrame(message: Omit<HubMessage, "frame" | "bytes">): string {
  const id = message.id === undefined ? "" : `id: ${message.id}\n`;
  return `event: ${message.event}\n${id}data: ${message.data}\n\n`;
}

const encoder = new TextEncoder();

function message(event: string, data: string, id?: number): HubMessage {
  const base = { event, data, ...(id !== undefined ? { id } : {}) };
  const frame = sseFrame(base);
  return { ...base, frame, bytes: encoder.encode(frame) };
}

function syncRequired(lastId: number, reason: string): HubMessage {
  return message("sync_required", JSON.stringify({ lastId, reason }));
}

/** Numbers kernel events, keeps the replay ring and fans out to clients. */
export class EventHub {
  #ring: HubMessage[] = [];
  #lastId = 0;
  #clients = new Set<HubClient>();
  #clock: Clock;
  #ringSize: number;
  #clientBuffer: number;
  #heartbeatMs: number;
  #timer?: TimerHandle;

  constructor(options: EventHubOptions) {
    this.#clock = options.clock;
    this.#ringSize = options.ringSize ?? 200;
    this.#clientBuffer = options.clientBuffer ?? 1000;
    this.#heartbeatMs = options.heartbeatMs ?? 15_000;
  }

  /** Id of the newest event (0 before any). */
  get lastId(): number {
    return this.#lastId;
  }

  /** Connected clients. */
  get clients(): number {
    return this.#clients.size;
  }

  /** Take one event (the EventBus subscriber). Never throws, never waits. */
  publish(event: HubEvent): void {
    if (!FORWARDED.has(event.type)) return;
    const numbered = message(event.type, JSON.stringify(event), ++this.#lastId);
    this.#ring.push(numbered);
    if (this.#ring.length > this.#ringSize) this.#ring.shift();
    for (const client of this.#clients) client.push(numbered, this.#lastId);
  }

  /**
   * Connect a client. With `lastEventId`, the events after it are replayed from the ring, or
   * the client first gets `sync_required` when that id has fallen out (or is unknown).
   */
  connect(lastEventId?: string | null): HubClient {
    const client = new HubClient(this.#clientBuffer, (c) => this.#disconnect(c));
    if (lastEventId !== undefined && lastEventId !== null && lastEventId !== "") {
      const after = Number(lastEventId);
      const oldest = this.#ring[0]?.id ?? this.#lastId + 1;
      if (!Number.isInteger(after) || after > this.#lastId || after < oldest - 1) {
        client.push(syncRequired(this.#lastId, "replay_gap"), this.#lastId);
      } else {
        for (const old of this.#ring) {
          if (old.id! > after) client.push(old, this.#lastId);
        }
      }
    }
    this.#clients.add(client);
    if (!this.#timer) this.#schedule();
    return client;
  }

  /** Disconnect every client and stop the heartbeat. */
  close(): void {
    for (const client of [...this.#clients]) client.close();
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  #disconnect(client: HubClient): void {
    this.#clients.delete(client);
    if (this.#clients.size === 0) {
      this.#timer?.cancel();
      this.#timer = undefined;
    }
  }

  /** The heartbeat runs only while someone listens, so an idle hub holds no timer. */
  #schedule(): void {
    this.#timer = this.#clock.setTimer(this.#heartbeatMs, () => {
      this.#timer = undefined;
      const ping = message("ping", JSON.stringify({ t: this.#clock.now() }));
      for (const client of this.#clients) client.push(ping, this.#lastId);
      if (this.#clients.size > 0) this.#schedule();
    });
  }
}

/** Concatenate the frames of a batch into one chunk. */
export function batchBytes(batch: readonly HubMessage[]): Uint8Array {
  if (batch.length === 1) return batch[0]!.bytes;
  const out = new Uint8Array(batch.reduce((n, m) => n + m.bytes.length, 0));
  let at = 0;
  for (const m of batch) {
    out.set(m.bytes, at);
    at += m.bytes.length;
  }
  return out;
}

/**
 * The SSE body for `client`: a `hello` frame (with the reconnect delay), then its messages, a
 * burst as one chunk. Pulled by the server as the socket drains; cancelling closes the client.
 */
export function sseBody(client: HubClient, hello: unknown): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(
        encoder.encode(`event: hello\ndata: ${JSON.stringify(hello)}\nretry: 2000\n\n`),
      );
    },
    async pull(controller) {
      const batch = await client.drain();
      if (batch === undefined) controller.close();
      else controller.enqueue(batchBytes(batch));
    },
    cancel() {
      client.close();
    },
  }, { highWaterMark: 0 });
}
