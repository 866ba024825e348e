/**
 * The `skills` built-in: the prompt's skill index (a pre_action note) and `skill_load`, which
 * returns a skill's body and the bundled files it references, or one of those files.
 */
import { join } from "node:path";
import type { Plugin } from "../../core/mod.ts";
import { referencedFiles, type Skill, type SkillLibrary } from "./skill.ts";

/** Longest bundled file skill_load returns, characters. */
const MAX_FILE_CHARS = 100_000;

/** Create the skills built-in over `library`. */
export function createSkillsBuiltin(library: SkillLibrary): Plugin {
  return {
    name: "skills",
    start(sdk) {
      sdk.registerStage("pre_action", (context) => {
        const section = library.section();
        if (section) context.promptSections?.push(section);
      });
      sdk.registerTool({
        name: "skill_load",
        description: "Read an installed skill, or one file it bundles",
        parameters: {
          type: "object",
          properties: {
            name: { type: "string", description: "Skill name from the index" },
            file: { type: "string", description: "A bundled file the skill lists" },
          },
          required: ["name"],
          additionalProperties: false,
        },
        parallelSafe: true,
        noMemory: true,
        handler: async (args) => {
          const skill = library.get(String(args.name));
          if (!skill) {
            const known = library.list().map((s) => s.name).join(", ") || "none";
            return { content: `No skill "${args.name}" (installed: ${known})`, isError: true };
          }
          return typeof args.file === "string"
            ? await bundledFile(skill, args.file)
            : describe(skill);
        },
      });
    },
    stop() {},
  };
}

function describe(skill: Skill): string {
  const head = `# Skill ${skill.name}${skill.version ? ` ${skill.version}` : ""}\n${skill.body}`;
  const files = referencedFiles(skill.body, skill.files ?? []);
  if (files.length === 0) return head;
  return `${head}\n\n[Bundled files: ${files.join(", ")} — read one with skill_load ` +
    `{"name":"${skill.name}","file":"…"}]`;
}

/** A file of the skill's own list (never a path the model made up), as text. */
async function bundledFile(skill: Skill, file: string) {
  if (!skill.dir || !(skill.files ?? []).includes(file)) {
    const known = (skill.files ?? []).join(", ") || "none";
    return {
      content: `Skill "${skill.name}" bundles no file "${file}" (files: ${known})`,
      isError: true,
    };
  }
  const bytes = await Deno.readFile(join(skill.dir, file));
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { content: `"${file}" is a binary file (${bytes.length} bytes)`, isError: true };
  }
  return text.length <= MAX_FILE_CHARS
    ? text
    : `${text.slice(0, MAX_FILE_CHARS)}… [${text.length - MAX_FILE_CHARS} more characters]`;
}
