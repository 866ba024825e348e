/**
 * Every view but the chat, as one chunk (web/build.ts) fetched when the first of them is opened.
 * One chunk rather than one per view: the code they share with the chat then sits in a single
 * chunk the page preloads, so the first load asks for two scripts, not one per shared module.
 */
export { MemoryView } from "./_memory.ts";
export { KnowledgeView } from "./_knowledge.ts";
export { PluginsView } from "./_plugins.ts";
export { SkillsView } from "./_skills.ts";
export { AgentsView, LlmView } from "./_panels.ts";
export { SettingsView } from "./_settings.ts";
export { SetupView } from "./_setup.ts";
