/** The ConfigRegistry's public types. */
import type { z } from "zod";
import type { Clock, ConfigStore, Logger } from "../ports.ts";

/** Where a value in effect comes from. */
export type ConfigSource = "default" | "stored" | "env";

/** A setting declared by its owner; refinement messages should read "expected …". */
export interface ConfigDefinition<T = unknown> {
  /** Full key (`core.agent.max_tool_turns`) or a pattern with one `*` segment. */
  key: string;
  /**
   * The value's schema, best given as a function that builds it: called on the key's first use
   * (a read of a stored value, a set, `config list`), since most keys are never read.
   */
  schema: z.ZodType<T> | (() => z.ZodType<T>);
  /** Must validate against `schema`. */
  default: T;
  description: string;
  /** Masked in list() unless revealed, and never echoed in error messages. */
  secret?: boolean;
  /** A change takes effect only after a restart. */
  restart?: boolean;
}

/** One setting as list() reports it. */
export interface ConfigEntry {
  key: string;
  value: unknown;
  default: unknown;
  description: string;
  secret: boolean;
  restart: boolean;
  /** The value in effect equals the default (whatever its source). */
  isDefault: boolean;
  source: ConfigSource;
  /** Why a stored or environment value was ignored in favour of the default. */
  problem?: string;
}

/** A definition as describe() and definitions() report it; a secret's default is masked. */
export interface ConfigDescription {
  /** The key, or the pattern (`core.llm.sources.*.api_key`) it was defined as. */
  key: string;
  description: string;
  default: unknown;
  secret: boolean;
  restart: boolean;
  /** What a value looks like, in words ("an integer between 1 and 100"), when it can be said. */
  expected?: string;
  /** The JSON Schema of a value, when zod can express it. */
  schema?: Record<string, unknown>;
}

/** Options of list(). */
export interface ConfigListOptions {
  /** Show secret values instead of a mask. */
  reveal?: boolean;
}

/** Called after a successful set or unset with the key that changed. */
export type ConfigListener = (key: string) => void;

/** Collaborators of a ConfigRegistry. */
export interface ConfigRegistryOptions {
  store: ConfigStore;
  clock: Clock;
  logger: Logger;
  /** Environment read once, for the HOMEAGENT_LLM_* shortcut; never written to the store. */
  env?: Record<string, string | undefined>;
  /** How the owner runs the command line, named in hints (default `homeagent`). */
  command?: string;
}

/** What list() shows instead of a secret. */
export const SECRET_MASK = "********";
