/** The plugin host: manifest, registry, subprocess/Lua/SKILL channels and .hmap packages. */
export { type Manifest, ManifestSchema, parseManifest, readManifest } from "./manifest.ts";
export {
  type PluginFactory,
  type PluginInfo,
  type PluginKind,
  PluginRegistry,
  type PluginRegistryOptions,
} from "./registry.ts";
export { type PluginServices } from "./api.ts";
export { registerPluginDefaults } from "./settings.ts";
export { defaultImportMap, pluginCommand } from "./permissions.ts";
export { buildHmap, HMAP_MAX_BYTES, type HmapPackage, readHmap } from "./hmap.ts";
export { placeHmap, recoverInstalls, removeInstalled } from "./install.ts";
export { type PermissionReview, reviewManifest } from "./review.ts";
export { parseSkill, type Skill, SkillLibrary } from "./skill.ts";
export { createLuaPlugin } from "./lua.ts";
export { createSubprocessPlugin } from "./subprocess.ts";
export { PluginProcess } from "./process.ts";
export { type ChannelLimits, DEFAULT_CHANNEL_LIMITS } from "./limits.ts";
export { CrashPolicy } from "./supervisor.ts";
