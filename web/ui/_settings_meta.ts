/**
 * What the settings page knows about a key beyond the registry: which group it belongs to, its
 * label and help in the page's language, its unit, and a value in words ("= 1 h").
 */
import { SETTING_TEXT } from "./_text_settings.ts";
import { lang, num, t, type TextKey } from "./_i18n.ts";

/** One setting as GET /api/v1/settings lists it. */
export interface Setting {
  key: string;
  /** The definition's key or pattern (`core.llm.sources.*.model`). */
  pattern: string;
  value: unknown;
  default: unknown;
  description: string;
  secret: boolean;
  restart: boolean;
  isDefault: boolean;
  source: "default" | "stored" | "env";
  type: "boolean" | "number" | "string" | "json";
  /** What a value looks like, in the registry's words. */
  expected?: string;
  choices?: string[];
  min?: number;
  max?: number;
  integer?: boolean;
  problem?: string;
}

/** The page's groups, in the order shown. */
export const GROUPS = ["llm", "assistant", "memory", "plugins", "web", "advanced"] as const;
/** A group of settings. */
export type Group = typeof GROUPS[number];

/** The group `key` is shown in (every key is also under "advanced"). */
export function groupOf(key: string): Exclude<Group, "advanced"> {
  if (key.startsWith("core.llm.")) return "llm";
  if (key.startsWith("core.web.")) return "web";
  if (key.startsWith("core.plugins.") || key.startsWith("plugin.")) return "plugins";
  if (key.startsWith("core.memory.") || /^core\.agent\.(embedding|max_context_size)/.test(key)) {
    return "memory";
  }
  return "assistant";
}

/** The source, server or plugin a key belongs to (`core.llm.sources.NAME.x` → NAME). */
export function ownerOf(key: string): string | undefined {
  return /^core\.llm\.sources\.([^.]+)\./.exec(key)?.[1] ??
    /^plugin\.mcp\.servers\.([^.]+)\./.exec(key)?.[1] ??
    /^(?:plugin|core\.plugins)\.([^.]+)\./.exec(key)?.[1];
}

type Catalogue = Record<string, readonly [string, string, string, string]>;

/** Label and one-line help in the page's language; the registry's words for an unknown key. */
export function textOf(s: Pick<Setting, "key" | "pattern" | "description">): {
  label: string;
  help: string;
} {
  const entry = (SETTING_TEXT as Catalogue)[s.pattern];
  if (!entry) return { label: s.key.split(".").at(-1)!.replaceAll("_", " "), help: s.description };
  return lang.value === "zh"
    ? { label: entry[1], help: entry[3] }
    : { label: entry[0], help: entry[2] };
}

/** Units, read from how keys are named. */
const UNITS: [RegExp, TextKey][] = [
  [/(_ms|offload_busy_after)$/, "unitMs"],
  [/_s$/, "unitS"],
  [/_min$/, "unitMin"],
  [/_days$/, "unitDays"],
  [/_mb$/, "unitMb"],
  [/(_bytes|max_bytes)$/, "unitBytes"],
  [/(context_window|token_cap)$/, "unitTokens"],
];

/** The unit of a number setting, in words; undefined for a plain count. */
export function unitOf(key: string): string | undefined {
  const found = UNITS.find(([pattern]) => pattern.test(key));
  return found ? t(found[1]) : undefined;
}

/** A number in bigger units where that reads better: `3600000` ms → "1 h". */
export function inWords(key: string, value: number): string | undefined {
  if (!Number.isFinite(value) || value === 0) return undefined;
  if (/(_ms|offload_busy_after)$/.test(key)) return duration(value / 1000);
  if (/_s$/.test(key)) return duration(value);
  if (/_min$/.test(key)) return duration(value * 60);
  if (/(_bytes|max_bytes)$/.test(key)) return size(value);
  if (/_mb$/.test(key)) return size(value * 2 ** 20);
  return undefined;
}

function duration(seconds: number): string | undefined {
  if (seconds < 60) return undefined;
  if (seconds < 3600) return t("durationMin", { n: num(round(seconds / 60)) });
  if (seconds < 86400) return t("durationH", { n: num(round(seconds / 3600)) });
  return t("durationD", { n: num(round(seconds / 86400)) });
}

function size(bytes: number): string | undefined {
  if (bytes < 1024) return undefined;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${num(round(value))} ${units[unit]}`;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
