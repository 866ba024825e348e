/**
 * SKILL plugins: a SKILL.md with YAML front matter (name, description, version) and Markdown
 * sections ("When to use", "Steps", …). The model sees a compact index in the system prompt
 * (a pre_action note) and loads a skill in full with the `skill_load` tool.
 */
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { type Plugin, PluginError } from "../../core/mod.ts";

/** A parsed skill. */
export interface Skill {
  name: string;
  description: string;
  version?: string;
  /** Section title → body, in file order. */
  sections: Map<string, string>;
  /** The whole Markdown body (without the front matter). */
  body: string;
}

const FrontMatter = z.object({
  name: z.string().regex(/^[a-z0-9_-]{1,64}$/),
  description: z.string().min(1).max(1000),
  version: z.union([z.string(), z.number()]).optional(),
});

/** Parse SKILL.md text; throws PluginError on missing or invalid front matter. */
export function parseSkill(text: string, plugin = "?"): Skill {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) {
    throw new PluginError(plugin, `SKILL.md of "${plugin}" has no YAML front matter (--- … ---)`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(match[1]!);
  } catch (error) {
    throw new PluginError(plugin, `SKILL.md of "${plugin}": invalid YAML front matter`, {
      cause: error,
    });
  }
  const parsed = FrontMatter.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new PluginError(plugin, `SKILL.md of "${plugin}": ${issues.join("; ")}`);
  }
  const body = match[2]!.trim();
  return {
    name: parsed.data.name,
    description: parsed.data.description,
    version: parsed.data.version === undefined ? undefined : String(parsed.data.version),
    sections: sectionsOf(body),
    body,
  };
}

function sectionsOf(body: string): Map<string, string> {
  const sections = new Map<string, string>();
  let title = "";
  let lines: string[] = [];
  const flush = () => {
    const text = lines.join("\n").trim();
    if (title || text) sections.set(title || "intro", text);
  };
  for (const line of body.split("\n")) {
    const heading = /^#{1,3}\s+(.+)$/.exec(line);
    if (heading) {
      flush();
      title = heading[1]!.trim().toLowerCase();
      lines = [];
    } else lines.push(line);
  }
  flush();
  return sections;
}

/** The skills currently loaded, shared by SKILL plugins and the `skills` built-in. */
export class SkillLibrary {
  #skills = new Map<string, Skill>();

  /** Add or replace a skill. */
  add(skill: Skill): void {
    this.#skills.set(skill.name, skill);
  }

  /** Remove a skill by name. */
  remove(name: string): void {
    this.#skills.delete(name);
  }

  /** The skill named `name`. */
  get(name: string): Skill | undefined {
    return this.#skills.get(name);
  }

  /** Every skill, by name. */
  list(): Skill[] {
    return [...this.#skills.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The compact index for the system prompt, or "" when there is no skill. */
  index(): string {
    const skills = this.list();
    if (skills.length === 0) return "";
    const lines = skills.map((s) => {
      const when = s.sections.get("when to use")?.split("\n")[0]?.trim();
      return `- ${s.name}: ${s.description}${when ? ` (when: ${when})` : ""}`;
    });
    return `[Skills] Call skill_load with a name to read a skill's full steps before using it.\n${
      lines.join("\n")
    }`;
  }
}

/** A SKILL plugin: adds its skill to the library while started. */
export function createSkillPlugin(name: string, skill: Skill, library: SkillLibrary): Plugin {
  return {
    name,
    start() {
      library.add(skill);
    },
    stop() {
      library.remove(skill.name);
    },
  };
}

/** The `skills` built-in: the pre_action index note and the `skill_load` tool. */
export function createSkillsBuiltin(library: SkillLibrary): Plugin {
  return {
    name: "skills",
    start(sdk) {
      sdk.registerStage("pre_action", (context) => {
        const index = library.index();
        if (index) context.systemMessages.push(index);
      });
      sdk.registerTool({
        name: "skill_load",
        description: "Load the full text of an installed skill (its when-to-use and steps)",
        parameters: {
          type: "object",
          properties: { name: { type: "string", description: "Skill name from the index" } },
          required: ["name"],
          additionalProperties: false,
        },
        parallelSafe: true,
        noMemory: true,
        handler: (args) => {
          const skill = library.get(String(args.name));
          if (!skill) {
            const known = library.list().map((s) => s.name).join(", ") || "none";
            return { content: `No skill "${args.name}" (installed: ${known})`, isError: true };
          }
          return `# Skill ${skill.name}${skill.version ? ` ${skill.version}` : ""}\n${skill.body}`;
        },
      });
    },
    stop() {},
  };
}
