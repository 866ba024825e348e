/**
 * `defineTool`: a tool whose arguments are one zod object. The JSON Schema the model reads is
 * derived from it (kept minimal: every schema token is paid on every call), the same schema
 * checks the arguments before the call, and the handler gets them parsed and typed.
 */
import { z } from "zod";
import type { JsonSchema } from "../llm/provider.ts";
import type { RegisteredTool, ToolContext, ToolDef, ToolResult } from "./tools.ts";

/** What defineTool takes: a ToolDef with a zod `input` in place of `parameters` and `handler`. */
export interface ToolSpec<S extends z.ZodObject>
  extends Omit<ToolDef, "parameters" | "handler" | "check"> {
  /** Owning plugin; default "core". */
  plugin?: string;
  /**
   * The arguments object. Unknown keys are dropped (z.object) unless it is a z.strictObject.
   * Best given as a function that builds it: called on the tool's first use (a call, or the
   * first request that sends it), since building the ~80 tools' schemas at every start cost
   * zod ~10 ms of it (docs/benchmarks.md).
   */
  input: S | (() => S);
  /** Called with the arguments parsed by `input` (defaults applied, transforms run). */
  handler(
    args: z.output<S>,
    context: ToolContext,
  ): Promise<string | ToolResult> | string | ToolResult;
}

/**
 * The RegisteredTool of `spec`. Its handler parses the arguments it is given (also when a
 * before_toolcall stage rewrote them) and answers bad ones with an error result.
 */
export function defineTool<S extends z.ZodObject>(spec: ToolSpec<S>): RegisteredTool {
  const { input: given, handler, plugin, ...rest } = spec;
  let built: S | undefined;
  const input = () => built ??= typeof given === "function" ? given() : given;
  const check = (args: Record<string, unknown>) => {
    const parsed = input().safeParse(args, { error: missingAsRequired });
    return parsed.success ? undefined : issuesText(parsed.error.issues);
  };
  return {
    ...rest,
    plugin: plugin ?? "core",
    // Derived on first use (the first request that sends the tool): converting the ~80 tools
    // the daemon registers cost ~25 ms of every start (docs/benchmarks.md).
    get parameters() {
      return toolJsonSchema(input());
    },
    check,
    handler: (args, context) => {
      const parsed = input().safeParse(args, { error: missingAsRequired });
      if (!parsed.success) {
        const problems = issuesText(parsed.error.issues);
        return { content: `Invalid arguments for "${spec.name}": ${problems}`, isError: true };
      }
      return handler(parsed.data, context);
    },
  };
}

/** Derived schemas by zod object: a tool list rebuilt every round converts each schema once. */
const schemas = new WeakMap<z.ZodObject, JsonSchema>();

/**
 * The JSON Schema of a zod object as the model should see it: what it may send, no noise.
 * Cached per schema object (keep a tool's `input` in a module constant when the tool is
 * rebuilt often); the same object is returned each time, so treat it as read-only.
 */
export function toolJsonSchema(input: z.ZodObject): JsonSchema {
  let schema = schemas.get(input);
  if (!schema) {
    const full = z.toJSONSchema(input, { io: "input", target: "draft-2020-12" });
    delete full.$schema;
    schema = prune(full) as JsonSchema;
    schemas.set(input, schema);
  }
  return schema;
}

/** Drops what zod writes but says nothing: safe-integer bounds, a record's `{}` and string keys. */
function prune(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(prune);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if ((key === "minimum" || key === "maximum") && Math.abs(Number(item)) === SAFE) continue;
    if (key === "propertyNames" && isStringType(item)) continue;
    if (key === "additionalProperties" && isEmpty(item)) continue;
    out[key] = prune(item);
  }
  return out;
}

const SAFE = Number.MAX_SAFE_INTEGER;

function isStringType(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length === 1 &&
    (value as { type?: unknown }).type === "string";
}

function isEmpty(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length === 0;
}

/** A missing property reads "Required", not "expected string, received undefined". */
function missingAsRequired(issue: z.core.$ZodRawIssue): string | undefined {
  return issue.code === "invalid_type" && issue.input === undefined ? "Required" : undefined;
}

/** `keywords: Too small: expected array to have >=1 items; triples[0].object: Required`. */
function issuesText(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${pathText(issue.path)}: ${issue.message}`).join("; ");
}

function pathText(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(arguments)";
  return path.map((part, i) =>
    typeof part === "number" ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`
  ).join("");
}
