/** Shared by the built-ins' tools: a failure becomes a result the model reads. */
import { errorMessage, type ToolResult } from "../../core/mod.ts";

/** A tool handler over `fn`: what it throws is an error result, unless the turn was stopped. */
export function errorsAsResults(
  fn: (args: Record<string, unknown>, signal: AbortSignal) => Promise<string>,
): (
  args: Record<string, unknown>,
  context: { signal: AbortSignal },
) => Promise<string | ToolResult> {
  return async (args, context) => {
    try {
      return await fn(args, context.signal);
    } catch (error) {
      if (context.signal.aborted) throw error;
      return { content: errorMessage(error), isError: true };
    }
  };
}

/** The JSON Schema of an arguments object with exactly `properties`. */
export function argsSchema(properties: Record<string, unknown>, required: string[]) {
  return { type: "object", properties, required, additionalProperties: false };
}
