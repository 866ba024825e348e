/** The client side of the CLI socket: what `homeagent chat`, `stop` and `status` use. */
import { HomeAgentError } from "../../../core/mod.ts";
import { dirname } from "node:path";
import { PROGRAM, shellQuote } from "./command_name.ts";
import type { DaemonIndex } from "./daemon_index.ts";
import { readLines, type ServerFrame } from "./protocol.ts";
import type { ClientFrame } from "./protocol.ts";

const encoder = new TextEncoder();

/** Which daemon a command talks to, and what to tell the person when none answers. */
export interface DaemonTarget {
  home: string;
  /** `<home>/run/homed.sock`. */
  socket: string;
  /** The command prefix advice names (`homeagent`, `deno task homeagent`, …). */
  command: string;
  /** The user's running daemons, asked when `home` has none. */
  index?: DaemonIndex;
}

/** A connection to a running daemon. */
export class CliClient {
  #conn: Deno.UnixConn;
  #frames: AsyncGenerator<string>;

  private constructor(conn: Deno.UnixConn) {
    this.#conn = conn;
    this.#frames = readLines(conn.readable);
  }

  /**
   * Connect to the daemon of a home (or at a socket path). None there rejects with HomeAgentError
   * `no_daemon`, whose message says how to start one, or which home a running daemon serves.
   */
  static async connect(to: DaemonTarget | string): Promise<CliClient> {
    // A bare socket path (tests, tools): its home is two folders up (`<home>/run/homed.sock`).
    const target = typeof to === "string"
      ? { home: dirname(dirname(to)), socket: to, command: PROGRAM }
      : to;
    try {
      return new CliClient(await Deno.connect({ transport: "unix", path: target.socket }));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.ConnectionRefused) {
        throw await noDaemon(target, error);
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

  /**
   * Copy `input` to the daemon and the daemon's bytes to `output`, unchanged, until the daemon
   * closes the connection (`homeagent mcp` after its mcp frame). The end of `input` closes the
   * write half, so the daemon sees the client finish. Call before any next().
   */
  async relay(
    input: ReadableStream<Uint8Array>,
    output: WritableStream<Uint8Array>,
  ): Promise<void> {
    const conn = this.#conn;
    const up = (async () => {
      for await (const chunk of input) {
        let written = 0;
        while (written < chunk.length) written += await conn.write(chunk.subarray(written));
      }
      await conn.closeWrite();
    })().catch(() => {}); // the daemon went away: the read side ends below
    await conn.readable.pipeTo(output, { preventClose: true });
    void up;
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
  ask?: (question: Extract<ServerFrame, { type: "question" }>) => boolean | undefined,
  images: readonly string[] = [],
): Promise<Extract<ServerFrame, { type: "reply" }>> {
  await client.send({ type: "chat", text, ...(images.length > 0 ? { images: [...images] } : {}) });
  let streamed = false;
  const reply = await client.expect("reply", (frame) => {
    if (frame.type === "question") {
      out.write(`\n[${frame.plugin} asks] ${frame.title}\n${frame.detail}\n`);
      const approve = ask?.(frame);
      if (approve === undefined) out.write("Answer it in the web page or in `homeagent chat`.\n");
      else void client.send({ type: "answer", id: frame.id, approve }).catch(() => {});
      return;
    }
    if (frame.type === "answered") return;
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

async function noDaemon(target: DaemonTarget, cause: unknown): Promise<HomeAgentError> {
  const others = (await target.index?.running() ?? []).filter((d) => d.home !== target.home);
  const here = `No HomeAgent daemon is running for home "${target.home}"`;
  if (others.length === 0) {
    return new HomeAgentError(
      "no_daemon",
      `${here} (no socket at "${target.socket}"); start one with \`${target.command} serve\`, ` +
        "or, if one runs with another --home or HOMEAGENT_HOME, pass that same home here",
      { cause },
    );
  }
  const homes = others.map((d) => `"${d.home}" (pid ${d.pid})`).join(", ");
  const home = shellQuote(others[0]!.home);
  return new HomeAgentError(
    "no_daemon",
    `${here}, but one is running for ${homes}: was it started with --home ${home}? ` +
      `Pass --home ${home} here, or export HOMEAGENT_HOME=${home} in this terminal`,
    { cause },
  );
}
