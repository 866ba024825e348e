/** The CLI channel: a built-in plugin serving the chat protocol on the home's Unix socket. */
import { Cap, type Plugin, type PluginSDK } from "../../../core/mod.ts";
import { checkMediaCount, errorMessage, type MediaRef } from "../../../core/mod.ts";
import { isAbsolute } from "node:path";
import type { DaemonIndex } from "./daemon_index.ts";
import { ClientFrame, readLines, type ServerFrame } from "./protocol.ts";

/** Options of the CLI plugin. */
export interface CliPluginOptions {
  socketPath: string;
  /** The full status report (`homeagent status`), assembled by the composition root. */
  statusReport: () => unknown;
  /** Plugin management for `homeagent plugin …`; absent: plugin frames are refused. */
  plugins?: CliPluginControl;
  /** `memory import` into the daemon's own stores; absent: memory frames are refused. */
  memory?: CliMemoryControl;
  /** Serves `homeagent mcp` sessions; absent: mcp frames are refused. */
  mcp?: CliMcpServe;
  /** Where this daemon is announced while it runs, so commands for another home can point here. */
  index?: { home: string; directory: DaemonIndex };
}

/**
 * One MCP session over the socket: `send` writes a line to the client; the server sets
 * `onLine` (each line from the client) and `onClose` (the client went away).
 */
export interface CliLineChannel {
  send(line: string): void;
  close(): void;
  onLine?: (line: string) => void;
  onClose?: () => void;
}

/** Starts serving MCP on a channel. */
export type CliMcpServe = (channel: CliLineChannel) => void;

/** What the CLI socket's memory frames call. Methods reject with a clear message. */
export interface CliMemoryControl {
  /** Import the export file at `path` (absolute); resolves with the counts. */
  import(path: string): Promise<unknown>;
  /** Forget `name` in every tier; resolves with the report. */
  forget?(name: string): Promise<unknown>;
}

/** What the CLI socket's plugin frames call (the plugin Registry). Methods reject with a clear message. */
export interface CliPluginControl {
  list(): unknown;
  install(path: string): Promise<unknown>;
  uninstall(name: string): Promise<unknown>;
  reload(name: string): Promise<unknown>;
  enable(name: string): Promise<unknown>;
  disable(name: string): Promise<unknown>;
  /** Install the skill package `source`, refusing anything but the reviewed `integrity`. */
  installSkills?(source: string, integrity?: string): Promise<unknown>;
}

const encoder = new TextEncoder();

/** One client connection: frames are written in order, and a dead peer is tolerated. */
class Connection {
  #conn: Deno.Conn;
  #queue: Promise<void> = Promise.resolve();
  closed = false;

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  send(frame: ServerFrame): void {
    this.sendLine(JSON.stringify(frame));
  }

  /** Write one line (a frame, or an MCP message in an mcp session). */
  sendLine(line: string): void {
    if (this.closed) return;
    const bytes = encoder.encode(line + "\n");
    this.#queue = this.#queue.then(async () => {
      if (this.closed) return;
      let written = 0;
      while (written < bytes.length) written += await this.#conn.write(bytes.subarray(written));
    }).catch(() => {
      this.closed = true; // the client went away; its turn still runs to its end
    });
  }

  async close(): Promise<void> {
    await this.#queue;
    if (this.closed) return;
    this.closed = true;
    try {
      this.#conn.close();
    } catch {
      // already closed by the peer
    }
  }
}

