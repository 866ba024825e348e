/**
 * The subprocess plugin protocol (docs/PLUGIN_PROTOCOL.md): JSON-RPC 2.0, one object per line
 * on the plugin's stdin (kernel → plugin) and stdout (plugin → kernel). Imported by the host
 * and by the plugin SDK alike; it depends on nothing.
 */

/** Protocol version, `major.minor`; a different major is refused at `plugin.init`. */
export const PROTOCOL_VERSION = "1.1";

/** Longest accepted frame (one line), in bytes, unless a side configures another limit. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** JSON-RPC error codes: the standard ones and the protocol's own (-32000…-32099). */
export const ErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** The capability is not declared in plugin.json. */
  notCapable: -32001,
  /** The kernel has no such service wired (e.g. knowledge, social). */
  notAvailable: -32002,
  /** The call did not answer in time. */
  timeout: -32003,
  /** The frame is longer than the limit. */
  frameTooLarge: -32004,
  /** Registration outside the plugin.start window. */
  registrationClosed: -32005,
  /** Protocol major versions differ. */
  versionMismatch: -32006,
  /** The call was cancelled (turn stopped, plugin stopping). */
  cancelled: -32007,
  /** Too many requests in flight on this connection; refused at once. */
  busy: -32008,
} as const;

/** Requests one side may have awaiting an answer, or be serving, unless configured otherwise. */
export const MAX_IN_FLIGHT = 1024;

/** A JSON-RPC error object. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A JSON-RPC failure; thrown by handlers and by `request()` on an error response. */
export class RpcError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** Optional structured detail. */
  readonly data?: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
}

/** A request: expects a response with the same id. */
export interface RpcRequest {
  jsonrpc: "2.0";
  id: number | string;
  method: string;
  params?: unknown;
}

/** A notification: no id, no response. */
export interface RpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: unknown;
}

/** A response: `result` or `error`. */
export type RpcResponse =
  | { jsonrpc: "2.0"; id: number | string | null; result: unknown }
  | { jsonrpc: "2.0"; id: number | string | null; error: RpcErrorObject };

/** Any frame. */
export type RpcFrame = RpcRequest | RpcNotification | RpcResponse;

/** Capability flags of an output channel (same values as the kernel's `Cap`). */
export const ChannelCap = { text: 1, file: 2, image: 4, audio: 8, structured: 16 } as const;

/** What a plugin may declare in plugin.json `capabilities`; each gates methods below. */
export type Capability =
  | "tools"
  | "stages"
  | "channels"
  | "input"
  | "interrupt"
  | "events"
  | "settings"
  | "memory"
  | "docs"
  | "knowledge"
  | "social"
  | "ask"
  | "routes";

/** Every capability name. */
export const CAPABILITIES: readonly Capability[] = [
  "tools",
  "stages",
  "channels",
  "input",
  "interrupt",
  "events",
  "settings",
  "memory",
  "docs",
  "knowledge",
  "social",
  "ask",
  "routes",
];

/**
 * Pipeline stages a plugin may hook: the kernel's stages (core/events.ts `STAGES`) restated on
 * the wire, since the SDK imports nothing outside plugins/sdk/; plugins/host/stage_wire.ts
 * makes any difference between the two a type error.
 */
export type StageName =
  | "on_input"
  | "pre_action"
  | "post_action"
  | "before_toolcall"
  | "after_toolcall"
  | "before_output"
  | "after_output";

/** A tool call as the model made it. */
export interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A tool result. */
export interface WireToolResult {
  content: string;
  isError?: boolean;
}

/** The StageContext fields a subprocess stage handler receives (`stage.run`). */
export interface WireStageContext {
  stage: StageName;
  turnId: string;
  input: { id: string; text: string; source: string; channel: string; priority: number };
  response?: string;
  systemMessages: string[];
  llmText?: string;
  toolCalls?: WireToolCall[];
  toolCall?: { call: WireToolCall; args: Record<string, unknown>; plugin: string };
  reject?: string;
  toolResult?: WireToolResult;
  output?: string;
}

/** What a stage handler returns: the mutations the kernel applies (all optional). */
export interface StageMutation {
  /** Short-circuit reply. */
  response?: string;
  /** on_input: replace the input text. */
  inputText?: string;
  /** pre_action: system messages to append. */
  systemMessages?: string[];
  /**
   * pre_action: titled sections for the prompt, each cut to its share of the token budget by
   * relevance to the input (`kind`: graph, documents, knowledge or skills; else "other").
   */
  promptSections?: WirePromptSection[];
  /** post_action: replace the model's text / tool calls. */
  llmText?: string;
  toolCalls?: WireToolCall[];
  /** before_toolcall: replace the arguments, or reject the call with a reason. */
  toolArgs?: Record<string, unknown>;
  reject?: string;
  /** after_toolcall: replace the result. */
  toolResult?: WireToolResult;
  /** before_output: replace the final text. */
  output?: string;
}

/** A prompt section a pre_action handler adds. */
export interface WirePromptSection {
  title: string;
  lines: string[];
  kind?: string;
  /** The lines come best first; by default they are ranked against the input when cut. */
  ranked?: boolean;
}

/** An outgoing message for `channel.send`. */
export interface WireOutputMessage {
  payload: string;
  meta: Record<string, unknown>;
  type: "text" | "file" | "image" | "audio" | "structured";
  inputId?: string;
}

