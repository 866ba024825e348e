/**
 * The web plugin's HTTP app (DESIGN.md §6). This first cut serves liveness, status and chat;
 * the dashboard, SSE and the OpenAI-compatible endpoint build on it.
 */
import { Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import type { Reply } from "../core/mod.ts";
// Embedded as text so one compiled binary carries the page (rebuild with `deno task build:web`).
import INDEX_HTML from "./ui/index.html" with { type: "text" };
import APP_JS from "./ui/dist/app.js" with { type: "text" };

/** What the app needs from the daemon. */
export interface WebDeps {
  token: string;
  status(): unknown;
  /** Inject a chat input; `onReply` receives its one terminal reply. */
  chat(text: string, channel: string, onReply: (reply: Reply) => void): {
    accepted: boolean;
    inputId: string;
    reason?: string;
  };
}

const COOKIE = "homeagent_token";
const ChatBody = z.object({
  text: z.string().min(1).max(100_000),
  channel: z.string().regex(/^[a-z0-9_]{1,40}$/).optional(),
});

/** Constant-time comparison of two tokens. */
function sameToken(a: string, b: string): boolean {
  if (a.length !== b.length || a.length === 0) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function apiError(code: string, message: string) {
  return { error: { code, message } };
}

/** Build the Hono app; it never listens by itself (main.ts serves it). */
export function createApp(deps: WebDeps): Hono {
  const app = new Hono();

  app.get("/healthz", (c) => c.json({ ok: true }));

  app.get("/", (c) => {
    const token = c.req.query("token");
    if (token !== undefined) {
      if (!sameToken(token, deps.token)) return c.json(apiError("unauthorized", "Bad token"), 401);
      setCookie(c, COOKIE, token, { httpOnly: true, sameSite: "Strict", path: "/" });
      return c.redirect("/");
    }
    return c.html(INDEX_HTML);
  });

  app.get("/assets/app.js", (c) => {
    c.header("content-type", "text/javascript; charset=utf-8");
    c.header("cache-control", "no-cache");
    return c.body(APP_JS);
  });

  app.use("/api/*", async (c, next) => {
    const header = c.req.header("authorization");
    const bearer = header?.startsWith("Bearer ") ? header.slice(7) : undefined;
    const cookie = getCookie(c, COOKIE);
    if (
      bearer !== undefined ? !sameToken(bearer, deps.token) : !sameToken(cookie ?? "", deps.token)
    ) {
      return c.json(apiError("unauthorized", "Missing or bad token"), 401);
    }
    if (bearer === undefined && c.req.method !== "GET") {
      const origin = c.req.header("origin");
      const host = c.req.header("host");
      if (origin !== undefined && new URL(origin).host !== host) {
        return c.json(apiError("forbidden", "Cross-origin write refused"), 403);
      }
    }
    await next();
  });

  app.get("/api/v1/status", (c) => c.json(deps.status() as Record<string, unknown>));

  app.post("/api/v1/chat", async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(apiError("bad_request", "Body must be JSON"), 400);
    }
    const parsed = ChatBody.safeParse(body);
    if (!parsed.success) {
      return c.json(
        apiError("bad_request", parsed.error.issues.map((i) => i.message).join("; ")),
        400,
      );
    }
    const wait = c.req.query("wait") === "1";
    let resolveReply!: (reply: Reply) => void;
    const replied = new Promise<Reply>((resolve) => resolveReply = resolve);
    const result = deps.chat(parsed.data.text, parsed.data.channel ?? "web", resolveReply);
    if (!result.accepted) {
      return c.json(apiError("refused", result.reason ?? "Input refused"), 503);
    }
    if (!wait) return c.json({ turnId: result.inputId }, 202);
    const reply = await replied;
    return c.json({ turnId: result.inputId, status: reply.status, text: reply.text });
  });

  return app;
}
