/**
 * The skills of one home (`<home>/skills`) with their installer: npm packages from
 * core.plugins.npm_registry, ClawHub skills from plugin.clawhubadapter.download_url. The daemon
 * loads them before the plugins start; `plugin install npm:…` without a daemon uses the same.
 */
import type { Clock, Logger } from "../../../core/mod.ts";
import { SkillLibrary } from "../../host/skill.ts";
import { HomeSkills, reviewSkillPackage } from "../../host/skills_home.ts";
import { createSkillInstaller, type SkillInstaller, type SkillSources } from "./installer.ts";

/** Options of openHomeSkills. */
export interface HomeSkillsSetup {
  /** `<home>/skills`. */
  dir: string;
  config: { get<T = unknown>(key: string): T };
  clock: Clock;
  logger: Logger;
  /** The registry's library (the daemon); default a library of its own. */
  library?: SkillLibrary;
  /** Read the installed skills into the library now; default true (an install alone: false). */
  load?: boolean;
}

/** The home's skills, their installer, and what the web page and the CLI socket call. */
export interface OpenedHomeSkills {
  home: HomeSkills;
  installer: SkillInstaller;
  /** Install exactly the reviewed package (rejects when the source now serves another). */
  installPinned(source: string, integrity?: string): ReturnType<HomeSkills["install"]>;
  /** The web app's skills port. */
  port: {
    list(): ReturnType<HomeSkills["list"]>;
    review(source: string): Promise<{ source: string; integrity?: string; lines: string[] }>;
    install(source: string, integrity?: string): ReturnType<HomeSkills["install"]>;
    remove(name: string): Promise<void>;
  };
}

/** Where skill packages come from, read from the settings at each fetch. */
export function skillSources(config: HomeSkillsSetup["config"]): SkillSources {
  return {
    npmRegistry: () => config.get<string>("core.plugins.npm_registry"),
    clawhubDownloadUrl: () => config.get<string>("plugin.clawhubadapter.download_url"),
  };
}

/** Load the home's skills into the library and make their installer. */
export async function openHomeSkills(setup: HomeSkillsSetup): Promise<OpenedHomeSkills> {
  const home = new HomeSkills({
    dir: setup.dir,
    library: setup.library ?? new SkillLibrary(),
    logger: setup.logger.child({ component: "skills" }),
    clock: setup.clock,
  });
  if (setup.load ?? true) await home.load();
  const installer = createSkillInstaller({ skills: home, sources: skillSources(setup.config) });
  const installPinned = (source: string, integrity?: string) =>
    installer.install(source, { integrity });
  return {
    home,
    installer,
    installPinned,
    port: {
      list: () => home.list(),
      review: async (source) => {
        const pkg = await installer.fetch(source);
        return {
          source: pkg.source,
          integrity: pkg.integrity,
          lines: await reviewSkillPackage(pkg),
        };
      },
      install: installPinned,
      remove: (name) => home.remove(name),
    },
  };
}
