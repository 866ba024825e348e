/**
 * The web plugin's HTTP app (DESIGN.md §6): the page, login, token auth, chat, the SSE stream
 * of kernel events, the dashboard's data and the OpenAI-compatible endpoint. It never listens by
 * itself: main.ts serves it and tests call `app.request()`.
 */
import { Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import type { Reply } from "../core/mod.ts";
import { crossOrigin, LoginThrottle, sameToken, SESSION_COOKIE } from "./auth.ts";
import { EventHub, sseBody } from "./event_hub.ts";
import type { WebDeps } from "./ports.ts";
import { apiError, errorResponse, HttpError, parseBody } from "./_http.ts";
import { mountDashboard, UPLOAD_PATH } from "./_dashboard.ts";
import { mountOpenAI } from "./openai.ts";
// Embedded as text so one compiled binary carries the page (rebuild with `deno task build:web`).
import INDEX_HTML from "./ui/index.html" with { type: "text" };
import APP_JS from "./ui/dist/app.js" with { type: "text" };

/** Hono environment: main.ts passes the peer address so throttling can key on it. */
export interface WebEnv {
  Bindings: { remoteAddr?: { hostname?: string } };
}

/** Request bodies above this are refused with 413 (plugin uploads have their own limit). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Largest .hmap upload. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

const ChatBody = z.object({
  text: z.string().min(1).max(100_000),
  channel: z.string().regex(/^[a-z0-9_]{1,40}$/).optional(),
});
const LoginBody = z.object({ token: z.string().max(200) });

/** Options of createApp besides the ports. */
export interface CreateAppOptions {
  /** The SSE hub; default one fed by `deps.events`. Pass one to close it at shutdown. */
  hub?: EventHub;
}

/** Build the Hono app; it never listens by itself (main.ts serves it). */
export function createApp(deps: WebDeps, options: CreateAppOptions = {}): Hono<WebEnv> {
  const app = new Hono<WebEnv>();
  const hub = options.hub ?? hubOf(deps);
  const throttle = new LoginThrottle({ clock: deps.clock });
  const clientOf = (env: WebEnv["Bindings"] | undefined) => env?.remoteAddr?.hostname ?? "local";

  app.onError((error, c) => {
    const { status, code, message } = errorResponse(error);
    if (status >= 500) deps.logger?.error("Web request failed", { path: c.req.path, message });
    return c.json(apiError(code, message), status);
  });

  app.get("/healthz", (c) => c.json({ ok: true }));

  app.get("/", (c) => {
    const token = c.req.query("token");
    if (token === undefined) return c.html(INDEX_HTML);
    const client = clientOf(c.env);
    if (throttle.blockedFor(client) > 0) return tooMany(throttle.blockedFor(client));
    if (!sameToken(token, deps.token)) {
      throttle.fail(client);
      return c.json(apiError("unauthorized", "Bad token"), 401);
    }
    setSession(c, deps.token);
    return c.redirect("/");
  });

  app.post("/login", bodyLimit({ maxSize: 4096, onError: tooLarge }), async (c) => {
    const client = clientOf(c.env);
    if (throttle.blockedFor(client) > 0) return tooMany(throttle.blockedFor(client));
    const form = (c.req.header("content-type") ?? "").includes("application/json")
      ? await parseBody(c, LoginBody)
      : LoginBody.parse({ token: String((await c.req.parseBody())["token"] ?? "") });
    if (!sameToken(form.token.trim(), deps.token)) {
      throttle.fail(client);
      return c.json(apiError("unauthorized", "Bad token"), 401);
    }
    setSession(c, deps.token);
    return c.json({ ok: true });
  });

  app.post("/logout", (c) => {
    setCookie(c, SESSION_COOKIE, "", { httpOnly: true, sameSite: "Strict", path: "/", maxAge: 0 });
    return c.json({ ok: true });
  });

  app.get("/assets/app.js", (c) => {
    c.header("content-type", "text/javascript; charset=utf-8");
    c.header("cache-control", "no-cache");
    return c.body(APP_JS);
  });

  // Token check for the API and the OpenAI-compatible routes.
  const auth = async (
    c: Parameters<Parameters<typeof app.use>[1]>[0],
    next: () => Promise<void>,
  ) => {
    const client = clientOf(c.env);
    const header = c.req.header("authorization");
    const bearer = header?.startsWith("Bearer ") ? header.slice(7).trim() : undefined;
    const cookie = getCookie(c, SESSION_COOKIE);
    const presented = bearer ?? cookie;
    const blocked = throttle.blockedFor(client);
    if (blocked > 0 && presented !== undefined) return tooMany(blocked);
    if (presented === undefined || !sameToken(presented, deps.token)) {
      if (presented !== undefined) throttle.fail(client);
      return c.json(apiError("unauthorized", "Missing or bad token"), 401);
    }
    const write = !["GET", "HEAD", "OPTIONS"].includes(c.req.method);
    if (
      bearer === undefined && write &&
      crossOrigin(c.req.header("origin"), c.req.header("sec-fetch-site"), c.req.header("host"))
    ) {
      return c.json(apiError("forbidden", "Cross-origin write refused"), 403);
    }
    await next();
  };
  app.use("/api/*", auth);
  app.use("/v1/*", auth);
  const smallBodies = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge });
  const uploads = bodyLimit({ maxSize: MAX_UPLOAD_BYTES, onError: tooLarge });
  app.use(
    "/api/*",
    (c, next) => c.req.path === UPLOAD_PATH ? uploads(c, next) : smallBodies(c, next),
  );
  app.use("/v1/*", bodyLimit({ maxSize: 4 * MAX_BODY_BYTES, onError: tooLarge }));

  app.get("/api/v1/status", (c) => c.json(deps.status() as Record<string, unknown>));

  app.post("/api/v1/chat", async (c) => {
    const body = await parseBody(c, ChatBody);
    const replied = Promise.withResolvers<Reply>();
    const result = deps.chat.inject({
      text: body.text,
      channel: body.channel ?? "web",
      onReply: replied.resolve,
    });
    if (!result.accepted) throw new HttpError(503, "refused", result.reason ?? "Input refused");
    if (c.req.query("wait") !== "1") return c.json({ turnId: result.inputId }, 202);
    const reply = await replied.promise;
    return c.json({ turnId: result.inputId, status: reply.status, text: reply.text });
  });

  app.post("/api/v1/chat/stop", (c) => c.json(deps.chat.stop()));

  app.get("/api/v1/chat/events", (c) => {
    const client = hub.connect(c.req.header("last-event-id") ?? c.req.query("lastEventId"));
    // A plain ReadableStream of frames the hub encoded once: no per-client re-encoding. A
    // client that goes away cancels the stream, which closes its hub client.
    return new Response(sseBody(client, { lastId: hub.lastId }), {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        "x-accel-buffering": "no",
      },
    });
  });

  mountDashboard(app, deps);
  mountOpenAI(app, deps);

  app.notFound((c) =>
    c.json(apiError("not_found", `No route for ${c.req.method} ${c.req.path}`), 404)
  );
  return app;
}

function hubOf(deps: WebDeps): EventHub {
  const hub = new EventHub({ clock: deps.clock, ...deps.sse });
  deps.events((event) => hub.publish(event));
  return hub;
}

function setSession(c: Parameters<typeof setCookie>[0], token: string): void {
  setCookie(c, SESSION_COOKIE, token, { httpOnly: true, sameSite: "Strict", path: "/" });
}

function tooMany(retryMs: number): Response {
  return Response.json(
    apiError("too_many_attempts", "Too many failed logins; try again later"),
    { status: 429, headers: { "retry-after": String(Math.ceil(retryMs / 1000)) } },
  );
}

function tooLarge(): Response {
  return Response.json(apiError("too_large", "Request body too large"), { status: 413 });
}
