/**
 * Skills in <home>/skills/<name>/ (SKILL.md plus the files it bundles), as the ecosystem writes
 * them: no plugin.json. Loaded into the SkillLibrary at start; installed from a package (npm,
 * ClawHub) into a staging folder that is renamed into place, so a crash leaves the old version
 * or the new one; each install records its source and integrity in `.install.json`. Bundled
 * files are written 0600 and never run: a skill is text the model reads.
 */
import { dirname, join, relative } from "node:path";
import { checkName, type Clock, errorMessage, type Logger, PluginError } from "../../core/mod.ts";
import { parseSkill, type Skill, SKILL_NAME, type SkillLibrary } from "./skill.ts";

/** Files of a package to install skills from, and where it came from. */
export interface SkillPackage {
  files: Map<string, Uint8Array>;
  /** `npm:<name>@<version>`, `clawhub:<slug>@<version>`. */
  source: string;
  /** The integrity the package was verified against (sha512-… or sha256-…). */
  integrity?: string;
}

/** A skill in <home>/skills, as `list` and the web panel show it. */
export interface InstalledSkill {
  name: string;
  description: string;
  version?: string;
  source: string;
  integrity?: string;
  files: string[];
}

/** Options of HomeSkills. */
export interface HomeSkillsOptions {
  /** <home>/skills. */
  dir: string;
  library: SkillLibrary;
  logger: Logger;
  clock: Clock;
}

const STAGING = ".install-";
const REPLACED = ".replaced-";
const RECORD = ".install.json";
const MAX_SKILL_MD = 1024 * 1024;

/** The skills folder of one home. */
export class HomeSkills {
  #o: HomeSkillsOptions;

  constructor(options: HomeSkillsOptions) {
    this.#o = options;
  }

  /** Load every skill folder into the library (a broken one is logged and skipped). */
  async load(): Promise<void> {
    const names = await this.#folders();
    for (const name of names) {
      try {
        this.#o.library.add(await this.#read(name));
      } catch (error) {
        this.#o.logger.warn("Skill not loaded", { skill: name, error: errorMessage(error) });
      }
    }
  }