/** Create the CLI plugin. */
export function createCliPlugin(options: CliPluginOptions): Plugin {
  let listener: Deno.Listener | undefined;
  const connections = new Set<Connection>();
  const handlers = new Set<Promise<void>>();
  let accepting: Promise<void> | undefined;
  let unannounce: (() => Promise<void>) | undefined;

  const serve = async (conn: Deno.Conn, sdk: PluginSDK) => {
    const client = new Connection(conn);
    connections.add(client);
    let mcp: CliLineChannel | undefined;
    try {
      for await (const line of readLines(conn.readable)) {
        if (mcp) {
          mcp.onLine?.(line);
          continue;
        }
        let frame: ClientFrame;
        try {
          frame = ClientFrame.parse(JSON.parse(line));
        } catch (error) {
          client.send({ type: "error", message: `Bad frame: ${errorMessage(error)}` });
          continue;
        }
        if (frame.type === "mcp") mcp = openMcp(client, options.mcp);
        else handleFrame(frame, client, sdk, options);
      }
    } catch (error) {
      if (!client.closed) sdk.logger.debug("CLI connection ended", { error: errorMessage(error) });
    } finally {
      mcp?.onClose?.();
      connections.delete(client);
      await client.close();
    }
  };

  return {
    name: "cli",
    async start(sdk) {
      listener = Deno.listen({ transport: "unix", path: options.socketPath });
      sdk.registerOutputChannel(
        "cli",
        Cap.text,
        "the owner's terminal (homeagent chat)",
        (message) => {
          for (const c of connections) c.send({ type: "message", text: message.payload });
        },
      );
      // Questions for the owner reach every terminal; the first answer wins.
      sdk.subscribe("owner_question", ({ question: q }) => {
        for (const c of connections) {
          c.send({
            type: "question",
            id: q.id,
            plugin: q.plugin,
            title: q.title,
            detail: q.detail,
          });
        }
      });
      sdk.subscribe("owner_answered", (e) => {
        for (const c of connections) c.send({ type: "answered", id: e.id, answer: e.answer });
      });
      const l = listener;
      accepting = (async () => {
        try {
          for await (const conn of l) {
            const handler = serve(conn, sdk);
            handlers.add(handler);
            handler.finally(() => handlers.delete(handler));
          }
        } catch (error) {
          if (!(error instanceof Deno.errors.BadResource)) {
            sdk.logger.error("CLI socket failed", { error: errorMessage(error) });
          }
        }
      })();
      sdk.logger.info("CLI socket listening", { path: options.socketPath });
      if (options.index) {
        const { home, directory } = options.index;
        unannounce = await directory.add({ home, pid: Deno.pid, socket: options.socketPath });
      }
    },
    async stop() {
      await unannounce?.();
      listener?.close();
      await accepting;
      for (const c of connections) await c.close();
      await Promise.allSettled([...handlers]);
      try {
        await Deno.remove(options.socketPath);
      } catch {
        // already gone
      }
    },
  };
}

/** Switch `client` to an MCP session, or refuse when this daemon serves none. */
function openMcp(client: Connection, serve: CliMcpServe | undefined): CliLineChannel | undefined {
  if (!serve) {
    client.send({ type: "error", message: "This daemon does not serve MCP" });
    return undefined;
  }
  const channel: CliLineChannel = {
    send: (line) => client.sendLine(line),
    close: () => void client.close(),
  };
  serve(channel);
  return channel;
}

function handleFrame(
  frame: Exclude<ClientFrame, { type: "mcp" }>,
  client: Connection,
  sdk: PluginSDK,
  options: CliPluginOptions,
): void {
  switch (frame.type) {
    case "status":
      client.send({ type: "status", status: options.statusReport() });
      return;
    case "stop":
      client.send({ type: "stopped", ...sdk.stop() });
      return;
    case "answer":
      if (!sdk.questions.answer(frame.id, frame.approve)) {
        client.send({ type: "error", message: `No question "${frame.id}" is waiting` });
      }
      return;
    case "plugin":
      void pluginFrame(frame, client, options.plugins);
      return;
    case "memory":
      void memoryFrame(frame, client, options.memory);
      return;
    case "chat":
      void chatFrame(frame, client, sdk);
      return;
  }
}

