/**
 * The owner's questions (`/api/v1/questions`) and the JSON routes plugins offer
 * (`/api/v1/plugins/<plugin>/<path>`, docs/web.md). A plugin path no plugin answers falls
 * through to the plugin list's own routes.
 */
import type { Env, Hono } from "hono";
import { z } from "zod";
import type { WebDeps } from "./ports.ts";
import { HttpError, notWired, parseBody } from "./_http.ts";

const AnswerBody = z.lazy(() => z.object({ approve: z.boolean() }));

/** Mount the question and plugin routes on `app` (before the dashboard's plugin routes). */
export function mountPluginRoutes<E extends Env>(app: Hono<E>, deps: WebDeps): void {
  const questions = () =>
    deps.questions ?? (() => {
      throw notWired("owner questions");
    })();
  app.get("/api/v1/questions", (c) => c.json({ questions: questions().pending() }));
  app.post("/api/v1/questions/:id", async (c) => {
    const { approve } = await parseBody(c, AnswerBody);
    const id = c.req.param("id");
    if (!questions().answer(id, approve, "web")) {
      throw new HttpError(404, "not_found", `No question "${id}" is waiting (answered or expired)`);
    }
    return c.json({ id, answer: approve ? "approved" : "denied" });
  });
  app.on(["GET", "POST"], "/api/v1/plugins/:name/*", async (c, next) => {
    const name = c.req.param("name");
    const prefix = `/api/v1/plugins/${name}/`;
    const rest = c.req.path.startsWith(prefix) ? c.req.path.slice(prefix.length) : "";
    const found = deps.pluginRoutes?.match(name, c.req.method, rest);
    if (!found) return await next();
    let body: unknown;
    if (c.req.method === "POST") {
      const text = await c.req.text();
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {
        throw new HttpError(400, "bad_request", "Body must be JSON");
      }
    }
    const result = await found.route.handler({
      method: c.req.method as "GET" | "POST",
      params: found.params,
      query: c.req.query(),
      body,
    });
    return c.json((result ?? {}) as Record<string, unknown>);
  });
}
