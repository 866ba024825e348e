/** Plugins' public entry: the built-in plugins and their client sides. */
export { CliClient } from "./builtin/cli/client.ts";
export {
  commandName,
  type LaunchFacts,
  processLaunchFacts,
  PROGRAM,
} from "./builtin/cli/command_name.ts";
export {
  BUNDLE_FLAGS,
  DAEMON_PERMISSIONS,
  installService,
  serviceCommand,
  type ServiceTarget,
  serviceTarget,
  systemdVersion,
  uninstallService,
  unitText,
} from "./builtin/cli/service.ts";
export { DaemonIndex, daemonIndexDir } from "./builtin/cli/daemon_index.ts";
export { claimDaemon, daemonTarget, stopSignals } from "./builtin/cli/daemon.ts";
export { runPluginCommand } from "./builtin/cli/plugin_command.ts";
export { runServiceCommand } from "./builtin/cli/service_command.ts";
export {
  chatCommand,
  ConfirmationRequired,
  confirmInstall,
  type ConfirmIo,
  mcpCommand,
  memoryForgetOnline,
  memoryImportOnline,
  statusCommand,
  stopCommand,
} from "./builtin/cli/commands.ts";
export { createMcpPlugin, type McpPlugin } from "./builtin/mcp/plugin.ts";
export { registerMcpDefaults } from "./builtin/mcp/config.ts";
export { McpHttpSessions } from "./builtin/mcp/http.ts";
export { createClawhubAdapterPlugin } from "./builtin/clawhubadapter/plugin.ts";
export { createSkillInstaller, type SkillInstaller } from "./builtin/clawhubadapter/installer.ts";
export {
  buildHmap,
  currentPlatform,
  defaultImportMap,
  HomeSkills,
  parseManifest,
  parseSkill,
  PluginRegistry,
  type PluginRegistryOptions,
  pluginRuntime,
  readHmap,
  recoverInstalls,
  referencedFiles,
  registerPluginDefaults,
  removeInstalled,
  reviewManifest,
  reviewSkillPackage,
  SkillLibrary,
  supportsPlatform,
} from "./host/mod.ts";
export { runChangesCommand } from "./builtin/work.ts";
export { runDoctor } from "./builtin/healthcheck/doctor.ts";
export { registerPluginSettings, startPlugins } from "./start.ts";
export { runGuard } from "./guard/run.ts";
export { linkToGuard } from "./guard/agent_link.ts";
export { failbackNotice } from "./guard/state.ts";
export { openLogSink } from "./guard/log_file.ts";
export { refuseRunning } from "./guard/running.ts";