/** A chat frame: its images stored first (a refusal is an error frame), then the input. */
async function chatFrame(
  frame: Extract<ClientFrame, { type: "chat" }>,
  client: Connection,
  sdk: PluginSDK,
): Promise<void> {
  let media: MediaRef[];
  try {
    media = await readImages(frame.images ?? [], sdk);
  } catch (error) {
    client.send({ type: "error", message: errorMessage(error) });
    return;
  }
  let inputId = "";
  const offs: (() => void)[] = [];
  const mine = (turnId: string) => turnId === inputId;
  offs.push(sdk.subscribe("content_delta", (e) => {
    if (mine(e.turnId)) client.send({ type: "delta", text: e.text, reset: e.reset });
  }));
  offs.push(sdk.subscribe("reasoning_delta", (e) => {
    if (mine(e.turnId)) client.send({ type: "reasoning", text: e.text, reset: e.reset });
  }));
  offs.push(sdk.subscribe("tool_call", (e) => {
    if (mine(e.turnId)) {
      client.send({ type: "tool", name: e.call.name, phase: e.phase, ok: e.ok });
    }
  }));
  const result = sdk.injectInput(frame.text, {
    channel: "cli",
    ...(media.length > 0 ? { media } : {}),
    onReply: (reply) => {
      for (const off of offs) off();
      client.send({
        type: "reply",
        inputId: reply.inputId,
        text: reply.text,
        status: reply.status,
      });
    },
  });
  inputId = result.inputId;
  if (result.accepted) client.send({ type: "accepted", inputId });
}

/**
 * The owner's image files, read by the daemon (the socket is the owner's alone) and stored:
 * each must be an absolute path to a regular file within the media size limit.
 */
async function readImages(paths: readonly string[], sdk: PluginSDK): Promise<MediaRef[]> {
  if (paths.length === 0) return [];
  const limits = sdk.mediaLimits;
  if (!limits) {
    throw new Error("Images are not kept: media memory is off (core.memory.media.enabled)");
  }
  checkMediaCount(paths.length, limits);
  const refs: MediaRef[] = [];
  for (const path of paths) {
    if (!isAbsolute(path)) throw new Error(`Cannot read image "${path}": the path is not absolute`);
    const info = await Deno.stat(path).catch((error) => {
      throw new Error(`Cannot read image "${path}": ${errorMessage(error)}`);
    });
    if (!info.isFile) throw new Error(`Cannot read image "${path}": not a file`);
    if (info.size > limits.maxBytes) {
      throw new Error(
        `Refused image "${path}": ${info.size} bytes, more than the ${limits.maxBytes} allowed`,
      );
    }
    refs.push(await sdk.storeMedia(await Deno.readFile(path)));
  }
  return refs;
}

async function pluginFrame(
  frame: Extract<ClientFrame, { type: "plugin" }>,
  client: Connection,
  control: CliPluginControl | undefined,
): Promise<void> {
  try {
    if (!control) throw new Error("This daemon does not manage plugins");
    const { action } = frame;
    let result: unknown;
    if (action === "list") result = control.list();
    else if (action === "install" && frame.source !== undefined) {
      if (!control.installSkills) throw new Error("This daemon does not install skill packages");
      result = await control.installSkills(frame.source, frame.integrity);
    } else if (action === "install") {
      if (!frame.path) throw new Error("install needs a path");
      result = await control.install(frame.path);
    } else {
      if (!frame.name) throw new Error(`${action} needs a plugin name`);
      result = await control[action](frame.name);
    }
    client.send({ type: "plugin", action, result: result ?? null });
  } catch (error) {
    client.send({ type: "error", message: errorMessage(error) });
  }
}

async function memoryFrame(
  frame: Extract<ClientFrame, { type: "memory" }>,
  client: Connection,
  control: CliMemoryControl | undefined,
): Promise<void> {
  try {
    if (!control) throw new Error("This daemon does not serve memory commands");
    let result: unknown;
    if (frame.action === "import") {
      if (!frame.path) throw new Error("memory import needs a path");
      result = await control.import(frame.path);
    } else {
      if (!control.forget) throw new Error("This daemon cannot forget");
      if (frame.name === undefined) throw new Error("memory forget needs a name");
      result = await control.forget(frame.name);
    }
    client.send({ type: "memory", action: frame.action, result });
  } catch (error) {
    client.send({ type: "error", message: errorMessage(error) });
  }
}
