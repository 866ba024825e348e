/** JSON errors `{error: {code, message}}`, body parsing with zod, and error-to-status mapping. */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { ConfigError, errorMessage, HomeAgentError, PluginError } from "../core/mod.ts";

/** A failure with its HTTP status; thrown by route handlers, turned into JSON by onError. */
export class HttpError extends HomeAgentError {
  readonly status: ContentfulStatusCode;
  constructor(status: ContentfulStatusCode, code: string, message: string) {
    super(code, message);
    this.status = status;
  }
}

/** The error body. */
export function apiError(
  code: string,
  message: string,
): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

/** Parse the JSON body against `schema`; throws HttpError 400 naming each problem. */
export async function parseBody<T>(c: Context, schema: z.ZodType<T>): Promise<T> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new HttpError(400, "bad_request", "Body must be JSON");
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ` : "") + i.message)
      .join("; ");
    throw new HttpError(400, "bad_request", detail);
  }
  return parsed.data;
}

/** Status and body for any thrown value. */
export function errorResponse(
  error: unknown,
): { status: ContentfulStatusCode; code: string; message: string } {
  if (error instanceof HttpError) {
    return { status: error.status, code: error.code, message: error.message };
  }
  if (error instanceof ConfigError) {
    return { status: 400, code: error.code, message: error.message };
  }
  if (error instanceof PluginError) {
    return { status: 400, code: error.code, message: error.message };
  }
  if (error instanceof HomeAgentError) {
    const status = error.code.endsWith("not_found")
      ? 404
      : error.code.endsWith("conflict")
      ? 409
      : 400;
    return { status, code: error.code, message: error.message };
  }
  if (error instanceof TypeError || error instanceof RangeError) {
    return { status: 400, code: "bad_request", message: error.message };
  }
  return { status: 500, code: "internal", message: errorMessage(error) };
}

/** A 501 for a dashboard part the daemon did not wire. */
export function notWired(what: string): HttpError {
  return new HttpError(
    501,
    "not_available",
    `The ${what} is not available in this build of the daemon`,
  );
}
