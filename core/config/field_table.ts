/**
 * Settings that fill the fields of one typed object (the embedding space, media memory): a
 * table of rows, each a ConfigDefinition and the field it fills, defined and read together so
 * a key and its field cannot drift apart.
 */
import type { ConfigRegistry } from "./registry.ts";
import type { ConfigDefinition } from "./types.ts";

/** A setting and the field of `T` it fills. */
export interface FieldSetting<T> extends Omit<ConfigDefinition, "restart"> {
  field: keyof T & string;
}

/** Define every row of `table`; each takes effect after a restart. Throws when one exists. */
export function defineFieldTable<T>(
  registry: ConfigRegistry,
  table: readonly FieldSetting<T>[],
): void {
  for (const { field: _field, ...definition } of table) {
    registry.define({ ...definition, restart: true });
  }
}

/** The object `table` describes, from the values in effect (its keys must be defined). */
export function readFieldTable<T>(registry: ConfigRegistry, table: readonly FieldSetting<T>[]): T {
  return Object.fromEntries(table.map((k) => [k.field, registry.get(k.key)])) as T;
}

/** The object `table` describes, from its defaults. */
export function fieldTableDefaults<T>(table: readonly FieldSetting<T>[]): T {
  return Object.fromEntries(table.map((k) => [k.field, k.default])) as T;
}
