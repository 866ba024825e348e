/** Plugins' public entry: the built-in plugins and their client sides. */
export {
  type CliPluginControl,
  type CliPluginOptions,
  createCliPlugin,
} from "./builtin/cli/server.ts";
export { chatOnce, type ChatPrinter, CliClient } from "./builtin/cli/client.ts";
export { processIo, type ReplIo, runRepl } from "./builtin/cli/repl.ts";
export {
  type ClientFrame,
  PLUGIN_ACTIONS,
  type PluginAction,
  type ServerFrame,
} from "./builtin/cli/protocol.ts";
export {
  chatCommand,
  type CommandOutput,
  ConfirmationRequired,
  confirmInstall,
  type ConfirmIo,
  pluginCommandOnline,
  statusCommand,
  stopCommand,
} from "./builtin/cli/commands.ts";
export * from "./host/mod.ts";
