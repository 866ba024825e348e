/** Tool definitions, their registry, and safe execution (validation, timeout, isolation). */
import { Validator } from "@cfworker/json-schema";
import type { JsonSchema, ToolCall, ToolSchema } from "../llm/provider.ts";
import { type Clock, type Logger } from "../ports.ts";
import { errorMessage, isAbort } from "../errors.ts";

/** What a tool handler receives besides its arguments. */
export interface ToolContext {
  /** Aborted on timeout, user stop or shutdown; handlers must stop their work when it fires. */
  signal: AbortSignal;
  turnId: string;
  callId: string;
}

/** What a tool returns; a plain string means success. */
export interface ToolResult {
  content: string;
  isError?: boolean;
}

/** A tool the model can call. */
export interface ToolDef {
  name: string;
  description: string;
  /** JSON Schema of the arguments object; arguments are validated against it before the call. */
  parameters: JsonSchema;
  /**
   * Checks the arguments in place of `parameters` (defineTool's zod schema, which the schema
   * was derived from): the problems in words, or undefined when they are fine.
   */
  check?(args: Record<string, unknown>): string | undefined;
  handler(
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<string | ToolResult> | string | ToolResult;
  /** The output is kept verbatim but never vectorised, keyword-indexed or distilled. */
  noMemory?: boolean;
  /** Filters the output before it enters the memory computation layer (never the model's view). */
  cleaner?: (output: string) => string;
  /** Safe to run concurrently with other parallel-safe calls of the same round. */
  parallelSafe?: boolean;
  /** Per-call timeout in ms; the registry default applies when absent. */
  timeoutMs?: number;
  /**
   * Sent with every request, like the `core.tools.always` set (a plugin's one essential tool);
   * other tools reach a small window only through tool_search / tool_load.
   */
  always?: boolean;
}

/** A registered tool with its owner. */
export interface RegisteredTool extends ToolDef {
  /** Owning plugin ("core" for kernel tools). */
  plugin: string;
}

/** The owning plugin implied by a tool name: the part before the first "_" (`qq_send` → `qq`). */
export function inferPlugin(name: string): string {
  const cut = name.indexOf("_");
  return cut > 0 ? name.slice(0, cut) : name;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The tool table: refuses duplicates, tracks owners, validates and executes calls. */
export class ToolRegistry {
  #tools = new Map<string, RegisteredTool>();

  /** Register `def`; the owner is `plugin` when given, else inferred from the name prefix. */
  register(def: ToolDef, plugin?: string): RegisteredTool {
    if (!TOOL_NAME.test(def.name)) {
      throw new TypeError(
        `Cannot register tool "${def.name}": names must match ${TOOL_NAME.source}`,
      );
    }
    const existing = this.#tools.get(def.name);
    if (existing) {
      throw new TypeError(
        `Cannot register tool "${def.name}": already registered by plugin "${existing.plugin}"`,
      );
    }
    const tool = withOwner(def, plugin ?? inferPlugin(def.name));
    this.#tools.set(def.name, tool);
    if (!tool.check) validatorFor(tool); // compile now: a broken schema fails at registration, not mid-turn
    return tool;
  }

  /** Remove one tool; returns whether it existed. */
  unregister(name: string): boolean {
    return this.#tools.delete(name);
  }

  /** Remove every tool owned by `plugin` (hot reload, crash); returns the removed names. */
  unregisterPlugin(plugin: string): string[] {
    const removed = [...this.#tools.values()].filter((t) => t.plugin === plugin).map((t) => t.name);
    for (const name of removed) this.unregister(name);
    return removed;
  }

  /** The tool named `name`, if any. */
  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  /** Every registered tool, in registration order. */
  list(): RegisteredTool[] {
    return [...this.#tools.values()];
  }
}

/** `def` with its owner, its properties copied as they are: a lazy `parameters` stays lazy. */
function withOwner(def: ToolDef, plugin: string): RegisteredTool {
  const own = Object.entries(Object.getOwnPropertyDescriptors(def))
    .filter(([, descriptor]) => descriptor.enumerable);
  const tool = Object.defineProperties({}, Object.fromEntries(own)) as RegisteredTool;
  tool.plugin = plugin;
  return tool;
}

const validators = new WeakMap<JsonSchema, Validator>();

function validatorFor(tool: ToolDef): Validator {
  let validator = validators.get(tool.parameters);
  if (!validator) {
    validator = new Validator(tool.parameters as never, "2020-12", false);
    validators.set(tool.parameters, validator);
  }
  return validator;
}

/** Parse a call's raw JSON arguments and validate them against the tool's schema. */
export function parseToolArguments(
  tool: ToolDef,
  call: ToolCall,
): { ok: true; args: Record<string, unknown> } | { ok: false; error: string } {
  let args: unknown;
  try {
    args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch (error) {
    return {
      ok: false,
      error: `Arguments of "${call.name}" are not valid JSON (${errorMessage(error)})`,
    };
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { ok: false, error: `Arguments of "${call.name}" must be a JSON object` };
  }
  const problems = tool.check
    ? tool.check(args as Record<string, unknown>)
    : schemaProblems(tool, args);
  if (problems !== undefined) {
    return { ok: false, error: `Invalid arguments for "${call.name}": ${problems}` };
  }
  return { ok: true, args: args as Record<string, unknown> };
}

function schemaProblems(tool: ToolDef, args: unknown): string | undefined {
  const result = validatorFor(tool).validate(args);
  if (result.valid) return undefined;
  return result.errors.filter((e) => e.keyword !== "properties")
    .map((e) => `${e.instanceLocation}: ${e.error}`).join("; ");
}

/** Options of one tool execution. */
export interface ExecuteOptions {
  clock: Clock;
  logger: Logger;
  turnId: string;
  /** The turn's signal (user stop, shutdown). */
  signal: AbortSignal;
  defaultTimeoutMs: number;
}

/**
 * Run one tool call. Never throws: an unknown tool, bad arguments, a throwing handler or a
 * timeout become an error result the model reads next round. An abort of the turn rethrows.
 */
export async function executeTool(
  tool: RegisteredTool,
  args: Record<string, unknown>,
  call: ToolCall,
  options: ExecuteOptions,
): Promise<ToolResult> {
  const timeoutMs = tool.timeoutMs ?? options.defaultTimeoutMs;
  const controller = new AbortController();
  const onTurnAbort = () => controller.abort(options.signal.reason);
  options.signal.addEventListener("abort", onTurnAbort, { once: true });
  let timedOut = false;
  const timer = options.clock.setTimer(timeoutMs, () => {
    timedOut = true;
    controller.abort(new DOMException(`Tool "${tool.name}" timed out`, "TimeoutError"));
  });
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), {
      once: true,
    });
  });
  aborted.catch(() => {}); // observed below through the race; keep it from being unhandled
  try {
    const run = Promise.resolve().then(() =>
      tool.handler(args, { signal: controller.signal, turnId: options.turnId, callId: call.id })
    );
    const value = await Promise.race([run, aborted]);
    return typeof value === "string" ? { content: value } : value;
  } catch (error) {
    if (timedOut) {
      options.logger.warn("Tool call timed out", { tool: tool.name, timeoutMs });
      return { content: `Tool "${tool.name}" timed out after ${timeoutMs} ms`, isError: true };
    }
    if (options.signal.aborted && isAbort(error)) throw error;
    options.logger.error("Tool threw", {
      tool: tool.name,
      plugin: tool.plugin,
      error: errorMessage(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
    return { content: `Tool "${tool.name}" failed: ${errorMessage(error)}`, isError: true };
  } finally {
    timer.cancel();
    options.signal.removeEventListener("abort", onTurnAbort);
  }
}

/** The schema the model sees for a registered tool: its parameters compacted. */
export function toSchema(tool: ToolDef): ToolSchema {
  return {
    name: tool.name,
    description: tool.description.trim(),
    parameters: compactSchema(tool.parameters),
  };
}

const compacted = new WeakMap<JsonSchema, JsonSchema>();

/**
 * A tool's JSON Schema as the model is sent it, every token of it paid on every call: without
 * `additionalProperties: false` (arguments are still checked against the full schema, which
 * refuses unknown keys), `$schema`, `$id`, `title`, string length and array size bounds (a call
 * past them is refused with the reason), empty `required` lists, a description that only
 * repeats the property's name, and a `default` its own description already states.
 */
export function compactSchema(schema: JsonSchema): JsonSchema {
  let out = compacted.get(schema);
  if (!out) {
    out = compactNode(schema, undefined) as JsonSchema;
    compacted.set(schema, out);
  }
  return out;
}

/** Keywords the model gets nothing from; length bounds only refuse, and the refusal explains. */
const DROPPED = new Set([
  "$schema",
  "$id",
  "title",
  "$comment",
  "examples",
  "minLength",
  "maxLength",
  "maxItems",
]);

function compactNode(node: unknown, key: string | undefined): unknown {
  if (Array.isArray(node)) return node.map((item) => compactNode(item, undefined));
  if (typeof node !== "object" || node === null) return node;
  const source = node as Record<string, unknown>;
  const description = typeof source.description === "string" ? source.description : undefined;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(source)) {
    if (DROPPED.has(name)) continue;
    if (name === "additionalProperties" && value === false) continue;
    if (name === "required" && Array.isArray(value) && value.length === 0) continue;
    if (name === "description" && (value === "" || sameWords(String(value), key))) continue;
    if (name === "default" && statesDefault(description, value)) continue;
    out[name] = name === "properties" && typeof value === "object" && value !== null
      ? Object.fromEntries(
        Object.entries(value).map(([prop, schema]) => [prop, compactNode(schema, prop)]),
      )
      : compactNode(value, undefined);
  }
  return out;
}

/** The description already says the default: "(30)", "(default 30)", "default: 30". */
function statesDefault(description: string | undefined, value: unknown): boolean {
  if (description === undefined) return false;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const v = text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`\\((default:? )?${v}\\)|default:? ${v}\\b`, "i").test(description);
}

function sameWords(description: string, key: string | undefined): boolean {
  if (key === undefined) return false;
  const words = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, " ").trim();
  return words(description) === words(key);
}
