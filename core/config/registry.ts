/** ConfigRegistry: typed, validated settings over the ConfigStore port (DESIGN.md §3 and §5). */
import { ConfigError, errorMessage } from "../errors.ts";
import type { SourceConfig } from "../llm/sources.ts";
import type { Clock, ConfigStore, Logger } from "../ports.ts";
import {
  type ConfigDefinition,
  type ConfigDescription,
  type ConfigEntry,
  type ConfigListener,
  type ConfigListOptions,
  type ConfigRegistryOptions,
  type ConfigSource,
  SECRET_MASK,
} from "./types.ts";
import {
  instantiate,
  matchPattern,
  mayHavePrefix,
  parsePattern,
  patternPrefix,
  tableOf,
  unknownKey,
} from "./_keys.ts";
import { describeExpected, type JsonSchemaLike, parseText, refusalReason } from "./_schema_text.ts";
import { type Definition, definitionOf } from "./_definition.ts";
import {
  buildSource,
  orderSources,
  type OverlayValue,
  parseOrder,
  readEnvOverlay,
  SOURCE_PREFIX,
  sourceKey,
  sourceNames,
} from "./llm_sources.ts";

interface Resolved {
  value: unknown;
  source: ConfigSource;
  problem?: string;
}

/**
 * Typed settings: owners define keys with a zod schema and a default; values live in the
 * store as JSON, `core.*` in table `config` and `plugin.<name>.*` in `config_<name>`.
 * get() never throws for a bad stored value (it warns and uses the default); get/set/unset
 * throw ConfigError for unknown keys and refused values; store failures propagate.
 */
export class ConfigRegistry {
  #store: ConfigStore;
  #clock: Clock;
  #logger: Logger;
  #command: string;
  #exact = new Map<string, Definition>();
  #patterns: Definition[] = [];
  // Key → its definition and table: every turn reads settings, so a lookup must not re-split
  // the key and scan the patterns each time. Cleared when a definition is added.
  #lookups = new Map<string, { definition: Definition; table: string }>();
  #listeners = new Set<ConfigListener>();
  #overlay: Map<string, OverlayValue>;
  #warned = new Map<string, Set<string>>();

