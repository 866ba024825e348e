/**
 * The four ways a caller is told a chat was answered, each as a real client of a running
 * daemon: the web API with `?wait=1`, the web API's SSE `output` event, the CLI socket, and
 * the OpenAI-compatible endpoint with `remember` (plain fetch on its wire format). Each resolves with the reply once it is
 * acknowledged, and rejects when the daemon dies first.
 */
import { createParser } from "eventsource-parser";
import { CliClient } from "../../plugins/builtin/cli/client.ts";

/** A daemon as its clients see it. */
export interface DaemonAddress {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  token: string;
  socket: string;
}

/** An acknowledged reply. */
export interface Acknowledged {
  status: string;
  text: string;
}

/** The address from the URL line `serve` prints. */
export function daemonAddress(url: string, socket: string): DaemonAddress {
  const parsed = new URL(url);
  return { origin: parsed.origin, token: parsed.searchParams.get("token") ?? "", socket };
}

/** POST /api/v1/chat?wait=1: the HTTP response is the acknowledgement. */
export async function chatWeb(daemon: DaemonAddress, text: string): Promise<Acknowledged> {
  const response = await fetch(`${daemon.origin}/api/v1/chat?wait=1`, {
    method: "POST",
    headers: { authorization: `Bearer ${daemon.token}`, "content-type": "application/json" },
    body: JSON.stringify({ text }),
  });
  if (!response.ok) throw new Error(`chat answered ${response.status}: ${await response.text()}`);
  const body = await response.json() as { status: string; text: string };
  return { status: body.status, text: body.text };
}

/** The CLI socket: the `reply` frame is the acknowledgement. */
export async function chatCli(daemon: DaemonAddress, text: string): Promise<Acknowledged> {
  const client = await CliClient.connect(daemon.socket);
  try {
    await client.send({ type: "chat", text });
    const reply = await client.expect("reply");
    return { status: reply.status, text: reply.text };
  } finally {
    client.close();
  }
}

/** A `status` frame over the CLI socket: the daemon is up and serving. */
export async function statusCli(daemon: DaemonAddress): Promise<void> {
  const client = await CliClient.connect(daemon.socket);
  try {
    await client.send({ type: "status" });
    await client.expect("status");
  } finally {
    client.close();
  }
}

/** POST /v1/chat/completions (not streamed) with `"remember": true`: the response acknowledges. */
export async function chatOpenAI(daemon: DaemonAddress, text: string): Promise<Acknowledged> {
  const response = await fetch(`${daemon.origin}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${daemon.token}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "homeagent",
      messages: [{ role: "user", content: text }],
      remember: true,
    }),
  });
  if (!response.ok) throw new Error(`completions answered ${response.status}`);
  const body = await response.json() as { choices: { message: { content: string } }[] };
  return { status: "ok", text: body.choices[0]?.message.content ?? "" };
}

/**
 * One SSE subscription to /api/v1/chat/events; `chat` posts without waiting and resolves when
 * the stream carries the turn's `output` event.
 */
export class SseChats implements AsyncDisposable {
  #daemon: DaemonAddress;
  #abort = new AbortController();
  #waiting = new Map<string, PromiseWithResolvers<Acknowledged>>();
  #early = new Map<string, Acknowledged>();
  #done: Promise<void>;

  private constructor(daemon: DaemonAddress, body: ReadableStream<Uint8Array>) {
    this.#daemon = daemon;
    this.#done = this.#read(body);
  }

  /** Subscribe; resolves once the stream is open. */
  static async open(daemon: DaemonAddress): Promise<SseChats> {
    const abort = new AbortController();
    const response = await fetch(`${daemon.origin}/api/v1/chat/events`, {
      headers: { authorization: `Bearer ${daemon.token}` },
      signal: abort.signal,
    });
    if (!response.ok || !response.body) throw new Error(`SSE answered ${response.status}`);
    const sse = new SseChats(daemon, response.body);
    sse.#abort = abort;
    return sse;
  }

  /** POST /api/v1/chat (202), then wait for the `output` event of that turn. */
  async chat(text: string): Promise<Acknowledged> {
    const response = await fetch(`${this.#daemon.origin}/api/v1/chat`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${this.#daemon.token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ text }),
    });
    if (response.status !== 202) throw new Error(`chat answered ${response.status}`);
    const { turnId } = await response.json() as { turnId: string };
    const early = this.#early.get(turnId);
    if (early) return early;
    const waiting = Promise.withResolvers<Acknowledged>();
    this.#waiting.set(turnId, waiting);
    return await waiting.promise;
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<void> {
    const parser = createParser({
      onEvent: (event) => {
        if (event.event !== "output") return;
        const data = JSON.parse(event.data) as { turnId: string; status: string; text: string };
        const ack = { status: data.status, text: data.text };
        const waiting = this.#waiting.get(data.turnId);
        if (waiting) waiting.resolve(ack);
        else this.#early.set(data.turnId, ack);
        this.#waiting.delete(data.turnId);
      },
    });
    try {
      for await (const chunk of body.pipeThrough(new TextDecoderStream())) parser.feed(chunk);
    } catch {
      // the daemon was killed or we closed: every waiter is failed below
    }
    for (const waiting of this.#waiting.values()) {
      waiting.reject(new Error("The event stream ended before the reply"));
    }
    this.#waiting.clear();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#abort.abort();
    await this.#done;
  }
}
