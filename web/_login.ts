/**
 * Login and the token check: `GET /?token=`, `POST /login`, `POST /logout`, and the middleware
 * in front of `/api` and `/v1`. Every presented secret goes through one LoginGate, so the right
 * token passes wherever it comes from and only wrong ones are counted against their client.
 */
import type { Context, Hono, Next } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { bodyLimit } from "hono/body-limit";
import { compress } from "hono/compress";
import { z } from "zod";
import {
  clientKey,
  crossOrigin,
  crossSiteRequest,
  type LoginCheck,
  type LoginGate,
  SESSION_COOKIE,
} from "./auth.ts";
import { HttpError, parseBody } from "./_http.ts";

/**
 * Hono environment: main.ts passes the peer address so throttling can key on it. `gone` is the
 * signal of the request as served, aborted when the client disconnects (middleware such as
 * bodyLimit replace `c.req.raw` with a copy whose signal never fires).
 */
export interface WebEnv {
  Bindings: { remoteAddr?: { hostname?: string } };
  Variables: { gone: AbortSignal };
}

const LoginBody = z.lazy(() => z.object({ token: z.string().max(200) }));

/** What the login page is told about a failed `/?token=` link (see `loginPage`). */
export type LoginNotice = "wrong" | "throttled" | "cross_site";

/** Options of mountLogin. */
export interface LoginRoutesOptions {
  gate: LoginGate;
  /** The page, with `<body>` where a notice is added. */
  indexHtml: string;
  /** What a logged-in page carries for its first frame (web/_boot.ts), as HTML to put in it. */
  boot?: () => Promise<string>;
}

/** Mount `GET /` (the page, and the login link), `POST /login` and `POST /logout`. */
export function mountLogin(app: Hono<WebEnv>, options: LoginRoutesOptions): void {
  const { gate, indexHtml } = options;
  const boot = options.boot ?? (() => Promise.resolve(""));
  // Gzipped for a browser that takes it: the page carries its stylesheet and its boot block. No
  // secret is in it (the cookie is HttpOnly), and a cross-site request gets no boot block.
  app.get("/", compress({ encoding: "gzip" }), async (c) => {
    const token = c.req.query("token");
    if (token === undefined) {
      if (!sessionOk(gate, c)) return c.html(indexHtml);
      c.header("cache-control", "no-store"); // it carries the owner's history
      return c.html(sessionMarked(indexHtml, await boot()));
    }
    // A link opened from another site is not judged at all: a web page must not be able to
    // count guesses against the owner's address, nor learn anything from the answer.
    if (crossSite(c)) return linkPage(c, loginPage(indexHtml, "cross_site"), 403);
    const check = gate.check(token, clientOf(c));
    if (check.kind === "ok") {
      setSession(c, token);
      return linkPage(c, sessionMarked(indexHtml, await boot()));
    }
    if (check.kind === "throttled") {
      c.header("retry-after", String(retrySeconds(check.retryMs)));
      return linkPage(c, loginPage(indexHtml, "throttled", check.retryMs), 429);
    }
    return linkPage(c, loginPage(indexHtml, "wrong"), 401);
  });

  app.post("/login", bodyLimit({ maxSize: 4096, onError: tooLarge }), async (c) => {
    if (crossSite(c)) throw new HttpError(403, "forbidden", "Cross-site login refused");
    const form = (c.req.header("content-type") ?? "").includes("application/json")
      ? await parseBody(c, LoginBody)
      : LoginBody.parse({ token: String((await c.req.parseBody())["token"] ?? "") });
    const token = form.token.trim();
    refuse(gate.check(token, clientOf(c)), "Wrong token");
    setSession(c, token);
    return c.json({ ok: true });
  });

  app.post("/logout", (c) => {
    setCookie(c, SESSION_COOKIE, "", { httpOnly: true, sameSite: "Strict", path: "/", maxAge: 0 });
    return c.json({ ok: true });
  });
}

