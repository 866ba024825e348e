/**
 * Installing skills by source, whoever asks (the CLI, the web panel, the clawhubadapter tools):
 * `npm:<package>[@version]` from the npm registry (sha512 integrity verified), or
 * `clawhub:<slug>[@version]` (a bare slug too) from the configured ClawHub download URL.
 */
import { PluginError } from "../../../core/mod.ts";
import {
  type HomeSkills,
  type InstalledSkill,
  npmSkillPackage,
  type SkillPackage,
} from "../../host/mod.ts";
import { downloadClawHub } from "./clawhub.ts";

/** Where packages come from, read at each install (settings may change). */
export interface SkillSources {
  npmRegistry(): string;
  clawhubDownloadUrl(): string;
}

/** Fetches, verifies and installs skill packages. */
export interface SkillInstaller {
  /** Fetch and verify `source` without installing (for the owner's review). */
  fetch(source: string, options?: { integrity?: string }): Promise<SkillPackage>;
  /** Fetch, verify and install; `integrity` pins what the owner reviewed. */
  install(source: string, options?: { integrity?: string }): Promise<InstalledSkill[]>;
}

/** Options of createSkillInstaller. */
export interface SkillInstallerOptions {
  skills: HomeSkills;
  sources: SkillSources;
  fetch?: typeof fetch;
}

/** A SkillInstaller over one home's skills. */
export function createSkillInstaller(options: SkillInstallerOptions): SkillInstaller {
  const fetchPackage = (source: string, pin: { integrity?: string } = {}) =>
    source.startsWith("npm:")
      ? npmSkillPackage(source, {
        registry: options.sources.npmRegistry(),
        fetch: options.fetch,
        integrity: pin.integrity,
      })
      : downloadClawHub(options.sources.clawhubDownloadUrl(), source, { fetch: options.fetch });
  return {
    fetch: fetchPackage,
    install: async (source, pin = {}) => {
      const pkg = await fetchPackage(source, pin);
      if (pin.integrity !== undefined && pkg.integrity !== pin.integrity) {
        throw new PluginError(
          "?",
          `Cannot install "${source}": it is no longer the package that was reviewed ` +
            `(${pin.integrity.slice(0, 20)}…, now ${pkg.integrity?.slice(0, 20) ?? "none"}…)`,
        );
      }
      return await options.skills.install(pkg);
    },
  };
}
