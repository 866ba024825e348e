/**
 * The `clawhubadapter` built-in (ARCHITECTURE.md "SKILL plugin … loaded via clawhubadapter"):
 * the model searches a ClawHub registry and installs, lists and removes skills in
 * <home>/skills. A skill is instructions the model reads; none of its files is ever run.
 */
import { z } from "zod";
import { type ConfigDefinition, type Plugin, type ToolDef } from "../../../core/mod.ts";
import type { HomeSkills } from "../../host/mod.ts";
import { argsSchema, errorsAsResults } from "../tool_errors.ts";
import { searchClawHub } from "./clawhub.ts";
import type { SkillInstaller } from "./installer.ts";

const KEYS: ConfigDefinition[] = [
  {
    key: "plugin.clawhubadapter.search_url",
    schema: () => z.string().url(),
    default: "https://clawhub.ai/api/v1/search",
    description: "ClawHub search endpoint (GET ?q=&limit=) of clawhubadapter_plugin_search",
  },
  {
    key: "plugin.clawhubadapter.download_url",
    schema: () => z.string().url(),
    default: "https://clawhub.ai/api/v1/download",
    description: "ClawHub download endpoint (GET ?slug=&version=, a zip) for skill installs",
  },
];

/** Define the clawhubadapter settings. Call once per registry. */
export function registerClawhubDefaults(config: { define<T>(d: ConfigDefinition<T>): void }): void {
  for (const definition of KEYS) config.define(definition);
}

/** Options of createClawhubAdapterPlugin. */
export interface ClawhubAdapterOptions {
  installer: SkillInstaller;
  skills: HomeSkills;
  /** The search endpoint, read at each search. */
  searchUrl: () => string;
  fetch?: typeof fetch;
}

/** Create the clawhubadapter built-in. */
export function createClawhubAdapterPlugin(options: ClawhubAdapterOptions): Plugin {
  return {
    name: "clawhubadapter",
    start(sdk) {
      for (const tool of tools(options)) sdk.registerTool(tool);
    },
    stop() {},
  };
}

function tools(o: ClawhubAdapterOptions): ToolDef[] {
  return [
    {
      name: "clawhubadapter_plugin_search",
      description: "Search ClawHub for skills to install",
      parameters: argsSchema({
        query: { type: "string", minLength: 1, maxLength: 200 },
        limit: { type: "integer", minimum: 1, maximum: 50 },
      }, ["query"]),
      parallelSafe: true,
      noMemory: true,
      handler: errorsAsResults(async (args, signal) => {
        const hits = await searchClawHub(o.searchUrl(), String(args.query), {
          limit: typeof args.limit === "number" ? args.limit : 10,
          fetch: o.fetch,
          signal,
        });
        if (hits.length === 0) return `No skills found for "${args.query}"`;
        return hits.map((h) =>
          `- ${h.slug}${h.version ? `@${h.version}` : ""}: ${h.displayName ?? h.slug}` +
          (h.summary ? ` — ${h.summary}` : "")
        ).join("\n");
      }),
    },
    {
      name: "clawhubadapter_plugin_install",
      description: "Install a skill: a ClawHub slug[@version], or npm:<package>",
      parameters: argsSchema({ source: { type: "string", minLength: 1, maxLength: 300 } }, [
        "source",
      ]),
      noMemory: true,
      handler: errorsAsResults(async (args) => {
        const installed = await o.installer.install(String(args.source));
        return installed.map((s) => `Installed skill "${s.name}" (${s.source}): ${s.description}`)
          .join("\n");
      }),
    },
    {
      name: "clawhubadapter_plugin_uninstall",
      description: "Remove an installed skill by name",
      parameters: argsSchema({ name: { type: "string", minLength: 1, maxLength: 64 } }, ["name"]),
      noMemory: true,
      handler: errorsAsResults(async (args) => {
        await o.skills.remove(String(args.name));
        return `Removed skill "${args.name}"`;
      }),
    },
    {
      name: "clawhubadapter_plugin_list",
      description: "List the installed skills and where each came from",
      parameters: argsSchema({}, []),
      parallelSafe: true,
      noMemory: true,
      handler: errorsAsResults(() => {
        const skills = o.skills.list();
        if (skills.length === 0) return Promise.resolve("No skills installed");
        return Promise.resolve(
          skills.map((s) => `- ${s.name} (${s.source}): ${s.description}`).join("\n"),
        );
      }),
    },
  ];
}