/**
 * Middleware: the Bearer token or the session cookie, judged by `gate`; cookie-authenticated
 * writes from another origin are refused. Failures are thrown as HttpError so each route family
 * shapes its own error body (OpenAI's on `/v1`).
 */
export function tokenAuth(gate: LoginGate) {
  return async (c: Context<WebEnv>, next: Next) => {
    const header = c.req.header("authorization");
    const bearer = header?.startsWith("Bearer ") ? header.slice(7).trim() : undefined;
    const presented = bearer ?? getCookie(c, SESSION_COOKIE);
    refuse(gate.check(presented, clientOf(c)), "Missing or bad token");
    const write = !["GET", "HEAD", "OPTIONS"].includes(c.req.method);
    if (
      bearer === undefined && write &&
      crossOrigin(c.req.header("origin"), c.req.header("sec-fetch-site"), c.req.header("host"))
    ) {
      throw new HttpError(403, "forbidden", "Cross-origin write refused");
    }
    await next();
  };
}

/** Throw the HttpError of a failed check (401, or 429 with Retry-After). */
function refuse(check: LoginCheck, wrong: string): void {
  if (check.kind === "ok") return;
  if (check.kind === "throttled") {
    const seconds = retrySeconds(check.retryMs);
    throw new HttpError(
      429,
      "too_many_attempts",
      `Too many wrong tokens from this address; wrong tokens are refused for ${seconds} s more. ` +
        "The right token still works.",
      { headers: { "retry-after": String(seconds) } },
    );
  }
  throw new HttpError(401, "unauthorized", check.kind === "missing" ? "Missing token" : wrong);
}

/**
 * The cookie is the right token: the page is then marked as logged in and carries its first
 * frame's data, so it opens straight on the chat instead of first asking the API. A wrong
 * cookie counts as any wrong token does (the page's first API call would count it anyway).
 */
function sessionOk(gate: LoginGate, c: Context<WebEnv>): boolean {
  const cookie = getCookie(c, SESSION_COOKIE);
  return cookie !== undefined && gate.check(cookie, clientOf(c)).kind === "ok";
}

/** The logged-in page: marked, with `boot` (the first frame's data) first in its body. */
function sessionMarked(html: string, boot: string): string {
  // A function, so no `$&` or `$'` in the data is read as a replacement pattern.
  return html.replace("<body>", () => `<body data-session="ok">${boot}`);
}

/**
 * The page answering a `/?token=` link, served in place rather than through a redirect to `/`
 * (one round trip less before the chat): its first script replaces the address with `/` before
 * anything else loads, so the token is in neither the address bar nor the history entry. The
 * answer is never stored, and the token is never sent on as a Referer to another site.
 */
function linkPage(c: Context<WebEnv>, html: string, status: 200 | 401 | 403 | 429 = 200) {
  c.header("cache-control", "no-store");
  c.header("referrer-policy", "same-origin");
  return c.html(html, status);
}

/** The page with the notice the login form shows (fixed words and a number: nothing to escape). */
export function loginPage(html: string, notice: LoginNotice, retryMs = 0): string {
  const retry = notice === "throttled" ? ` data-retry-after="${retrySeconds(retryMs)}"` : "";
  return html.replace("<body>", `<body data-login="${notice}"${retry}>`);
}

function retrySeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function clientOf(c: Context<WebEnv>): string {
  return clientKey(c.env?.remoteAddr?.hostname);
}

function crossSite(c: Context): boolean {
  return crossSiteRequest({
    origin: c.req.header("origin"),
    fetchSite: c.req.header("sec-fetch-site"),
    referer: c.req.header("referer"),
  }, c.req.header("host"));
}

function setSession(c: Context, token: string): void {
  setCookie(c, SESSION_COOKIE, token, { httpOnly: true, sameSite: "Strict", path: "/" });
}

function tooLarge(): Response {
  throw new HttpError(413, "too_large", "Request body too large");
}
