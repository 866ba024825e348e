/**
 * Skills as the ecosystem writes them: a SKILL.md with YAML front matter (name, description,
 * optional version and metadata) and Markdown sections ("When to use", "Steps", or their
 * Chinese headings). They come from <home>/skills/<name>/ (no plugin.json needed: skills_home.ts)
 * or from a SKILL plugin. The model sees a compact index (name and description) in the system
 * prompt and reads a skill, and the files it bundles, with `skill_load` (skills_tool.ts).
 */
import { z } from "zod";
import { type MemorySection, type Plugin, PluginError } from "../../core/mod.ts";

/** A parsed skill. */
export interface Skill {
  name: string;
  description: string;
  version?: string;
  /** Front matter keys besides name, description and version (OpenClaw's `metadata`, …). */
  metadata: Record<string, unknown>;
  /**
   * Section → body, in file order, keyed by canonical title: "when to use" and "steps" for the
   * English and Chinese headings alike (使用场景, 何时使用, 步骤, …); other titles lowercased.
   */
  sections: Map<string, string>;
  /** The whole Markdown body (without the front matter). */
  body: string;
  /** Where its files are (skills in <home>/skills); absent for a skill without a folder. */
  dir?: string;
  /** Files bundled with it, relative to `dir` (SKILL.md excluded). */
  files?: string[];
  /** Where it came from: "home", "npm:<name>@<version>", "clawhub:<slug>@<version>", a plugin. */
  source?: string;
  /** The integrity its package was verified against when installed. */
  integrity?: string;
}

/** Skill names: folder names and the model's handle, so a stricter rule than names in general. */
export const SKILL_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const FrontMatter = z.lazy(() =>
  z.object({
    name: z.string().regex(SKILL_NAME, "expected 1 to 64 lowercase letters, digits, - or _"),
    description: z.string().min(1).max(1024).optional(),
    version: z.union([z.string(), z.number()]).optional(),
  }).passthrough()
);

/** Headings that mean the same section, in English and Chinese. */
const SECTION_ALIASES: Record<string, string> = {
  "when to use": "when to use",
  "when to use it": "when to use",
  "usage": "when to use",
  "使用场景": "when to use",
  "何时使用": "when to use",
  "适用场景": "when to use",
  "使用时机": "when to use",
  "触发条件": "when to use",
  "何时触发": "when to use",
  "steps": "steps",
  "instructions": "steps",
  "步骤": "steps",
  "操作步骤": "steps",
  "使用步骤": "steps",
  "使用方法": "steps",
  "examples": "examples",
  "示例": "examples",
  "例子": "examples",
  "notes": "notes",
  "注意事项": "notes",
  "备注": "notes",
};

/**
 * Parse SKILL.md text; rejects with PluginError on missing or invalid front matter. The YAML
 * parser (~9 MB resident) is loaded on the first skill, not with the daemon.
 */
export async function parseSkill(text: string, plugin = "?"): Promise<Skill> {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) {
    throw new PluginError(plugin, `SKILL.md of "${plugin}" has no YAML front matter (--- … ---)`);
  }
  const { parse: parseYaml } = await import("yaml");
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
  const sections = sectionsOf(body);
  const { name, description: declared, version, ...metadata } = parsed.data;
  // Without a description, the first line of its when-to-use section says what it is for.
  const description = declared ?? sections.get("when to use")?.split("\n")[0]?.trim();
  if (!description) {
    throw new PluginError(
      plugin,
      `SKILL.md of "${plugin}": description: required (or a "When to use" / "使用场景" section)`,
    );
  }
  return {
    name,
    description: description.slice(0, 1024),
    version: version === undefined ? undefined : String(version),
    metadata,
    sections,
    body,
  };
}

function sectionsOf(body: string): Map<string, string> {
  const sections = new Map<string, string>();
  let title = "";
  let lines: string[] = [];
  let fence = false;
  const flush = () => {
    const text = lines.join("\n").trim();
    if ((title || text) && !sections.has(title || "intro")) sections.set(title || "intro", text);
  };
  for (const line of body.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const heading = fence ? null : /^#{1,3}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      const text = heading[1]!.trim().toLowerCase().replace(/[:：]$/, "");
      title = SECTION_ALIASES[text] ?? text;
      lines = [];
    } else lines.push(line);
  }
  flush();
  return sections;
}

/**
 * The bundled files `skill` mentions (Markdown links or code spans naming a path), among
 * `files`, in order of first mention.
 */
export function referencedFiles(body: string, files: readonly string[]): string[] {
  const known = new Set(files);
  const found: string[] = [];
  const candidates =
    /\]\(\s*(?:\.\/)?([^)\s#]+)[^)]*\)|`(?:\.\/)?([^`\s]+)`|(?:^|\s)(?:\.\/)?([\w.-]+\/[\w./-]+)/g;
  for (const match of body.matchAll(candidates)) {
    const path = (match[1] ?? match[2] ?? match[3] ?? "").replace(/\/$/, "");
    const hits = known.has(path) ? [path] : files.filter((f) => f.startsWith(`${path}/`));
    for (const hit of hits) if (!found.includes(hit)) found.push(hit);
  }
  return found;
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

  /** The compact index for the system prompt (name and description), or "" when there is none. */
  index(): string {
    const section = this.section();
    if (!section) return "";
    return `[${section.title}] ${section.hint}\n${section.lines.join("\n")}`;
  }

  /**
   * The index as a prompt section of its own: it takes the skills' share of the budget and,
   * when over it, keeps the skills most relevant to the input. Undefined without skills.
   */
  section(): MemorySection | undefined {
    const skills = this.list();
    if (skills.length === 0) return undefined;
    return {
      title: "Skills",
      hint: "Call skill_load with a name to read a skill before using it.",
      lines: skills.map((s) => `- ${s.name}: ${s.description}`),
      kind: "skills",
      ranked: false,
    };
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
