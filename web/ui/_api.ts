/** Fetch helpers for the dashboard API; the session cookie carries the token. */
import { signal } from "@preact/signals";

/**
 * True when the server marked the page as logged in (its cookie is the token); false once the
 * API answered 401 (the page then shows the login form); undefined while unknown.
 */
export const authed = signal<boolean | undefined>(
  document.body.dataset.session === "ok" ? true : undefined,
);

/** A failed API call with the server's `{error: {code, message}}`. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/** Call the API; resolves the JSON body, rejects with ApiError. */
export async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const headers = new Headers(init.headers);
  if (init.body !== undefined && typeof init.body === "string") {
    headers.set("content-type", "application/json");
  }
  const response = await fetch(path, { ...init, headers, credentials: "same-origin" });
  const body = await response.json().catch(() => ({}));
  // 429 here is a wrong cookie from a throttled address: the login form explains it.
  if (response.status === 401 || response.status === 429) authed.value = false;
  if (!response.ok) {
    const error = (body as { error?: { code?: string; message?: string } }).error;
    throw new ApiError(
      response.status,
      error?.code ?? "http_" + response.status,
      error?.message ?? response.statusText,
    );
  }
  return body as T;
}

/** POST/PUT/PATCH a JSON body. */
export function send<T>(method: string, path: string, body?: unknown): Promise<T> {
  return api<T>(path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Message of any thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