  /** Every skill of this folder that the library holds. */
  list(): InstalledSkill[] {
    return this.#o.library.list().filter((s) =>
      s.dir !== undefined && dirname(s.dir) === this.#o.dir
    )
      .map((s) => ({
        name: s.name,
        description: s.description,
        version: s.version,
        source: s.source ?? "home",
        integrity: s.integrity,
        files: s.files ?? [],
      }));
  }

  /**
   * Install the skills of `pkg`: its root SKILL.md, or each `skills/<x>/SKILL.md`. Each replaces
   * a skill of the same name. Throws PluginError when it holds none, or one is invalid.
   */
  async install(pkg: SkillPackage): Promise<InstalledSkill[]> {
    const roots = skillRoots(pkg.files);
    if (roots.length === 0) {
      throw new PluginError(
        "?",
        `Cannot install "${pkg.source}": it holds no SKILL.md (at its root or in skills/<name>/)`,
      );
    }
    const parsed = await Promise.all(roots.map(async (root) => {
      const text = new TextDecoder().decode(pkg.files.get(join(root, "SKILL.md"))!);
      const skill = await parseSkill(text, pkg.source);
      checkName("skill", skill.name, {
        pattern: { test: SKILL_NAME, expected: "lowercase letters, digits, - or _" },
      });
      return { root, skill };
    }));
    await Deno.mkdir(this.#o.dir, { recursive: true, mode: 0o700 });
    const installed: InstalledSkill[] = [];
    for (const { root, skill } of parsed) {
      const files = filesUnder(pkg.files, root);
      await this.#place(skill.name, files, {
        source: pkg.source,
        integrity: pkg.integrity,
        installedAt: this.#o.clock.now(),
      });
      const loaded = await this.#read(skill.name);
      this.#o.library.add(loaded);
      this.#o.logger.info("Skill installed", { skill: skill.name, source: pkg.source });
      installed.push(this.list().find((s) => s.name === skill.name)!);
    }
    return installed;
  }

  /** Delete skill `name`'s folder and take it out of the library. Throws when there is none. */
  async remove(name: string): Promise<void> {
    checkName("skill", name, { pattern: { test: SKILL_NAME, expected: "a skill name" } });
    const path = join(this.#o.dir, name);
    const info = await Deno.lstat(path).catch(() => undefined);
    if (!info?.isDirectory) {
      throw new PluginError("?", `No skill "${name}" is installed in "${this.#o.dir}"`);
    }
    await Deno.remove(path, { recursive: true });
    if (this.#o.library.get(name)?.dir === path) this.#o.library.remove(name);
    this.#o.logger.info("Skill removed", { skill: name });
  }

  async #folders(): Promise<string[]> {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(this.#o.dir));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return [];
      throw error;
    }
    await this.#recover(entries);
    return entries.filter((e) => e.isDirectory && SKILL_NAME.test(e.name)).map((e) => e.name)
      .sort();
  }

  /** Finish or undo what a killed install left: staging removed, a set-aside version restored. */
  async #recover(entries: Deno.DirEntry[]): Promise<void> {
    for (const entry of entries) {
      const path = join(this.#o.dir, entry.name);
      if (entry.name.startsWith(STAGING)) await Deno.remove(path, { recursive: true });
      if (!entry.name.startsWith(REPLACED)) continue;
      const name = entry.name.slice(REPLACED.length).replace(/-[0-9a-f]{8}$/, "");
      const target = join(this.#o.dir, name);
      if (!SKILL_NAME.test(name) || await exists(target)) {
        await Deno.remove(path, { recursive: true });
      } else await Deno.rename(path, target);
      this.#o.logger.warn("Cleaned up after an interrupted skill install", { folder: entry.name });
    }
  }

  async #read(name: string): Promise<Skill> {
    const dir = join(this.#o.dir, name);
    const file = join(dir, "SKILL.md");
    const size = (await Deno.stat(file)).size;
    if (size > MAX_SKILL_MD) {
      throw new RangeError(`SKILL.md is ${size} bytes, over ${MAX_SKILL_MD}`);
    }
    const skill = await parseSkill(await Deno.readTextFile(file), name);
    if (skill.name !== name) {
      throw new PluginError(name, `Folder "${name}" holds skill "${skill.name}"; names must match`);
    }
    const record = await Deno.readTextFile(join(dir, RECORD)).then(JSON.parse, () => undefined);
    const files = (await walk(dir)).map((p) => relative(dir, p))
      .filter((p) => p !== "SKILL.md" && p !== RECORD).sort();
    return {
      ...skill,
      dir,
      files,
      source: typeof record?.source === "string" ? record.source : "home",
      integrity: typeof record?.integrity === "string" ? record.integrity : undefined,
    };
  }

  async #place(name: string, files: Map<string, Uint8Array>, record: object): Promise<void> {
    const id = crypto.randomUUID().slice(0, 8);
    const staging = join(this.#o.dir, `${STAGING}${name}-${id}`);
    try {
      await Deno.mkdir(staging, { mode: 0o700 });
      for (const [path, data] of files) {
        await Deno.mkdir(dirname(join(staging, path)), { recursive: true, mode: 0o700 });
        await Deno.writeFile(join(staging, path), data, { mode: 0o600 });
      }
      await Deno.writeTextFile(join(staging, RECORD), JSON.stringify(record) + "\n", {
        mode: 0o600,
      });
    } catch (error) {
      await Deno.remove(staging, { recursive: true }).catch(() => {});
      throw error;
    }
    const target = join(this.#o.dir, name);
    const aside = join(this.#o.dir, `${REPLACED}${name}-${id}`);
    const hadOld = await Deno.rename(target, aside).then(() => true, (error) => {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    });
    await Deno.rename(staging, target);
    if (hadOld) await Deno.remove(aside, { recursive: true });
  }
}

/**
 * Folders of `files` holding a SKILL.md: "." for the root; else each `skills/<x>` (packages of
 * several skills); else each top-level folder that holds one.
 */
function skillRoots(files: Map<string, Uint8Array>): string[] {
  if (files.has("SKILL.md")) return ["."];
  const under = (pattern: RegExp) =>
    [...files.keys()].filter((p) => pattern.test(p)).map((p) => dirname(p)).sort();
  const nested = under(/^skills\/[^/]+\/SKILL\.md$/);
  return nested.length > 0 ? nested : under(/^(?!node_modules\/)[^/]+\/SKILL\.md$/);
}

/** The files under `root`, relative to it, minus node_modules and our own record's name. */
function filesUnder(files: Map<string, Uint8Array>, root: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const [path, data] of files) {
    const rel = root === "."
      ? path
      : path.startsWith(`${root}/`)
      ? path.slice(root.length + 1)
      : "";
    if (rel === "" || rel === RECORD || rel.split("/").includes("node_modules")) continue;
    out.set(rel, data);
  }
  return out;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) out.push(...await walk(path));
    else if (entry.isFile) out.push(path);
  }
  return out;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** What a skill package holds, one line each, for the owner to confirm before installing. */
export async function reviewSkillPackage(pkg: SkillPackage): Promise<string[]> {
  const roots = skillRoots(pkg.files);
  const lines = [
    `Skill package ${pkg.source}${pkg.integrity ? ` (${pkg.integrity.slice(0, 23)}…)` : ""}`,
    `  ${pkg.files.size} files; a skill is instructions the model reads: none of its files is run`,
  ];
  for (const root of roots) {
    try {
      const skill = await parseSkill(
        new TextDecoder().decode(pkg.files.get(join(root, "SKILL.md"))!),
      );
      lines.push(`  skill "${skill.name}": ${skill.description.slice(0, 160)}`);
    } catch (error) {
      lines.push(`! ${root}/SKILL.md: ${errorMessage(error)}`);
    }
  }
  if (roots.length === 0) lines.push("! it holds no SKILL.md: nothing to install");
  return lines;
}
