/**
 * The HomeAgent plugin SDK for subprocess plugins written in TypeScript
 * (docs/PLUGIN_GUIDE.md). Import it as `@homeagent/plugin-sdk` (the host maps that name to
 * this file) or vendor this folder. Depends on the protocol types only.
 *
 * ```ts
 * import { createPlugin } from "@homeagent/plugin-sdk";
 * const plugin = createPlugin({ name: "echo", version: "1.0.0" });
 * plugin.tool({ name: "echo_say", description: "Echo the text", parameters: {...} },
 *   (args) => String(args.text));
 * await plugin.serve();
 * ```
 */
export {
  CAPABILITIES,
  type Capability,
  ChannelCap,
  compatibleVersion,
  ErrorCode,
  type KernelMethod,
  type KernelNotifications,
  type KernelToPlugin,
  MAX_FRAME_BYTES,
  MAX_IN_FLIGHT,
  type PluginMethod,
  type PluginToKernel,
  PROTOCOL_VERSION,
  RpcError,
  type RpcErrorObject,
  type RpcFrame,
  type RpcNotification,
  type RpcRequest,
  type RpcResponse,
  type SettingDefinition,
  type StageMutation,
  type StageName,
  type WireInject,
  type WireOutputMessage,
  type WireOwnerAnswer,
  type WireOwnerQuestion,
  type WireRouteRequest,
  type WireStageContext,
  type WireToolCall,
  type WireToolDef,
  type WireToolResult,
} from "./protocol.ts";
export { JsonRpcPeer, type JsonRpcPeerOptions } from "./rpc.ts";
export { LineSplitter } from "./line_splitter.ts";

export {
  type ChannelHandler,
  createPlugin,
  type CreatePluginOptions,
  type EventListener,
  type KernelClient,
  log,
  type PluginBuilder,
  type PluginInit,
  type PluginIo,
  RouteError,
  type RouteHandler,
  type StageHandlerFn,
  stdio,
  type ToolCallContext,
  type ToolHandler,
} from "./plugin.ts";
