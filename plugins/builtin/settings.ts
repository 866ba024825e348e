/** The built-in plugins' settings, defined up front so `homeagent config` knows them offline. */
import type { PluginSettingDefinition } from "../../core/mod.ts";
import type { HostConfig } from "../host/settings.ts";
import { CHANGES_SETTINGS } from "./changes/mod.ts";
import { CMD_SETTINGS } from "./cmd/mod.ts";
import { FILES_SETTINGS } from "./files/mod.ts";
import { TIMER_SETTINGS } from "./timer/mod.ts";

const BUILTIN_SETTINGS: Record<string, PluginSettingDefinition[]> = {
  files: FILES_SETTINGS,
  cmd: CMD_SETTINGS,
  timer: TIMER_SETTINGS,
  changes: CHANGES_SETTINGS,
};

/** Define `plugin.<name>.*` of every built-in plugin (each plugin's start repeats it harmlessly). */
export function registerBuiltinSettings(config: HostConfig): void {
  for (const [plugin, definitions] of Object.entries(BUILTIN_SETTINGS)) {
    for (const definition of definitions) {
      const key = `plugin.${plugin}.${definition.key}`;
      if (!config.isDefined?.(key)) config.define({ ...definition, key });
    }
  }
}
