/** A setting as the registry holds it (registry.ts): each part made on its first use. */
import type { z } from "zod";
import type { ConfigDefinition } from "./types.ts";
import type { KeyPattern } from "./_keys.ts";
import { type JsonSchemaLike, jsonSchemaOf } from "./_schema_text.ts";

/** One defined key or pattern. */
export interface Definition {
  key: string;
  readonly schema: z.ZodType<unknown>;
  readonly default: unknown;
  description: string;
  secret: boolean;
  restart: boolean;
  readonly jsonSchema: JsonSchemaLike | undefined;
  pattern?: KeyPattern;
}

/** The registry's definition: schema, checked default and JSON Schema each made on first use. */
export function definitionOf<T>(definition: ConfigDefinition<T>): Definition {
  const { key, schema: given } = definition;
  let schema: z.ZodType<unknown> | undefined;
  let checked: { value: unknown } | undefined;
  let jsonSchema: JsonSchemaLike | undefined | null = null;
  return {
    key,
    description: definition.description,
    secret: definition.secret ?? false,
    restart: definition.restart ?? false,
    get schema() {
      return schema ??= typeof given === "function" ? given() : given;
    },
    get default() {
      if (checked === undefined) {
        const parsed = this.schema.safeParse(definition.default);
        if (!parsed.success) {
          throw new TypeError(
            `Default of config key "${key}" does not validate: ${parsed.error.issues[0]?.message}`,
          );
        }
        checked = { value: parsed.data };
      }
      return checked.value;
    },
    // Derived on first use too (a refusal, `config list`, CLI text): converting ~300 keys at
    // every start cost ~15 ms of it.
    get jsonSchema() {
      if (jsonSchema === null) jsonSchema = jsonSchemaOf(this.schema);
      return jsonSchema;
    },
  };
}
