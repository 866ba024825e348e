/** LLM sources over config keys: the environment shortcut and the source order (DESIGN.md §5). */
import type { SourceConfig } from "../llm/sources.ts";
import type { ConfigRow, Logger } from "../ports.ts";

/** Name of the source that the HOMEAGENT_LLM_* environment shortcut defines. */
export const ENV_SOURCE_NAME = "env";

/** Prefix of every per-source key: `core.llm.sources.<name>.<field>`. */
export const SOURCE_PREFIX = "core.llm.sources.";

/** A config value taken from an environment variable instead of the store. */
export interface OverlayValue {
  value: string;
  variable: string;
}

const BASE_URL = "HOMEAGENT_LLM_BASE_URL";
const MODEL = "HOMEAGENT_LLM_MODEL";
const SHORTCUT: ReadonlyArray<readonly [variable: string, field: string]> = [
  [BASE_URL, "base_url"],
  [MODEL, "model"],
  ["HOMEAGENT_LLM_API_KEY", "api_key"],
  ["HOMEAGENT_LLM_ADAPTER", "adapter"],
];

/**
 * The env shortcut as overlay values keyed by config key. Base URL and model are both
 * required; with only some variables set it warns, naming the missing ones, and defines nothing.
 */
export function readEnvOverlay(
  env: Record<string, string | undefined>,
  logger: Logger,
): Map<string, OverlayValue> {
  const overlay = new Map<string, OverlayValue>();
  const given = SHORTCUT.filter(([variable]) => (env[variable]?.trim() ?? "") !== "");
  if (given.length === 0) return overlay;
  const missing = [BASE_URL, MODEL].filter((v) => !given.some(([variable]) => variable === v));
  if (missing.length > 0) {
    logger.warn(
      `LLM environment shortcut ignored: ${missing.join(" and ")} ${
        missing.length > 1 ? "are" : "is"
      } not set`,
      { missing, given: given.map(([variable]) => variable) },
    );
    return overlay;
  }
  for (const [variable, field] of given) {
    overlay.set(`${SOURCE_PREFIX}${ENV_SOURCE_NAME}.${field}`, {
      value: env[variable]!.trim(),
      variable,
    });
  }
  return overlay;
}

/** The config key of one field of a source. */
export function sourceKey(name: string, field: string): string {
  return `${SOURCE_PREFIX}${name}.${field}`;
}

/** Source names in registration order: the env source first, then by first stored key. */
export function sourceNames(rows: readonly ConfigRow[], overlayKeys: Iterable<string>): string[] {
  const names = new Set<string>();
  for (const key of [...overlayKeys, ...rows.map((row) => row.key)]) {
    const segments = key.slice(SOURCE_PREFIX.length).split(".");
    if (key.startsWith(SOURCE_PREFIX) && segments.length === 2) names.add(segments[0]!);
  }
  return [...names];
}

/** Names in a comma list such as `core.llm.order`, trimmed, blanks and repeats dropped. */
export function parseOrder(text: string): string[] {
  return [...new Set(text.split(",").map((name) => name.trim()).filter((name) => name !== ""))];
}

/** `sources` with the names of `order` first, in that order, then the rest as given. */
export function orderSources(sources: readonly SourceConfig[], order: readonly string[]): {
  ordered: SourceConfig[];
  unknown: string[];
} {
  const byName = new Map(sources.map((source) => [source.name, source]));
  const listed = order.flatMap((name) => byName.get(name) ?? []);
  const rest = sources.filter((source) => !order.includes(source.name));
  return { ordered: [...listed, ...rest], unknown: order.filter((name) => !byName.has(name)) };
}

/** The SourceConfig of `name` read through `field`, or undefined with neither base URL nor model. */
export function buildSource(
  name: string,
  field: (field: string) => unknown,
): SourceConfig | undefined {
  const text = (f: string) => {
    const value = field(f);
    return typeof value === "string" ? value : "";
  };
  const baseUrl = text("base_url");
  const model = text("model");
  if (baseUrl === "" && model === "") return undefined;
  const apiKey = text("api_key");
  const contextWindow = Number(field("context_window"));
  const maxConcurrent = Number(field("max_concurrent"));
  const dailyTokenCap = Number(field("daily_token_cap"));
  const priceInput = Number(field("price_input"));
  const priceOutput = Number(field("price_output"));
  return {
    name,
    adapter: text("adapter"),
    baseUrl,
    ...(apiKey !== "" ? { apiKey } : {}),
    model,
    ...(contextWindow > 0 ? { contextWindow } : {}),
    enabled: field("enabled") !== false,
    // The default (8) is left implicit, as DEFAULT_MAX_CONCURRENT.
    ...(maxConcurrent > 0 && maxConcurrent !== 8 ? { maxConcurrent } : {}),
    ...(field("vision") === true ? { vision: true } : {}),
    ...(field("audio") === true ? { audio: true } : {}),
    ...(dailyTokenCap > 0 ? { dailyTokenCap } : {}),
    ...(priceInput > 0 ? { priceInput } : {}),
    ...(priceOutput > 0 ? { priceOutput } : {}),
  };
}