/** A setting a plugin declares (also allowed in plugin.json `settings`). */
export interface SettingDefinition {
  type: "string" | "number" | "boolean" | "json";
  default: unknown;
  description?: string;
  secret?: boolean;
}

/** Kernel → plugin requests: params and results. */
export interface KernelToPlugin {
  "plugin.init": {
    params: {
      protocolVersion: string;
      kernelVersion: string;
      name: string;
      dataDir: string;
      settings: Record<string, unknown>;
    };
    result: { protocolVersion: string; name: string; version?: string };
  };
  "plugin.start": { params: Record<string, never>; result: Record<string, never> };
  "plugin.stop": { params: Record<string, never>; result: Record<string, never> };
  "tool.call": {
    params: { name: string; args: Record<string, unknown>; turnId: string; callId: string };
    result: WireToolResult;
  };
  "stage.run": { params: { handler: number; context: WireStageContext }; result: StageMutation };
  "channel.send": { params: { channel: string; message: WireOutputMessage }; result: null };
  /** A web request to a route the plugin registered; fail with RpcError data `{status}`. */
  "route.call": { params: WireRouteRequest; result: unknown };
}

/** Kernel → plugin notifications. */
export interface KernelNotifications {
  /** A subscribed kernel event. */
  "event": { event: { type: string; [key: string]: unknown } };
  /** The kernel gave up on request `id` (timeout, stop); the plugin may stop its work. */
  "$/cancel": { id: number | string };
}

/** A tool a plugin registers. */
export interface WireToolDef {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  timeoutMs?: number;
  parallelSafe?: boolean;
  noMemory?: boolean;
  /** Send its schema with every request (a plugin's one essential tool); default: found by tool_search. */
  always?: boolean;
}

/** A web request to a plugin's route (`/api/v1/plugins/<name>/<path>`). */
export interface WireRouteRequest {
  method: "GET" | "POST";
  /** The route's path as registered (`sets/:id`). */
  path: string;
  /** Values of its `:name` segments. */
  params: Record<string, string>;
  query: Record<string, string>;
  /** The parsed JSON body of a POST. */
  body?: unknown;
}

/** What a plugin asks the owner (`owner.ask`). */
export interface WireOwnerQuestion {
  /** One line: "Run a command?". */
  title: string;
  /** What exactly, shown verbatim. */
  detail?: string;
  /** Give up after this long (answer "timeout"); default 120 s, at most one hour. */
  timeoutMs?: number;
  /** The `callId` of the tool call it is asked for: a stopped turn cancels the question. */
  callId?: string;
}

/** How a question ended. */
export type WireOwnerAnswer = "approved" | "denied" | "timeout" | "cancelled";

/** Options of an injected input. */
export interface WireInject {
  text: string;
  channel?: string;
  sender?: string;
  priority?: number;
  meta?: Record<string, unknown>;
  /**
   * Images that came with the input, base64 (no data: prefix). The kernel sniffs the type
   * from the bytes (`mime` is only a hint) and refuses oversize, unknown types and too many.
   */
  media?: { data: string; mime?: string }[];
  /** Wait for the reply (input.inject only). */
  wait?: boolean;
}

/** Plugin → kernel requests (the restricted SDK): params and results. */
export interface PluginToKernel {
  "tool.register": { params: WireToolDef; result: null };
  "stage.register": {
    params: { stage: StageName; handler: number; scope?: "global" | "own_tools" };
    result: null;
  };
  "channel.register": {
    params: { name: string; caps: number; description: string; help?: string };
    result: null;
  };
  "input.register": { params: { name: string }; result: null };
  "events.subscribe": { params: { types: string[] }; result: null };
  "settings.define": { params: { key: string; definition: SettingDefinition }; result: null };
  "settings.get": { params: { key: string }; result: { value: unknown } };
  "settings.set": { params: { key: string; value: unknown }; result: null };
  "settings.list": { params: Record<string, never>; result: { values: Record<string, unknown> } };
  "input.inject": {
    params: WireInject;
    result: { accepted: boolean; inputId: string; reason?: string; reply?: unknown };
  };
  "input.interrupt": {
    params: WireInject;
    result: { accepted: boolean; inputId: string; reason?: string };
  };
  "memory.recall": { params: { query: string; k?: number }; result: { items: unknown[] } };
  "memory.commit": { params: { text: string; tags?: string[] }; result: { id: string } };
  "doc.query": { params: { query: string; k?: number }; result: { items: unknown[] } };
  "doc.commit": {
    params: { content: string; summary?: string; tags?: string[] };
    result: { id: string; duplicate: boolean };
  };
  "knowledge.search": { params: { query: string; k?: number }; result: { items: unknown[] } };
  "knowledge.create": { params: { name: string; content: string }; result: null };
  "social.get_person": { params: { name: string }; result: { person: unknown } };
  "social.list_persons": { params: Record<string, never>; result: { persons: unknown[] } };
  "social.get_relations": { params: { name: string }; result: { relations: unknown[] } };
  "owner.ask": { params: WireOwnerQuestion; result: { answer: WireOwnerAnswer } };
  "route.register": { params: { method: "GET" | "POST"; path: string }; result: null };
}

/** Every method name of a direction. */
export type KernelMethod = keyof KernelToPlugin;
/** Every method name of the restricted SDK. */
export type PluginMethod = keyof PluginToKernel;

/** Whether two protocol versions share a major version. */
export function compatibleVersion(a: string, b: string): boolean {
  return a.split(".")[0] === b.split(".")[0];
}
