/** JSON errors `{error: {code, message}}`, body parsing with zod, and error-to-status mapping. */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { ConfigError, errorMessage, HomeAgentError, MediaError, PluginError } from "../core/mod.ts";

/** HTTP status of each media failure. */
export const MEDIA_STATUS: Readonly<Record<MediaError["failure"], ContentfulStatusCode>> = {
  disabled: 409,
  "bad_digest": 400,
  "not_found": 404,
  "too_large": 413,
  "too_many": 413,
  "too_many_pixels": 413,
  "type_refused": 415,
  corrupt: 500,
} as const;

/** Extras of an HttpError. */
export interface HttpErrorOptions {
  /** The request field at fault (`messages.[0].role`), for the OpenAI error body. */
  param?: string;
  /** Response headers (`retry-after`). */
  headers?: Record<string, string>;
}

/** A failure with its HTTP status; thrown by route handlers, turned into JSON by onError. */
export class HttpError extends HomeAgentError {
  readonly status: ContentfulStatusCode;
  readonly param?: string;
  readonly headers: Record<string, string>;
  constructor(
    status: ContentfulStatusCode,
    code: string,
    message: string,
    options: HttpErrorOptions = {},
  ) {
    super(code, message);
    this.status = status;
    this.param = options.param;
    this.headers = options.headers ?? {};
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
  return checked(schema, body);
}

/** Parse the query string against `schema` (each parameter's first value); 400 as parseBody. */
export function parseQuery<T>(c: Context, schema: z.ZodType<T>): T {
  return checked(schema, c.req.query());
}

function checked<T>(schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const detail = issues
      .map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ` : "") + i.message)
      .join("; ");
    const first = issues[0]?.path ?? [];
    throw new HttpError(400, "bad_request", detail, {
      ...(first.length > 0 ? { param: paramOf(first) } : {}),
    });
  }
  return parsed.data;
}

/** A body path the way OpenAI names it: `messages.[0].content`. */
export function paramOf(path: readonly PropertyKey[]): string {
  return path.map((p) => typeof p === "number" ? `[${p}]` : String(p)).join(".");
}

/** What an error response says, for any thrown value. */
export interface ErrorResponse {
  status: ContentfulStatusCode;
  code: string;
  message: string;
  headers: Record<string, string>;
}

/** Status and body for any thrown value. */
export function errorResponse(error: unknown): ErrorResponse {
  const headers = error instanceof HttpError ? error.headers : {};
  return { ...statusOf(error), headers };
}

function statusOf(error: unknown): Omit<ErrorResponse, "headers"> {
  if (error instanceof HttpError) {
    return { status: error.status, code: error.code, message: error.message };
  }
  if (error instanceof ConfigError) {
    return { status: 400, code: error.code, message: error.message };
  }
  if (error instanceof PluginError) {
    return { status: 400, code: error.code, message: error.message };
  }
  if (error instanceof MediaError) {
    return { status: MEDIA_STATUS[error.failure], code: error.code, message: error.message };
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