  constructor(options: ConfigRegistryOptions) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#command = options.command ?? "homeagent";
    this.#overlay = readEnvOverlay(options.env ?? {}, options.logger);
  }

  /**
   * Declare a key or `*` pattern. Throws TypeError for a duplicate, or for a default that does
   * not validate: here for a schema given built, on the key's first use for one given as a
   * function (built then: ~300 keys are defined at every start, most never read).
   */
  define<T>(definition: ConfigDefinition<T>): void {
    const { key } = definition;
    if (this.#exact.has(key) || this.#patterns.some((d) => d.key === key)) {
      throw new TypeError(`Config key "${key}" is already defined`);
    }
    tableOf(key, true);
    const entry = definitionOf(definition);
    if (typeof definition.schema !== "function") void entry.default; // checked now
    if (key.split(".").includes("*")) {
      entry.pattern = parsePattern(key);
      this.#patterns.push(entry);
    } else this.#exact.set(key, entry);
    this.#lookups.clear();
  }

  /** Whether `key` (a full key or a pattern) has a definition. */
  isDefined(key: string): boolean {
    return this.#exact.has(key) || this.#patterns.some((d) => d.key === key);
  }

  /** The value in effect: environment overlay, else a valid stored value, else the default. */
  get<T>(key: string): T {
    return this.#resolve(key, this.#definition(key)).value as T;
  }

  /** Validate and store `value`. Throws ConfigError naming the key and the reason. */
  set(key: string, value: unknown): void {
    const definition = this.#definition(key);
    this.#refuseOverlaid(key, "set");
    const parsed = definition.schema.safeParse(value);
    if (!parsed.success) {
      const reason = refusalReason(parsed.error, definition.jsonSchema, value, definition.secret);
      throw new ConfigError(key, `Cannot set "${key}": ${reason}`, { cause: parsed.error });
    }
    const json = JSON.stringify(parsed.data) as string | undefined;
    if (json === undefined) {
      throw new ConfigError(key, `Cannot set "${key}": the value cannot be stored as JSON`);
    }
    this.#store.set(tableOf(key), key, json, this.#clock.now());
    this.#changed(key);
  }

  /** set() for CLI text, read per the schema's type: number, true/false, JSON, or plain text. */
  setFromText(key: string, text: string): void {
    this.set(key, parseText(this.#definition(key).jsonSchema, text));
  }

  /** Forget the stored value so the default applies again. */
  unset(key: string): void {
    this.#definition(key);
    this.#refuseOverlaid(key, "unset");
    this.#store.delete(tableOf(key), key);
    this.#changed(key);
  }

  /** Every defined key under `prefix` (pattern keys once per stored instance), sorted by key. */
  list(prefix = "", options: ConfigListOptions = {}): ConfigEntry[] {
    const entries = new Map<string, Definition>();
    for (const [key, definition] of this.#exact) {
      if (key.startsWith(prefix)) entries.set(key, definition);
    }
    for (const definition of this.#patterns) {
      // Only patterns whose keys can fall under `prefix` are looked up: each lookup reads the
      // stored keys, and `plugin list` (every plugin's `plugin.<name>.`) asked them all.
      if (!mayHavePrefix(definition.pattern!, prefix)) continue;
      for (const name of this.#instances(definition)) {
        const key = instantiate(definition.pattern!, name);
        if (!entries.has(key)) entries.set(key, definition);
      }
    }
    return [...entries].filter(([key]) => key.startsWith(prefix))
      .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
      .map(([key, definition]) => this.#entry(key, definition, options.reveal ?? false));
  }

  /** The definition behind `key` (a key or its pattern). Throws ConfigError when unknown. */
  describe(key: string): ConfigDescription {
    const definition = this.#exact.get(key) ?? this.#patterns.find((d) => d.key === key) ??
      this.#definition(key);
    return describeDefinition(definition);
  }

  /** Every definition whose key or pattern starts with `prefix`, sorted by key. */
  definitions(prefix = ""): ConfigDescription[] {
    return [...this.#exact.values(), ...this.#patterns]
      .filter((d) => d.key.startsWith(prefix))
      .sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
      .map(describeDefinition);
  }

  /** Subscribe to changes; returns the unsubscribe function. Listener errors are logged. */
  onChange(listener: ConfigListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Enabled LLM sources in use order (needs registerCoreDefaults). */
  llmSources(): SourceConfig[] {
    return this.allLlmSources().filter((source) => source.enabled);
  }

  /** Every LLM source with a base URL or model, disabled ones included, in use order. */
  allLlmSources(): SourceConfig[] {
    const rows = this.#store.list("config", SOURCE_PREFIX);
    const sources = sourceNames(rows, this.#overlay.keys())
      .flatMap((name) => buildSource(name, (field) => this.get(sourceKey(name, field))) ?? []);
    const order = this.get<string>("core.llm.order");
    const { ordered, unknown } = orderSources(sources, parseOrder(order));
    if (unknown.length > 0) {
      this.#warnOnce(
        "core.llm.order",
        `unknown:${unknown.join(",")}`,
        () =>
          this.#logger.warn("core.llm.order names sources that are not configured", {
            key: "core.llm.order",
            names: unknown,
          }),
      );
    }
    return ordered;
  }

  #definition(key: string): Definition {
    return this.#lookup(key).definition;
  }

  #lookup(key: string): { definition: Definition; table: string } {
    const cached = this.#lookups.get(key);
    if (cached) return cached;
    const table = tableOf(key);
    const definition = this.#exact.get(key) ??
      this.#patterns.find((d) => matchPattern(d.pattern!, key) !== undefined);
    if (!definition) {
      throw unknownKey(key, this.#exact.keys(), {
        patterns: this.#patterns.map((d) => d.pattern!),
        command: this.#command,
      });
    }
    const found = { definition, table };
    this.#lookups.set(key, found);
    return found;
  }

  #resolve(key: string, definition: Definition): Resolved {
    let problem: string | undefined;
    const overlay = this.#overlay.get(key);
    if (overlay) {
      const parsed = definition.schema.safeParse(overlay.value);
      if (parsed.success) return { value: parsed.data, source: "env" };
      problem = `${overlay.variable}: ${
        refusalReason(parsed.error, definition.jsonSchema, overlay.value, definition.secret)
      }`;
      this.#warnOnce(
        key,
        `env:${overlay.value}`,
        () =>
          this.#logger.warn("Environment config value is invalid; using the default", {
            key,
            variable: overlay.variable,
            reason: problem,
          }),
      );
    }
    const row = this.#store.get(this.#lookup(key).table, key);
    if (row) {
      const stored = decode(row.value);
      if (stored.ok) {
        const parsed = definition.schema.safeParse(stored.value);
        if (parsed.success) return { value: parsed.data, source: "stored" };
        problem = refusalReason(
          parsed.error,
          definition.jsonSchema,
          stored.value,
          definition.secret,
        );
      } else {
        // JSON.parse quotes the text it choked on: keep secrets out of the log.
        problem = definition.secret
          ? "stored text is not valid JSON"
          : `stored text is not valid JSON (${stored.reason})`;
      }
      this.#warnOnce(
        key,
        `stored:${row.value}`,
        () =>
          this.#logger.warn("Stored config value is invalid; using the default", {
            key,
            reason: problem,
            table: tableOf(key),
          }),
      );
    }
    return { value: structuredClone(definition.default), source: "default", problem };
  }

  #entry(key: string, definition: Definition, reveal: boolean): ConfigEntry {
    const resolved = this.#resolve(key, definition);
    const mask = (value: unknown) =>
      definition.secret && !reveal && value !== "" && value !== undefined ? SECRET_MASK : value;
    return {
      key,
      value: mask(resolved.value),
      default: mask(definition.default),
      description: definition.description,
      secret: definition.secret,
      restart: definition.restart,
      isDefault: JSON.stringify(resolved.value) === JSON.stringify(definition.default),
      source: resolved.source,
      ...(resolved.problem !== undefined ? { problem: resolved.problem } : {}),
    };
  }

  /** Instance names of a pattern: those with any key stored (or overlaid) under its prefix. */
  #instances(definition: Definition): string[] {
    const prefix = patternPrefix(definition.pattern!);
    const siblings = this.#patterns.filter((d) => patternPrefix(d.pattern!) === prefix);
    const keys = [
      ...this.#overlay.keys(),
      ...this.#store.list(tableOf(definition.key, true), prefix).map((row) => row.key),
    ];
    const names = keys.flatMap((key) =>
      siblings.map((d) => matchPattern(d.pattern!, key)).filter((n) => n !== undefined)
    );
    return [...new Set(names)];
  }

  #refuseOverlaid(key: string, action: string): void {
    const overlay = this.#overlay.get(key);
    if (!overlay) return;
    throw new ConfigError(
      key,
      `Cannot ${action} "${key}": it comes from ${overlay.variable}; change that variable ` +
        `and restart, or configure a source under another name`,
    );
  }

  #changed(key: string): void {
    this.#warned.delete(key);
    for (const listener of [...this.#listeners]) {
      try {
        listener(key);
      } catch (error) {
        this.#logger.error("Config change listener failed", { key, error: errorMessage(error) });
      }
    }
  }

  /** Warn once per key and distinct bad value, so a hot get() does not flood the log. */
  #warnOnce(key: string, signature: string, warn: () => void): void {
    const seen = this.#warned.get(key) ?? new Set<string>();
    if (seen.has(signature)) return;
    this.#warned.set(key, seen.add(signature));
    warn();
  }
}

function describeDefinition(definition: Definition): ConfigDescription {
  const expected = describeExpected(definition.jsonSchema);
  const { secret } = definition;
  return {
    key: definition.key,
    description: definition.description,
    default: secret && definition.default !== ""
      ? SECRET_MASK
      : structuredClone(definition.default),
    secret,
    restart: definition.restart,
    ...(expected !== undefined ? { expected } : {}),
    ...(definition.jsonSchema ? { schema: withoutMeta(definition.jsonSchema) } : {}),
  };
}

/** The schema without `$schema` and a secret-revealing `default` (zod copies defaults in). */
function withoutMeta(schema: JsonSchemaLike): Record<string, unknown> {
  const { $schema: _, default: __, ...rest } = schema as Record<string, unknown>;
  return rest;
}

function decode(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: errorMessage(error) };
  }
}
