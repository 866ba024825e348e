/**
 * Between zod schemas and people: what a schema expects in words, CLI text to a value of the
 * schema's type, and refusal reasons that never echo a secret.
 */
import { z } from "zod";

/** The subset of JSON Schema (as produced by z.toJSONSchema) that is read here. */
export interface JsonSchemaLike {
  type?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchemaLike[];
}

/** JSON Schema of `schema`, or undefined when zod cannot express it. */
export function jsonSchemaOf(schema: z.ZodType): JsonSchemaLike | undefined {
  try {
    return z.toJSONSchema(schema, { unrepresentable: "any" }) as JsonSchemaLike;
  } catch {
    return undefined;
  }
}

/** What a value of `schema` looks like, in words ("an integer between 1 and 100"). */
export function describeExpected(schema: JsonSchemaLike | undefined): string | undefined {
  if (!schema) return undefined;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  if (schema.anyOf) {
    const parts = schema.anyOf.map(describeExpected);
    return parts.every((p) => p !== undefined) ? parts.join(" or ") : undefined;
  }
  switch (schema.type) {
    case "integer":
      return `an integer${describeRange(schema)}`;
    case "number":
      return `a number${describeRange(schema)}`;
    case "boolean":
      return "true or false";
    case "string":
      if (schema.format === "uri") return "a URL";
      return (schema.minLength ?? 0) > 0 ? "a non-empty string" : "a string";
    case "array":
      return "a JSON array";
    case "object":
      return "a JSON object";
  }
  return undefined;
}

function describeRange(schema: JsonSchemaLike): string {
  // z.int() reports the safe-integer bounds; those are not worth saying.
  const bound = (n: number | undefined) =>
    n === undefined || Math.abs(n) >= Number.MAX_SAFE_INTEGER ? undefined : n;
  const min = bound(schema.minimum);
  const max = bound(schema.maximum);
  const above = bound(schema.exclusiveMinimum);
  const below = bound(schema.exclusiveMaximum);
  if (min !== undefined && max !== undefined) return ` between ${min} and ${max}`;
  const parts = [
    min !== undefined ? `at least ${min}` : undefined,
    above !== undefined ? `greater than ${above}` : undefined,
    max !== undefined ? `at most ${max}` : undefined,
    below !== undefined ? `less than ${below}` : undefined,
  ].filter((p) => p !== undefined);
  return parts.length > 0 ? ` ${parts.join(" and ")}` : "";
}

const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * CLI text as a value of the schema's type: numbers, `true`/`false`, JSON for objects and
 * arrays, the plain text otherwise. Text that does not fit stays text, so validation can
 * refuse it with the text quoted.
 */
export function parseText(schema: JsonSchemaLike | undefined, text: string): unknown {
  const types = new Set(
    (schema?.anyOf ?? [schema ?? {}]).map((s) => s.type).filter((t) => t !== undefined),
  );
  const trimmed = text.trim();
  if ((types.has("integer") || types.has("number")) && NUMBER_TEXT.test(trimmed)) {
    return Number(trimmed);
  }
  if (types.has("boolean") && (trimmed === "true" || trimmed === "false")) {
    return trimmed === "true";
  }
  if (types.has("object") || types.has("array")) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return text;
    }
  }
  return text;
}

/** Why `value` was refused, phrased to follow `Cannot set "key": `. */
export function refusalReason(
  error: z.ZodError,
  schema: JsonSchemaLike | undefined,
  value: unknown,
  secret: boolean,
): string {
  const issue = error.issues[0];
  const nested = issue && issue.path.length > 0
    ? ` (at ${issue.path.map(String).join(".")}: ${issue.message})`
    : "";
  // A refinement's message says what it wants; otherwise describe the schema.
  const expected = issue?.code === "custom"
    ? issue.message
    : describeExpected(schema) ?? issue?.message ?? "invalid value";
  const expectation = /^expected\b/i.test(expected) ? expected : `expected ${expected}`;
  return `${expectation}${nested}, got ${showValue(value, secret)}`;
}

/** A value for an error message: JSON, shortened; a secret shows only its kind. */
export function showValue(value: unknown, secret: boolean): string {
  if (value === undefined) return "nothing";
  const type = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  const kind = `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
  if (secret) return `${kind} (secret, not shown)`;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
