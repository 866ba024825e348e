/**
 * Access control of the web app: the token (Bearer header or the HttpOnly cookie the login
 * sets), login throttling per client, the Origin check on cookie-authenticated writes, and the
 * rule serve applies before binding.
 */
import type { Clock } from "../core/mod.ts";

/** Name of the session cookie (HttpOnly, SameSite=Strict, holds the token). */
export const SESSION_COOKIE = "homeagent_token";

/** Shortest token accepted for a non-loopback bind. */
export const MIN_REMOTE_TOKEN_LENGTH = 16;

/** Constant-time comparison of two tokens; an empty token never matches. */
export function sameToken(a: string, b: string): boolean {
  if (a.length !== b.length || a.length === 0) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** True for 127.0.0.0/8, ::1 and "localhost". */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * Why serve must not bind `host` with `token`, or undefined when it may: a non-loopback address
 * needs a token of at least MIN_REMOTE_TOKEN_LENGTH characters.
 */
export function bindRefusal(host: string, token: string): string | undefined {
  if (isLoopbackHost(host) || token.length >= MIN_REMOTE_TOKEN_LENGTH) return undefined;
  return `Refusing to listen on "${host}" without an access token: set core.web.token to at ` +
    `least ${MIN_REMOTE_TOKEN_LENGTH} characters, or listen on 127.0.0.1`;
}

/** Options of a LoginThrottle. */
export interface LoginThrottleOptions {
  clock: Clock;
  /** Failures allowed per window; default 5. */
  maxFailures?: number;
  /** Default 10 minutes. */
  windowMs?: number;
  /** Clients remembered at most (oldest forgotten first); default 10 000. */
  maxClients?: number;
}

/** Counts failed token checks per client over a sliding window. */
export class LoginThrottle {
  #failures = new Map<string, number[]>();
  #clock: Clock;
  #max: number;
  #windowMs: number;
  #maxClients: number;

  constructor(options: LoginThrottleOptions) {
    this.#clock = options.clock;
    this.#max = options.maxFailures ?? 5;
    this.#windowMs = options.windowMs ?? 10 * 60_000;
    this.#maxClients = options.maxClients ?? 10_000;
  }

  /** Milliseconds until `client` may try again, or 0 when it is not blocked. */
  blockedFor(client: string): number {
    const recent = this.#recent(client);
    if (recent.length < this.#max) return 0;
    return Math.max(1, recent[recent.length - this.#max]! + this.#windowMs - this.#clock.now());
  }

  /** Record one failed attempt by `client`. */
  fail(client: string): void {
    const recent = this.#recent(client);
    recent.push(this.#clock.now());
    this.#failures.delete(client);
    this.#failures.set(client, recent);
    if (this.#failures.size > this.#maxClients) {
      const oldest = this.#failures.keys().next().value;
      if (oldest !== undefined) this.#failures.delete(oldest);
    }
  }

  #recent(client: string): number[] {
    const since = this.#clock.now() - this.#windowMs;
    const recent = (this.#failures.get(client) ?? []).filter((t) => t > since);
    if (recent.length === 0) this.#failures.delete(client);
    else this.#failures.set(client, recent);
    return recent;
  }
}

/** True when an Origin / Sec-Fetch-Site pair shows a cross-site request to `host`. */
export function crossOrigin(
  origin: string | undefined,
  fetchSite: string | undefined,
  host: string | undefined,
): boolean {
  if (fetchSite === "cross-site") return true;
  if (origin === undefined) return false;
  if (origin === "null") return true;
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}
