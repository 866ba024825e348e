/** Plugins' public entry: the built-in plugins and their client sides. */
export {
  type CliLineChannel,
  type CliMcpServe,
  type CliMemoryControl,
  type CliPluginControl,
  type CliPluginOptions,
  createCliPlugin,
} from "./builtin/cli/server.ts";
export { chatOnce, type ChatPrinter, CliClient, type DaemonTarget } from "./builtin/cli/client.ts";
export {
  commandName,
  type LaunchFacts,
  type LaunchKind,
  launchKind,
  processLaunchFacts,
  PROGRAM,
  shellQuote,
} from "./builtin/cli/command_name.ts";
export {
  BUNDLE_FLAGS,
  DAEMON_PERMISSIONS,
  installService,
  serviceCommand,
  type ServiceResult,
  type ServiceSpec,
  type ServiceTarget,
  serviceTarget,
  systemdVersion,
  uninstallService,
  unitText,
} from "./builtin/cli/service.ts";
export { type DaemonEntry, DaemonIndex, daemonIndexDir } from "./builtin/cli/daemon_index.ts";
export {
  claimDaemon,
  type DaemonClaim,
  daemonIndex,
  daemonTarget,
  refuseRunning,
  type RunFiles,
  type StopSignals,
  stopSignals,
} from "./builtin/cli/daemon.ts";
export { type PluginCommandIo, runPluginCommand } from "./builtin/cli/plugin_command.ts";
export { runServiceCommand, type ServiceCommandIo } from "./builtin/cli/service_command.ts";
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
  mcpCommand,
  memoryImportOnline,
  pluginCommandOnline,
  statusCommand,
  stopCommand,
} from "./builtin/cli/commands.ts";
export { createMcpPlugin, type McpPlugin, type McpPluginOptions } from "./builtin/mcp/plugin.ts";
export {
  type McpConfig,
  type McpServerConfig,
  mcpServerNames,
  readMcpServer,
  registerMcpDefaults,
} from "./builtin/mcp/config.ts";
export type { McpServerInfo, McpServerState } from "./builtin/mcp/connection.ts";
export {
  type CfgmgrOptions,
  type ConfigAccess,
  createCfgmgrPlugin,
  registerCfgmgrSettings,
} from "./builtin/cfgmgr/mod.ts";
export {
  type AgentcliOptions,
  createAgentcliPlugin,
  registerAgentcliSettings,
} from "./builtin/agentcli/mod.ts";
export { type McpHttpOptions, McpHttpSessions } from "./builtin/mcp/http.ts";
export { EXPOSED_TOOLS } from "./builtin/mcp/server.ts";
export {
  createHealthcheckPlugin,
  type HealthcheckOptions,
  registerHealthcheckSettings,
} from "./builtin/healthcheck/mod.ts";
export { formatFindings, type PluginHealth, runChecks } from "./builtin/healthcheck/checks.ts";
export {
  type ClawhubAdapterOptions,
  createClawhubAdapterPlugin,
  registerClawhubDefaults,
} from "./builtin/clawhubadapter/plugin.ts";
export {
  createSkillInstaller,
  type SkillInstaller,
  type SkillSources,
} from "./builtin/clawhubadapter/installer.ts";
export {
  type ClawHubHit,
  downloadClawHub,
  parseClawHubSource,
  searchClawHub,
} from "./builtin/clawhubadapter/clawhub.ts";
export * from "./host/mod.ts";
export { createFilesPlugin } from "./builtin/files/mod.ts";
export { createSandbox, type Sandbox, SandboxError } from "./builtin/files/sandbox.ts";
export { createTimerPlugin } from "./builtin/timer/mod.ts";
export { type CmdHistoryEntry, createCmdPlugin } from "./builtin/cmd/mod.ts";
export { changeLimits, createChangesPlugin } from "./builtin/changes/mod.ts";
export { ChangeStore } from "./builtin/changes/store.ts";
export { ChangeTracker } from "./builtin/changes/tracker.ts";
export { type ChangesAction, changesCommand } from "./builtin/changes/commands.ts";
export {
  type ChangesCommandIo,
  openTracker,
  registerWorkPlugins,
  runChangesCommand,
  type WorkPaths,
} from "./builtin/work.ts";
export { type DoctorIo, runDoctor } from "./builtin/healthcheck/doctor.ts";
export { registerBuiltinSettings } from "./builtin/settings.ts";
export {
  type DaemonPlugins,
  type PluginMemory,
  registerPluginSettings,
  startPlugins,
  type StartPluginsOptions,
} from "./start.ts";
export { runGuard, type RunGuardOptions } from "./guard/run.ts";
export { type GuardLink, linkToGuard } from "./guard/agent_link.ts";
export { failbackNotice, readGuardState } from "./guard/state.ts";
export type { GuardState } from "./guard/guard.ts";
export { type LogSink, openLogSink, RotatingLog } from "./guard/log_file.ts";
