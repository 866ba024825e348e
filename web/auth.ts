/**
 * Access control of the web app: the token (Bearer header or the HttpOnly cookie the login
 * sets), login throttling per client address, the Origin check on cookie-authenticated writes,
 * and the rule serve applies before binding. docs/security.md ("Login and tokens") explains
 * the choices.
 */
import type { Clock, Logger } from "../core/mod.ts";

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

  /** Clients with failures remembered now (at most `maxClients`). */
  get size(): number {
    return this.#failures.size;
  }

  /** Milliseconds until `client` may try again, or 0 when it is not blocked. */
  blockedFor(client: string): number {
    const recent = this.#recent(client);
    if (recent.length < this.#max) return 0;
    return Math.max(1, recent[recent.length - this.#max]! + this.#windowMs - this.#clock.now());
  }

  /** Record one failed attempt by `client` (never more than `maxFailures` are kept for one). */
  fail(client: string): void {
    const recent = this.#recent(client);
    recent.push(this.#clock.now());
    if (recent.length > this.#max) recent.shift();
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

/**
 * The throttle key of a peer address. The port is left out (every connection gets a new one);
 * all loopback addresses are one machine; an IPv6 client is its /64, the block one subscriber
 * holds, so rotating addresses inside it does not reset the count.
 */
export function clientKey(hostname: string | undefined): string {
  if (hostname === undefined || hostname === "") return "unknown";
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(h);
  if (mapped) return clientKey(mapped[1]);
  if (isLoopbackHost(h)) return "loopback";
  if (!h.includes(":")) return h;
  const [head = "", tail = ""] = h.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = h.includes("::")
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
    : left;
  return groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":") + "::/64";
}

/** What a presented secret turned out to be. */
export type LoginCheck =
  | { kind: "ok" }
  | { kind: "missing" }
  | { kind: "wrong" }
  /** Wrong, from a client over its failure budget: refused for `retryMs` more. */
  | { kind: "throttled"; retryMs: number };

/** Options of a LoginGate. */
export interface LoginGateOptions extends LoginThrottleOptions {
  token: string;
  logger?: Logger;
}

/**
 * The one place a presented secret is judged. The right token always passes, even from a
 * throttled client, so nobody who shares the owner's address (a web page in the owner's
 * browser, another local user, a NAT) can lock the owner out; only wrong secrets are counted,
 * per client address.
 */
export class LoginGate {
  readonly throttle: LoginThrottle;
  readonly #token: string;
  readonly #logger?: Logger;

  constructor(options: LoginGateOptions) {
    this.throttle = new LoginThrottle(options);
    this.#token = options.token;
    this.#logger = options.logger;
  }

  /** Judge `presented` from `client` (a clientKey); counts it when wrong. */
  check(presented: string | undefined, client: string): LoginCheck {
    if (presented === undefined || presented === "") return { kind: "missing" };
    if (sameToken(presented, this.#token)) return { kind: "ok" };
    const blocked = this.throttle.blockedFor(client);
    if (blocked > 0) return { kind: "throttled", retryMs: blocked };
    this.throttle.fail(client);
    const now = this.throttle.blockedFor(client);
    if (now > 0) {
      this.#logger?.warn("Wrong web tokens: client throttled", { client, retryMs: now });
    }
    return { kind: "wrong" };
  }
}

/**
 * True when a browser says a request was made by another site (Sec-Fetch-Site, else Origin,
 * else Referer). Browsers set these headers themselves, so a page cannot hide them; a
 * non-browser client can forge them, which is why they only ever refuse, never admit.
 */
export function crossSiteRequest(
  headers: { origin?: string; fetchSite?: string; referer?: string },
  host: string | undefined,
): boolean {
  if (headers.fetchSite !== undefined) {
    return headers.fetchSite !== "same-origin" && headers.fetchSite !== "none";
  }
  if (headers.origin !== undefined) return crossOrigin(headers.origin, undefined, host);
  if (headers.referer !== undefined) return crossOrigin(headers.referer, undefined, host);
  return false;
}

/**
 * Why a request to /mcp looks like DNS rebinding (MCP spec, Streamable HTTP security), or
 * undefined: on a server bound to loopback (`localOnly`) the Host must be a loopback name; an
 * Origin, when sent, must be this host's or, on a loopback server, a loopback one.
 */
export function rebindingRefusal(
  host: string | undefined,
  origin: string | undefined,
  localOnly: boolean,
): string | undefined {
  const hostname = host === undefined ? "" : hostnameOf(`http://${host}`);
  if (localOnly && !isLoopbackHost(hostname)) {
    return `Host "${host ?? ""}" is not a loopback name, and this server listens on loopback only`;
  }
  if (origin === undefined) return undefined;
  let fromHost = "";
  try {
    fromHost = new URL(origin).host;
  } catch {
    // not a URL: refused below
  }
  if (fromHost !== "" && fromHost === host) return undefined;
  if (localOnly && isLoopbackHost(hostnameOf(origin))) return undefined;
  return `Origin "${origin}" is not this server's`;
}

function hostnameOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}
