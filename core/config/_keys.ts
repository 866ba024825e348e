/** Config key grammar: namespaces and their tables, `*` patterns, near-miss suggestions. */
import { ConfigError } from "../errors.ts";

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const PLUGIN_NAME = /^[a-z0-9_]{1,64}$/;

/** A definition key with exactly one `*` segment, e.g. `core.llm.sources.*.model`. */
export interface KeyPattern {
  segments: readonly string[];
  /** Index of the `*` segment. */
  wildcard: number;
}

/**
 * The table holding `key`: `config` for `core.*`, `config_<name>` for `plugin.<name>.*`.
 * Throws ConfigError for a malformed key or plugin name.
 */
export function tableOf(key: string, allowWildcard = false): string {
  const segments = key.split(".");
  const bad = segments.find((s) => !SEGMENT.test(s) && !(allowWildcard && s === "*"));
  if (bad !== undefined) {
    throw new ConfigError(
      key,
      `Invalid config key "${key}": segments are letters, digits, "_" or "-", joined by "."`,
    );
  }
  if (segments[0] === "core" && segments.length >= 2) return "config";
  if (segments[0] === "plugin" && segments.length >= 3) {
    const name = segments[1]!;
    if (!PLUGIN_NAME.test(name)) {
      throw new ConfigError(
        key,
        `Invalid plugin name "${name}" in config key "${key}": use 1 to 64 lowercase ` +
          `letters, digits or "_"`,
      );
    }
    return `config_${name}`;
  }
  throw new ConfigError(
    key,
    `Invalid config key "${key}": keys start with "core." or "plugin.<name>."`,
  );
}

/** Parse a definition key holding one `*` (not in the namespace or plugin-name position). */
export function parsePattern(key: string): KeyPattern {
  const segments = key.split(".");
  const wildcard = segments.indexOf("*");
  const minimum = segments[0] === "plugin" ? 2 : 1;
  if (wildcard < minimum || segments.lastIndexOf("*") !== wildcard) {
    throw new TypeError(
      `Invalid config pattern "${key}": use one "*" segment after the namespace`,
    );
  }
  return { segments, wildcard };
}

/** The `*` value when `key` matches `pattern`, else undefined. */
export function matchPattern(pattern: KeyPattern, key: string): string | undefined {
  const segments = key.split(".");
  if (segments.length !== pattern.segments.length) return undefined;
  for (let i = 0; i < segments.length; i++) {
    if (i !== pattern.wildcard && segments[i] !== pattern.segments[i]) return undefined;
  }
  const instance = segments[pattern.wildcard]!;
  return SEGMENT.test(instance) ? instance : undefined;
}

/** The concrete key of `pattern` for the instance `name`. */
export function instantiate(pattern: KeyPattern, name: string): string {
  return pattern.segments.map((s, i) => i === pattern.wildcard ? name : s).join(".");
}

/** The key prefix before the `*`, e.g. `core.llm.sources.`. */
export function patternPrefix(pattern: KeyPattern): string {
  return pattern.segments.slice(0, pattern.wildcard).join(".") + ".";
}

/**
 * Whether some key of `pattern` can start with `prefix`: the key's fixed part before the `*`
 * and `prefix` agree as far as both go (the instance name can then complete the rest).
 */
export function mayHavePrefix(pattern: KeyPattern, prefix: string): boolean {
  const fixed = patternPrefix(pattern);
  return fixed.startsWith(prefix) || prefix.startsWith(fixed);
}

/** The ConfigError for an undefined key, suggesting a near-miss among the defined ones. */
export function unknownKey(
  key: string,
  exact: Iterable<string>,
  options: { patterns: readonly KeyPattern[]; command: string },
): ConfigError {
  const { patterns, command } = options;
  const known = [
    ...exact,
    ...patterns.map((pattern) => {
      const name = key.split(".")[pattern.wildcard];
      return instantiate(pattern, name ?? "*");
    }),
  ];
  const near = closestKey(key, known);
  const hint = near
    ? `did you mean "${near}"?`
    : `run "${command} config list" to see the known keys`;
  return new ConfigError(key, `Unknown config key "${key}": ${hint}`);
}

function closestKey(key: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(key.length / 6)) + 1;
  for (const candidate of known) {
    const distance = editDistance(key, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, previous[j]! + 1, current[j - 1]! + 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
