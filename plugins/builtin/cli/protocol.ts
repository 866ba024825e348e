/**
 * The CLI socket protocol (run/homed.sock): one JSON object per line in each direction.
 * Client frames are validated with zod; server frames are plain data.
 */
import { z } from "zod";

/** What `plugin` frames can ask. */
export const PLUGIN_ACTIONS = [
  "list",
  "install",
  "uninstall",
  "reload",
  "enable",
  "disable",
] as const;

/** One of PLUGIN_ACTIONS. */
export type PluginAction = (typeof PLUGIN_ACTIONS)[number];

/** A frame the client sends. */
export const ClientFrame = z.lazy(() =>
  z.discriminatedUnion("type", [
    z.object({
      type: z.literal("chat"),
      text: z.string().max(1_000_000),
      /** `chat --image FILE`: absolute paths of images the daemon stores with the input. */
      images: z.array(z.string().min(1).max(4096)).max(64).optional(),
    }).refine(
      (f) => f.text.trim() !== "" || (f.images?.length ?? 0) > 0,
      "chat needs text or images",
    ),
    z.object({ type: z.literal("stop") }),
    z.object({ type: z.literal("status") }),
    /** The owner's answer to a question a plugin asked (cmd's "run this?"). */
    z.object({ type: z.literal("answer"), id: z.string().max(100), approve: z.boolean() }),
    /** Plugin management; `path` (install) is an absolute path the daemon reads. */
    z.object({
      type: z.literal("plugin"),
      action: z.enum(PLUGIN_ACTIONS),
      name: z.string().max(64).optional(),
      path: z.string().max(4096).optional(),
      /** install of a skill package (`npm:<name>@<version>`), pinned to the reviewed integrity. */
      source: z.string().max(300).optional(),
      integrity: z.string().max(200).optional(),
    }),
    /**
     * `homeagent mcp`: from the next line on, the connection carries MCP JSON-RPC messages, one
     * per line each way, served by the daemon's MCP server (docs/mcp.md).
     */
    z.object({ type: z.literal("mcp") }),
    /**
     * `memory import`: the daemon reads `path` (absolute) into its own stores; `memory forget`:
     * it erases `name` from every tier of its memory.
     */
    z.object({
      type: z.literal("memory"),
      action: z.enum(["import", "forget"]),
      path: z.string().max(4096).optional(),
      name: z.string().max(1000).optional(),
    }),
  ])
);

/** A frame the client sends, parsed. */
export type ClientFrame = z.infer<typeof ClientFrame>;

/** A frame the server sends. */
export type ServerFrame =
  | { type: "accepted"; inputId: string }
  | { type: "delta"; text: string; reset?: boolean }
  | { type: "reasoning"; text: string; reset?: boolean }
  | { type: "tool"; name: string; phase: "start" | "end"; ok?: boolean }
  | { type: "reply"; inputId: string; text: string; status: string }
  | { type: "stopped"; wasRunning: boolean; suspended: number; queued: number }
  | { type: "status"; status: unknown }
  /** Answer to a `plugin` frame: the plugin list, or the one plugin acted on. */
  | { type: "plugin"; action: string; result: unknown }
  /** Answer to a `memory` frame: what the import wrote and skipped, or what forget erased. */
  | { type: "memory"; action: string; result: unknown }
  | { type: "message"; text: string }
  /** A plugin asks the owner; answer with an `answer` frame. */
  | { type: "question"; id: string; plugin: string; title: string; detail: string }
  /** Question `id` ended (answered here, in the web page, timed out or cancelled). */
  | { type: "answered"; id: string; answer: string }
  | { type: "error"; message: string };

/** Longest accepted line, in bytes; longer frames are refused. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** Split a byte stream into text lines; refuses a line longer than `maxBytes`. */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  maxBytes = MAX_FRAME_BYTES,
): AsyncGenerator<string> {
  let buffer = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let cut: number;
    while ((cut = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 1);
      if (line.trim() !== "") yield line;
    }
    if (buffer.length > maxBytes) throw new RangeError(`Frame longer than ${maxBytes} bytes`);
  }
  if (buffer.trim() !== "") yield buffer;
}
