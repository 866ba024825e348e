/** The plugin host: manifest, registry, subprocess/Lua/SKILL channels and .hmap packages. */
export {
  checkPlatform,
  currentPlatform,
  type Manifest,
  ManifestSchema,
  parseManifest,
  readManifest,
  supportsPlatform,
} from "./manifest.ts";
export {
  FAILBACK_ERROR,
  type PluginFactory,
  type PluginInfo,
  type PluginKind,
  PluginRegistry,
  type PluginRegistryOptions,
} from "./registry.ts";
export { type PluginServices } from "./api.ts";
export { registerPluginDefaults } from "./settings.ts";
export { defaultImportMap, pluginCommand } from "./permissions.ts";
export { type PluginRuntime, pluginRuntime, type PluginRuntimeOptions } from "./runtime.ts";
export { buildHmap, HMAP_MAX_BYTES, type HmapPackage, readHmap, readZipFiles } from "./hmap.ts";
export { placeHmap, recoverInstalls, removeInstalled } from "./install.ts";
export { type PermissionReview, reviewManifest } from "./review.ts";
export { parseSkill, referencedFiles, type Skill, SKILL_NAME, SkillLibrary } from "./skill.ts";
export {
  HomeSkills,
  type HomeSkillsOptions,
  type InstalledSkill,
  reviewSkillPackage,
  type SkillPackage,
} from "./skills_home.ts";
export {
  fetchBytes,
  type FetchBytesOptions,
  fetchNpmPackage,
  NPM_REGISTRY,
  type NpmFetchOptions,
  type NpmPackage,
  npmSkillPackage,
  type NpmSpec,
  parseNpmSpec,
} from "./npm.ts";
export { readTarGz, type TarLimits } from "./tar.ts";
export { createLuaPlugin } from "./lua.ts";
export { createSubprocessPlugin } from "./subprocess.ts";
export { PluginProcess } from "./process.ts";
export { type ChannelLimits, DEFAULT_CHANNEL_LIMITS } from "./limits.ts";
export { CrashPolicy } from "./supervisor.ts";
export { type OfflineHome, type OfflinePlugin, pluginOffline } from "./offline.ts";
