/** The client side of the CLI socket: what `homeagent chat`, `stop` and `status` use. */
import { readLines, type ServerFrame } from "./protocol.ts";
import type { ClientFrame } from "./protocol.ts";

const encoder = new TextEncoder();

/** A connection to a running daemon. */
export class CliClient {
  #conn: Deno.UnixConn;
  #frames: AsyncGenerator<string>;

  private constructor(conn: Deno.UnixConn) {
    this.#conn = conn;
    this.#frames = readLines(conn.readable);
  }

  /** Connect to the daemon's socket; a missing or dead socket becomes a clear error. */
  static async connect(socketPath: string): Promise<CliClient> {
    try {
      return new CliClient(await Deno.connect({ transport: "unix", path: socketPath }));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.ConnectionRefused) {
        throw new Error(
          `No HomeAgent daemon is running (no socket at "${socketPath}"); start one with \`homeagent serve\``,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /** Send one frame. */
  async send(frame: ClientFrame): Promise<void> {
    const bytes = encoder.encode(JSON.stringify(frame) + "\n");
    let written = 0;
    while (written < bytes.length) written += await this.#conn.write(bytes.subarray(written));
  }

  /** The next frame from the daemon, or undefined when it closed the connection. */
  async next(): Promise<ServerFrame | undefined> {
    const { value, done } = await this.#frames.next();
    return done ? undefined : JSON.parse(value) as ServerFrame;
  }

  /** Wait for the first frame of `type`, passing every other frame to `onOther`. */
  async expect<T extends ServerFrame["type"]>(
    type: T,
    onOther?: (frame: ServerFrame) => void,
  ): Promise<Extract<ServerFrame, { type: T }>> {
    for (;;) {
      const frame = await this.next();
      if (!frame) throw new Error("The daemon closed the connection");
      if (frame.type === type) return frame as Extract<ServerFrame, { type: T }>;
      if (frame.type === "error") throw new Error(frame.message);
      onOther?.(frame);
    }
  }

  /** Close the connection. */
  close(): void {
    try {
      this.#conn.close();
    } catch {
      // already closed
    }
  }
}

/** How a chat reply is shown: streamed deltas, then the final reply. */
export interface ChatPrinter {
  write(text: string): void;
  error(text: string): void;
}

/**
 * Send `text` and stream the answer to `out`. Returns the reply frame. Other frames (messages
 * sent to the cli channel by the model) are printed as they come.
 */
export async function chatOnce(
  client: CliClient,
  text: string,
  out: ChatPrinter,
): Promise<Extract<ServerFrame, { type: "reply" }>> {
  await client.send({ type: "chat", text });
  let streamed = false;
  const reply = await client.expect("reply", (frame) => {
    if (frame.type === "delta") {
      if (frame.reset && streamed) out.write("\n[source changed; reply restarted]\n");
      if (frame.text !== "") {
        out.write(frame.text);
        streamed = true;
      }
    } else if (frame.type === "tool" && frame.phase === "start") {
      out.error(`[tool ${frame.name}]\n`);
    } else if (frame.type === "message") {
      out.write(`\n${frame.text}\n`);
    }
  });
  if (reply.status === "ok" || reply.status === "short_circuit") {
    if (!streamed) out.write(reply.text);
    out.write("\n");
  } else if (reply.status === "stopped") {
    out.write(streamed ? "\n[stopped]\n" : "[stopped]\n");
  } else {
    if (streamed) out.write("\n");
    out.error(`${reply.text}\n`);
  }
  return reply;
}
