/**
 * A raw TCP server that sends a response exactly as framed (_framings.ts).
 *
 * Deno.serve chooses the transfer encoding and coalesces writes itself, so it cannot show a
 * client a body cut at a byte of our choosing. This server writes the status line, headers
 * and body pieces itself: one piece per write, as chunked transfer encoding (one chunk per
 * piece), with a Content-Length, or delimited by closing the connection. Connections stay
 * open between responses except after a close-delimited one, so a client's pooled
 * connection is reused as with a real server.
 *
 * ```ts
 * await using server = startFramingServer();
 * server.enqueue({ status: 200, contentType: "text/event-stream", pieces, transfer: "close" });
 * // ... the client under test calls server.url ...
 * server.requests[0].path;
 * ```
 */
import { parseRequestHead } from "../../fixtures/fake_http.ts";
import type { Transfer } from "./_framings.ts";

/** One response the server sends. */
export interface FramedResponse {
  status: number;
  contentType: string;
  pieces: readonly Uint8Array[];
  transfer: Transfer;
}

/** A request as the server received it. */
export interface FramedRequest {
  method: string;
  /** Path with query. */
  path: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: string;
}

/** A running framing server. */
export interface FramingServer {
  readonly url: string;
  readonly requests: readonly FramedRequest[];
  /** Queue responses, one per incoming request, in order. */
  enqueue(...responses: FramedResponse[]): void;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Start a framing server on a free port of 127.0.0.1. */
export function startFramingServer(): FramingServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const queue: FramedResponse[] = [];
  const requests: FramedRequest[] = [];
  const conns = new Set<Deno.Conn>();
  const tasks = new Set<Promise<void>>();
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        conns.add(conn);
        const task = serve(conn, queue, requests).finally(() => {
          conns.delete(conn);
          closeQuietly(conn);
        });
        tasks.add(task);
        task.finally(() => tasks.delete(task));
      }
    } catch {
      // listener closed
    }
  })();
  const close = async () => {
    closeQuietly(listener);
    await accepting;
    for (const conn of conns) closeQuietly(conn);
    while (tasks.size > 0) await Promise.allSettled([...tasks]);
  };
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    requests,
    enqueue: (...responses) => void queue.push(...responses),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Serve requests on one connection until a response is delimited by closing it. */
async function serve(
  conn: Deno.Conn,
  queue: FramedResponse[],
  requests: FramedRequest[],
): Promise<void> {
  (conn as Deno.TcpConn).setNoDelay(true);
  const reader = new RequestReader(conn);
  for (;;) {
    const request = await reader.next();
    if (!request) return;
    requests.push(request);
    const response = queue.shift() ?? {
      status: 500,
      contentType: "text/plain",
      pieces: [encoder.encode("The framing server has no response queued")],
      transfer: "close",
    };
    try {
      await writeResponse(conn, response);
    } catch {
      return; // the client hung up early (it may stop reading after an error or `[DONE]`)
    }
    if (response.transfer === "close") return;
  }
}

async function writeResponse(conn: Deno.Conn, response: FramedResponse): Promise<void> {
  const size = response.pieces.reduce((n, piece) => n + piece.length, 0);
  const framing = response.transfer === "chunked"
    ? "transfer-encoding: chunked\r\n"
    : response.transfer === "length"
    ? `content-length: ${size}\r\n`
    : "";
  await writeAll(
    conn,
    encoder.encode(
      `HTTP/1.1 ${response.status} ${response.status < 400 ? "OK" : "Error"}\r\n` +
        `content-type: ${response.contentType}\r\n${framing}` +
        (response.transfer === "close" ? "connection: close\r\n\r\n" : "\r\n"),
    ),
  );
  for (const piece of response.pieces) {
    if (piece.length === 0) continue;
    await writeAll(
      conn,
      response.transfer === "chunked" ? chunkFrame(piece) : piece,
    );
  }
  if (response.transfer === "chunked") await writeAll(conn, encoder.encode("0\r\n\r\n"));
}

function chunkFrame(piece: Uint8Array): Uint8Array {
  const head = encoder.encode(`${piece.length.toString(16)}\r\n`);
  const frame = new Uint8Array(head.length + piece.length + 2);
  frame.set(head);
  frame.set(piece, head.length);
  frame.set([13, 10], head.length + piece.length);
  return frame;
}

/** Reads requests one after another from a kept-alive connection. */
class RequestReader {
  #conn: Deno.Conn;
  #buffer = new Uint8Array(0);

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /** The next request (head, then a Content-Length or chunked body); undefined at EOF. */
  async next(): Promise<FramedRequest | undefined> {
    let headEnd: number;
    while ((headEnd = indexOf(this.#buffer, HEAD_END)) < 0) {
      if (!(await this.#more())) return undefined;
    }
    const { method, path, headers } = parseRequestHead(
      decoder.decode(this.#buffer.subarray(0, headEnd)),
    );
    const bodyStart = headEnd + HEAD_END.length;
    let body: Uint8Array;
    let end: number;
    if (headers["transfer-encoding"]?.includes("chunked")) {
      let last: number;
      while ((last = indexOf(this.#buffer.subarray(bodyStart), LAST_CHUNK)) < 0) {
        if (!(await this.#more())) return undefined;
      }
      end = bodyStart + last + LAST_CHUNK.length;
      body = dechunk(this.#buffer.subarray(bodyStart, end));
    } else {
      end = bodyStart + Number(headers["content-length"] ?? 0);
      while (this.#buffer.length < end) if (!(await this.#more())) return undefined;
      body = this.#buffer.subarray(bodyStart, end);
    }
    const request = { method, path, headers, body: decoder.decode(body) };
    this.#buffer = this.#buffer.slice(end);
    return request;
  }

  async #more(): Promise<boolean> {
    const chunk = new Uint8Array(16384);
    const n = await this.#conn.read(chunk).catch(() => null);
    if (n === null) return false;
    const next = new Uint8Array(this.#buffer.length + n);
    next.set(this.#buffer);
    next.set(chunk.subarray(0, n), this.#buffer.length);
    this.#buffer = next;
    return true;
  }
}

const HEAD_END = encoder.encode("\r\n\r\n");
const LAST_CHUNK = encoder.encode("0\r\n\r\n");
const CRLF = encoder.encode("\r\n");

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function dechunk(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  for (let at = 0;;) {
    const eol = at + indexOf(bytes.subarray(at), CRLF);
    const size = parseInt(decoder.decode(bytes.subarray(at, eol)), 16);
    if (!(size > 0)) break;
    parts.push(bytes.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let written = 0; written < bytes.length;) {
    written += await conn.write(bytes.subarray(written));
  }
}

function closeQuietly(closer: { close(): void }): void {
  try {
    closer.close();
  } catch {
    // already closed
  }
}
