/**
 * Names from outside (plugin, skill, knowledge and model names) become folder names, so every
 * command and route checks them here, with one rule, before anything touches the disk: a name
 * is one path segment, never a path.
 */
import { HomeAgentError } from "./errors.ts";

/** What a name names; it appears in the error message. */
export type NameKind = "plugin" | "skill" | "knowledge" | "model" | "entity";

/** Longest name by default, in characters. */
export const MAX_NAME_LENGTH = 64;

/** A name was refused; `why` says which rule it broke. */
export class NameError extends HomeAgentError {
  readonly kind: NameKind;
  /** The refused text. */
  readonly value: string;
  readonly why: string;
  constructor(kind: NameKind, value: string, why: string) {
    super("bad_name", `Invalid ${kind} name ${JSON.stringify(value)}: ${why}`);
    this.kind = kind;
    this.value = value;
    this.why = why;
  }
}

// Control characters (NUL included), slashes, and the characters Windows refuses in names.
// deno-lint-ignore no-control-regex
const FORBIDDEN = /[\u0000-\u001f\u007f/\\:*?"<>|]/;

/**
 * Why `name` cannot be a folder name, or undefined when it can: empty, longer than `max`,
 * `.`/`..` or hidden (a leading dot: the host's own staging folders), a slash, backslash,
 * NUL or other control character, or surrounding spaces.
 */
export function nameProblem(name: string, max = MAX_NAME_LENGTH): string | undefined {
  if (name.length === 0) return "it is empty";
  if (name.length > max) return `it is longer than ${max} characters`;
  const bad = FORBIDDEN.exec(name)?.[0];
  if (bad === "/" || bad === "\\") return `it contains "${bad}" (a name is not a path)`;
  if (bad !== undefined) return `it contains the character ${JSON.stringify(bad)}`;
  if (name === "." || name === "..") return `"${name}" is not a name`;
  if (name.startsWith(".")) return "it starts with a dot";
  if (name.trim() !== name) return "it has surrounding spaces";
  return undefined;
}

/** Options of checkName. */
export interface CheckNameOptions {
  /** Longest allowed; default MAX_NAME_LENGTH. */
  max?: number;
  /** A stricter pattern for this kind, with the words that describe it. */
  pattern?: { test: RegExp; expected: string };
}

/** Return `name` when it is a valid name of `kind`; throws NameError saying why not. */
export function checkName(kind: NameKind, name: unknown, options: CheckNameOptions = {}): string {
  if (typeof name !== "string") throw new NameError(kind, String(name), "it is not text");
  const why = nameProblem(name, options.max);
  if (why) throw new NameError(kind, name, why);
  const pattern = options.pattern;
  if (pattern && !pattern.test.test(name)) {
    throw new NameError(kind, name, `expected ${pattern.expected}`);
  }
  return name;
}

/**
 * Why a "/"-separated name (knowledge entries keep categories as folders: "recipes/tea")
 * cannot be a relative folder path, or undefined: each segment must be a name, and the whole
 * at most `maxTotal` characters.
 */
export function namePathProblem(path: string, maxTotal = 200): string | undefined {
  if (path.length > maxTotal) return `it is longer than ${maxTotal} characters`;
  if (path.startsWith("/")) return "it is an absolute path";
  for (const segment of path.split("/")) {
    const why = nameProblem(segment, maxTotal);
    if (why) return path.includes("/") ? `segment ${JSON.stringify(segment)}: ${why}` : why;
  }
  return undefined;
}

/** Return the segments of a valid "/"-separated name of `kind`; throws NameError. */
export function checkNamePath(kind: NameKind, path: string, maxTotal = 200): string[] {
  const why = namePathProblem(path, maxTotal);
  if (why) throw new NameError(kind, path, why);
  return path.split("/");
}

/** Plugin names: they become config tables (`config_<name>`) and folder names. */
export const PLUGIN_NAME = /^[a-z0-9_]{1,64}$/;

/** Return `name` when it is a valid plugin name; throws NameError. */
export function checkPluginName(name: unknown): string {
  return checkName("plugin", name, {
    pattern: { test: PLUGIN_NAME, expected: "1 to 64 lowercase letters, digits or _" },
  });
}
