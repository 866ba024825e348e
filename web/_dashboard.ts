/**
 * The dashboard's data: settings, knowledge, plugins, LLM sources and residents (memory's routes
 * are _memory_routes.ts). Each part answers 501 when its port is not wired.
 */
import type { Env, Hono } from "hono";
import { z } from "zod";
import {
  checkNamePath,
  checkPluginName,
  type ConfigDescription,
  type ConfigEntry,
  namePathProblem,
} from "../core/mod.ts";
import type { WebDeps } from "./ports.ts";
import { HttpError, notWired, parseBody } from "./_http.ts";

/** The .hmap upload route (it has a larger body limit). */
export const UPLOAD_PATH = "/api/v1/plugins/upload";

const SettingBody = z.lazy(() =>
  z.union([
    z.object({ value: z.unknown() }).refine((b) => "value" in b, "value is required"),
    z.object({ text: z.string().max(100_000) }),
    z.object({ unset: z.literal(true) }),
  ])
);
const KnowledgeBody = z.lazy(() =>
  z.object({
    name: z.string().superRefine((name, ctx) => {
      const why = namePathProblem(name);
      if (why) ctx.addIssue({ code: "custom", message: `invalid knowledge name: ${why}` });
    }),
    content: z.string().min(1).max(500_000),
  })
);

const KnowledgeEdit = z.lazy(() => z.object({ content: z.string().min(1).max(500_000) }));

/** The type the settings page edits a key as, from its default. */
export function settingType(entry: ConfigEntry): "boolean" | "number" | "string" | "json" {
  const t = typeof entry.default;
  return t === "boolean" || t === "number" || t === "string" ? t : "json";
}

/** The part of a value's JSON Schema the page builds its control from. */
interface ControlSchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
}

/**
 * A setting as the page shows it: the registry's entry, the pattern it was defined as (what
 * the page's labels are keyed by), and what its control needs (choices, bounds, integer).
 */
export function settingView(entry: ConfigEntry, description?: ConfigDescription) {
  const schema = (description?.schema ?? {}) as ControlSchema;
  const choices = schema.enum?.every((v) => typeof v === "string")
    ? schema.enum as string[]
    : undefined;
  const bound = (n: number | undefined) =>
    n !== undefined && Math.abs(n) < Number.MAX_SAFE_INTEGER ? n : undefined;
  return {
    ...entry,
    type: settingType(entry),
    pattern: description?.key ?? entry.key,
    ...(description?.expected ? { expected: description.expected } : {}),
    ...(choices ? { choices } : {}),
    ...(bound(schema.minimum) !== undefined ? { min: schema.minimum } : {}),
    ...(bound(schema.maximum) !== undefined ? { max: schema.maximum } : {}),
    ...(schema.type === "integer" ? { integer: true } : {}),
  };
}

/** Mount the dashboard routes on `app`. */
export function mountDashboard<E extends Env>(app: Hono<E>, deps: WebDeps): void {
  const settings = () =>
    deps.settings ?? (() => {
      throw notWired("settings registry");
    })();
  const knowledge = () =>
    deps.knowledge ?? (() => {
      throw notWired("knowledge base");
    })();
  const plugins = () =>
    deps.plugins ?? (() => {
      throw notWired("plugin registry");
    })();

  const view = (entry: ConfigEntry) => settingView(entry, settings().describe?.(entry.key));
  app.get("/api/v1/settings", (c) => {
    const entries = settings().list(c.req.query("prefix") ?? "");
    return c.json({ settings: entries.map(view) });
  });
  app.put("/api/v1/settings/:key", async (c) => {
    const key = c.req.param("key");
    const body = await parseBody(c, SettingBody);
    if ("unset" in body) settings().unset(key);
    else if ("text" in body) settings().setFromText(key, body.text);
    else settings().set(key, body.value);
    const entry = settings().list(key).find((e) => e.key === key);
    return c.json({ setting: entry && view(entry) });
  });

  app.get("/api/v1/knowledge", async (c) => c.json({ entries: await knowledge().list() }));
  // The name is a path ("recipes/rice"): the route takes the rest of the URL, slashes included.
  app.get("/api/v1/knowledge/:name{.+}", async (c) => {
    const name = c.req.param("name");
    checkNamePath("knowledge", name);
    const entry = await knowledge().get(name);
    if (!entry) throw new HttpError(404, "not_found", `No knowledge entry "${name}"`);
    return c.json({ entry });
  });
  app.put("/api/v1/knowledge/:name{.+}", async (c) => {
    const name = c.req.param("name");
    checkNamePath("knowledge", name);
    const { content } = await parseBody(c, KnowledgeEdit);
    const port = knowledge();
    if (!port.update) throw notWired("knowledge editing");
    return c.json({ entry: await port.update(name, content) });
  });
  app.post("/api/v1/knowledge", async (c) => {
    const body = await parseBody(c, KnowledgeBody);
    return c.json({ entry: await knowledge().create(body.name, body.content) }, 201);
  });

  app.get("/api/v1/plugins", (c) => c.json({ plugins: plugins().list() }));
  // Two steps: the upload answers what the package asks for; the owner confirms by uploading
  // it again with ?confirm=<its sha256>, so what is installed is exactly what was reviewed.
  app.post(UPLOAD_PATH, async (c) => {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (bytes.length === 0) {
      throw new HttpError(400, "bad_request", "Upload a .hmap file as the body");
    }
    const review = await plugins().review(bytes);
    const confirm = c.req.query("confirm");
    if (confirm === undefined) return c.json({ installed: false, review });
    if (confirm !== review.sha256) {
      throw new HttpError(
        409,
        "review_conflict",
        `This package (sha256 ${review.sha256}) is not the one confirmed (${confirm}); review it again`,
      );
    }
    return c.json({ installed: true, review, plugin: await plugins().install(bytes) }, 201);
  });
  app.post("/api/v1/plugins/:name/:action", async (c) => {
    const name = checkPluginName(c.req.param("name"));
    const port = plugins();
    switch (c.req.param("action")) {
      case "enable":
        return c.json({ plugin: await port.enable(name) });
      case "disable":
        return c.json({ plugin: await port.disable(name) });
      case "reload":
        return c.json({ plugin: await port.reload(name) });
      default:
        throw new HttpError(404, "not_found", "Plugin actions are enable, disable and reload");
    }
  });
  // Uninstall: an installed plugin only (the registry refuses a built-in: it is the program's).
  app.delete("/api/v1/plugins/:name", async (c) => {
    const name = checkPluginName(c.req.param("name"));
    const port = plugins();
    if (!port.uninstall) throw notWired("plugin uninstall");
    await port.uninstall(name);
    return c.json({ uninstalled: name });
  });

  app.get("/api/v1/llm", (c) => {
    if (!deps.llm) throw notWired("LLM source list");
    return c.json({
      sources: deps.llm.sources(),
      usage: deps.llm.usage(),
      ...(deps.llm.report ? { report: deps.llm.report(30) } : {}),
    });
  });
  app.get("/api/v1/agents", (c) => {
    if (!deps.agents) throw notWired("resident list");
    return c.json({ residents: deps.agents.list() });
  });
}
