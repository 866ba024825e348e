/** The plugin host: manifest, registry, subprocess/Lua/SKILL channels and .hmap packages. */
export { currentPlatform, parseManifest, supportsPlatform } from "./manifest.ts";
export { FAILBACK_ERROR, PluginRegistry, type PluginRegistryOptions } from "./registry.ts";
export { type PluginServices } from "./api.ts";
export { registerPluginDefaults } from "./settings.ts";
export { defaultImportMap } from "./permissions.ts";
export { pluginRuntime } from "./runtime.ts";
export { buildHmap, readHmap, readZipFiles } from "./hmap.ts";
export { recoverInstalls, removeInstalled } from "./install.ts";
export { reviewManifest } from "./review.ts";
export { parseSkill, referencedFiles, SkillLibrary } from "./skill.ts";
export {
  HomeSkills,
  type InstalledSkill,
  reviewSkillPackage,
  type SkillPackage,
} from "./skills_home.ts";
export { fetchBytes, npmSkillPackage } from "./npm.ts";
export { CrashPolicy } from "./supervisor.ts";
