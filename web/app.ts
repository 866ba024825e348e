/**
 * The web plugin's HTTP app (DESIGN.md §6): the page, login, token auth, chat, the SSE stream
 * of kernel events, the dashboard's data and the OpenAI-compatible endpoint. It never listens by
 * itself: main.ts serves it and tests call `app.request()`.
 */
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import type { Reply } from "../core/mod.ts";
import { LoginGate, rebindingRefusal } from "./auth.ts";
import { mountLogin, tokenAuth, type WebEnv } from "./_login.ts";
import { EventHub, sseBody } from "./event_hub.ts";
import type { WebDeps } from "./ports.ts";
import { apiError, errorResponse, HttpError, notWired, parseBody } from "./_http.ts";
import { mountDashboard, UPLOAD_PATH } from "./_dashboard.ts";
import { mountOpenAI, openAIError } from "./openai.ts";
import { mountPluginRoutes } from "./_plugin_routes.ts";
import { mountMemoryRoutes } from "./_memory_routes.ts";
import { mountSkills } from "./_skills.ts";
import { mountSetup } from "./_setup.ts";
import { MEDIA_PATH, mountMedia, refsOf } from "./_media.ts";
import { mountAssets } from "./_assets.ts";
import { bootData, bootScript, HistoryPageSchema } from "./_boot.ts";
// Embedded as text so one compiled binary carries the page.
// web/ui/index.html with the preloads of the build (web/build.ts).
import INDEX_HTML from "./ui/dist/index.html" with { type: "text" };

/** Request bodies above this are refused with 413 (plugin uploads have their own limit). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Largest .hmap upload. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

const ChatBody = z.lazy(() =>
  z.object({
    text: z.string().max(100_000),
    channel: z.string().regex(/^[a-z0-9_]{1,40}$/).optional(),
    /** Digests of images uploaded to /api/v1/media before. */
    media: z.array(z.string()).max(64).optional(),
  }).refine((b) => b.text.trim() !== "" || (b.media?.length ?? 0) > 0, {
    message: "Too small: expected text or media",
    path: ["text"],
  })
);

/** Options of createApp besides the ports. */
export interface CreateAppOptions {
  /** The SSE hub; default one fed by `deps.events`. Pass one to close it at shutdown. */
  hub?: EventHub;
}

/** Build the Hono app; it never listens by itself (main.ts serves it). */
export function createApp(deps: WebDeps, options: CreateAppOptions = {}): Hono<WebEnv> {
  const app = new Hono<WebEnv>();
  const hub = options.hub ?? hubOf(deps);
  const gate = new LoginGate({ token: deps.token, clock: deps.clock, logger: deps.logger });

  // One renderer for every failure: OpenAI's error body on /v1, ours elsewhere.
  const fail = (c: Context<WebEnv>, error: unknown) => {
    const { status, code, message, headers } = errorResponse(error);
    // A client that went away cancelled its own request: nothing failed.
    if (status >= 500 && !c.var.gone?.aborted) {
      deps.logger?.error("Web request failed", { path: c.req.path, message });
    }
    if (!c.req.path.startsWith("/v1/")) return c.json(apiError(code, message), status, headers);
    const openai = openAIError(error);
    return c.json(openai.body, openai.status, { ...headers, ...openai.headers });
  };
  app.onError((error, c) => fail(c, error));
  app.use("*", async (c, next) => {
    c.set("gone", c.req.raw.signal);
    await next();
  });

  app.get("/healthz", (c) => c.json({ ok: true }));
  mountLogin(app, {
    gate,
    indexHtml: INDEX_HTML,
    boot: async () => bootScript(await bootData(deps, hub.lastId)),
  });

  mountAssets(app);

  const auth = tokenAuth(gate);
  app.use("/api/*", auth);
  app.use("/v1/*", auth);
  // MCP's DNS-rebinding rule: a Host or Origin that is not this server's is refused, even with
  // the right token (a page elsewhere must never reach /mcp through a rebound name).
  const rebinding = async (c: Parameters<typeof auth>[0], next: () => Promise<void>) => {
    const refusal = rebindingRefusal(
      c.req.header("host"),
      c.req.header("origin"),
      deps.localOnly ?? false,
    );
    if (refusal) return c.json(apiError("forbidden", refusal), 403);
    await next();
  };
  app.use("/mcp", rebinding, auth, bodyLimit({ maxSize: 4 * MAX_BODY_BYTES, onError: tooLarge }));
  app.all("/mcp", (c) => {
    if (!deps.mcp) throw new HttpError(404, "not_found", "This server does not serve MCP");
    return deps.mcp.handle(c.req.raw);
  });
  const smallBodies = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge });
  const uploads = bodyLimit({ maxSize: MAX_UPLOAD_BYTES, onError: tooLarge });
  app.use(
    "/api/*",
    (c, next) =>
      c.req.path === UPLOAD_PATH || c.req.path === MEDIA_PATH
        ? uploads(c, next)
        : smallBodies(c, next),
  );
  app.use("/v1/*", bodyLimit({ maxSize: 4 * MAX_BODY_BYTES, onError: tooLarge }));

  app.get("/api/v1/status", (c) => c.json(deps.status() as Record<string, unknown>));

  app.post("/api/v1/chat", async (c) => {
    const body = await parseBody(c, ChatBody);
    const media = await refsOf(deps, body.media);
    const replied = Promise.withResolvers<Reply>();
    const result = deps.chat.inject({
      text: body.text,
      channel: body.channel ?? "web",
      ...(media.length > 0 ? { media } : {}),
      onReply: replied.resolve,
    });
    if (!result.accepted) throw new HttpError(503, "refused", result.reason ?? "Input refused");
    if (c.req.query("wait") !== "1") return c.json({ turnId: result.inputId }, 202);
    const reply = await replied.promise;
    return c.json({
      turnId: result.inputId,
      status: reply.status,
      text: reply.text,
      ...(reply.media?.length ? { media: reply.media } : {}),
    });
  });

  app.post("/api/v1/chat/stop", (c) => c.json(deps.chat.stop()));

  app.get("/api/v1/chat/history", async (c) => {
    if (!deps.history) throw notWired("conversation history");
    const limit = Number(c.req.query("limit") ?? 30);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
      throw new HttpError(400, "bad_request", "limit must be an integer from 1 to 200");
    }
    const query = (name: string) => c.req.query(name)?.slice(0, 500) || undefined;
    // The same shape as the page's boot block carries (web/_boot.ts).
    return c.json(HistoryPageSchema.parse(
      await deps.history.history({
        limit,
        before: query("before"),
        query: query("q"),
        channel: query("channel"),
      }),
    ));
  });

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

  mountPluginRoutes(app, deps);
  mountMemoryRoutes(app, deps);
  mountDashboard(app, deps);
  mountSkills(app, deps);
  mountSetup(app, deps);
  mountMedia(app, deps);
  mountOpenAI(app, deps);

  app.notFound((c) =>
    fail(c, new HttpError(404, "not_found", `No route for ${c.req.method} ${c.req.path}`))
  );
  return app;
}

function hubOf(deps: WebDeps): EventHub {
  const hub = new EventHub({ clock: deps.clock, ...deps.sse });
  deps.events((event) => hub.publish(event));
  return hub;
}

function tooLarge(): Response {
  throw new HttpError(413, "too_large", "Request body too large");
}
