/** Output channels: where replies and model-initiated messages leave the kernel. */
import { z } from "zod";
import type { RegisteredTool, ToolResult } from "./tools.ts";
import { defineTool } from "./define_tool.ts";

/** Capability flags of an output channel (ARCHITECTURE.md "Output Channel System"). */
export const Cap = { text: 1, file: 2, image: 4, audio: 8, structured: 16 } as const;

/** What a channel handler receives. */
export interface OutputMessage {
  payload: string;
  /** Routing metadata (chat id, recipient, …), channel-specific. */
  meta: Record<string, unknown>;
  type: "text" | "file" | "image" | "audio" | "structured";
  /** Set when the message is the terminal reply of an input. */
  inputId?: string;
}

/** Sends one message; rejects when delivery failed. */
export type OutputHandler = (message: OutputMessage) => Promise<void> | void;

/** A registered output channel. */
export interface OutputChannel {
  name: string;
  plugin: string;
  caps: number;
  description: string;
  /** Extra help text for `output_send__{name}_help`: meta format, examples. */
  help?: string;
  handler: OutputHandler;
}

const CHANNEL_NAME = /^[a-z0-9_]{1,40}$/;
const TYPES = ["text", "file", "image", "audio", "structured"] as const;

/** The table of output channels. */
export class OutputRegistry {
  #channels = new Map<string, OutputChannel>();

  /** Register a channel; refuses a bad or duplicate name. Returns a function that removes it. */
  register(channel: OutputChannel): () => void {
    if (!CHANNEL_NAME.test(channel.name)) {
      throw new TypeError(
        `Cannot register output channel "${channel.name}": names must match ${CHANNEL_NAME.source}`,
      );
    }
    const existing = this.#channels.get(channel.name);
    if (existing) {
      throw new TypeError(
        `Cannot register output channel "${channel.name}": already registered by plugin "${existing.plugin}"`,
      );
    }
    this.#channels.set(channel.name, channel);
    return () => {
      if (this.#channels.get(channel.name) === channel) this.#channels.delete(channel.name);
    };
  }

  /** Remove every channel of `plugin`; returns the removed names. */
  unregisterPlugin(plugin: string): string[] {
    const names = [...this.#channels.values()].filter((c) => c.plugin === plugin).map((c) =>
      c.name
    );
    for (const name of names) this.#channels.delete(name);
    return names;
  }

  /** The channel named `name`, if any. */
  get(name: string): OutputChannel | undefined {
    return this.#channels.get(name);
  }

  /** Every channel, in registration order. */
  list(): OutputChannel[] {
    return [...this.#channels.values()];
  }

  /** The `output_send__{name}` and `output_send__{name}_help` tools of every channel. */
  tools(): RegisteredTool[] {
    return this.list().flatMap((channel) => [sendTool(channel), helpTool(channel)]);
  }
}

type PayloadType = OutputMessage["type"];

function allowedTypes(caps: number): PayloadType[] {
  return TYPES.filter((_, i) => (caps & (1 << i)) !== 0);
}

/** The send tool's arguments for each caps value, made once (tool lists are rebuilt often). */
const sendInputs = new Map<number, ReturnType<typeof sendInput>>();

function sendInput(types: readonly PayloadType[]) {
  const error = (issue: { input?: unknown }) =>
    `cannot send ${String(issue.input)} (this channel sends ${types.join(", ") || "nothing"})`;
  // Sent with every request for the reply channel: the names say what a description would.
  return z.object({
    payload: z.string(),
    meta: z.record(z.string(), z.unknown()).optional().describe("routing, channel-specific"),
    type: z.enum(types.length > 0 ? types : ["text"], { error }).optional(),
  });
}

function sendTool(channel: OutputChannel): RegisteredTool {
  const types = allowedTypes(channel.caps);
  let input = sendInputs.get(channel.caps);
  if (!input) sendInputs.set(channel.caps, input = sendInput(types));
  return defineTool({
    name: `output_send__${channel.name}`,
    plugin: channel.plugin,
    description: `Send a message on channel "${channel.name}": ${channel.description}; ` +
      `meta format: output_send__${channel.name}_help`,
    input,
    noMemory: true,
    handler: async (args): Promise<ToolResult> => {
      const type = args.type ?? "text";
      if (!types.includes(type)) {
        return { content: `Channel "${channel.name}" cannot send ${type}`, isError: true };
      }
      await channel.handler({ payload: args.payload, meta: args.meta ?? {}, type });
      return { content: `Sent through "${channel.name}"` };
    },
  });
}

const NO_ARGUMENTS = () => z.object({});

function helpTool(channel: OutputChannel): RegisteredTool {
  return defineTool({
    name: `output_send__${channel.name}_help`,
    plugin: channel.plugin,
    description: `How to use output_send__${channel.name}: meta format and payload types`,
    input: NO_ARGUMENTS,
    parallelSafe: true,
    noMemory: true,
    handler: () =>
      [
        `Channel "${channel.name}": ${channel.description}`,
        `Payload types: ${allowedTypes(channel.caps).join(", ")}`,
        channel.help ?? "meta: {} (no routing metadata needed)",
      ].join("\n"),
  });
}
