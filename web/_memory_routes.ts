/**
 * The memory view's routes: the graph (search, filters by entity type and time), an entity's
 * facts, every version of a fact, edit / close / reopen / delete of a fact, forgetting, the
 * documents (one read whole) and the context window. Each answers 501 without its port.
 */
import type { Env, Hono } from "hono";
import { z } from "zod";
import type { GraphRecall } from "../core/mod.ts";
import type { MemoryPort, WebDeps } from "./ports.ts";
import { HttpError, notWired, parseBody, parseQuery } from "./_http.ts";

const ForgetBody = z.lazy(() => z.object({ name: z.string().min(1).max(1000) }));
const RelationBody = z.lazy(() =>
  z.object({
    type: z.string().min(1).max(200).optional(),
    target: z.string().min(1).max(500).optional(),
    confidence: z.number().min(0).max(1).optional(),
    status: z.enum(["active", "deleted"]).optional(),
    close: z.boolean().optional(),
    reopen: z.boolean().optional(),
  }).refine((b) => !(b.close && b.reopen), "close and reopen exclude each other")
);

/** A time in a query: milliseconds since 1970, or an ISO date or date-time. */
const Instant = z.lazy(() =>
  z.string().max(40).transform((text, ctx) => {
    const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
    if (!Number.isSafeInteger(ms) || ms < 0) {
      ctx.addIssue({
        code: "custom",
        message: `expected ms since 1970 or an ISO date, not "${text}"`,
      });
      return z.NEVER;
    }
    return ms;
  })
);

/** A count in a query, clamped into its bounds (a page asking for too many gets the most). */
const limit = (fallback: number, max: number) =>
  z.string().optional().transform((text) => {
    const n = Number(text);
    return text === undefined || !Number.isFinite(n)
      ? fallback
      : Math.min(max, Math.max(1, Math.trunc(n)));
  });

const GraphQuery = z.lazy(() =>
  z.object({
    q: z.string().max(1000).default(""),
    limit: limit(150, 500),
    types: z.string().max(2000).optional().transform((text) =>
      text?.split(",").map((t) => t.trim().toLowerCase()).filter((t) => t !== "")
    ),
    at: Instant.optional(),
    since: Instant.optional(),
  })
);

const ListQuery = z.lazy(() =>
  z.object({ q: z.string().max(1000).default(""), limit: limit(50, 500) })
);

/** Document ids are the store's own: letters, digits, `-` and `_`. */
const DOCUMENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Mount the memory routes on `app`. */
export function mountMemoryRoutes<E extends Env>(app: Hono<E>, deps: WebDeps): void {
  const memory = (): MemoryPort =>
    deps.memory ?? (() => {
      throw notWired("memory view");
    })();

  app.get("/api/v1/memory/graph", async (c) => {
    const query = parseQuery(c, GraphQuery);
    const graph = memory().graph;
    const keywords = query.q.trim() === "" ? [] : query.q.split(/[\s,，]+/).filter((k) => k);
    const filtered = query.types?.length || query.at !== undefined || query.since !== undefined;
    const found = filtered
      ? await graph.browse({
        keywords,
        types: query.types,
        validAt: query.at,
        changedSince: query.since,
        limit: query.limit,
      })
      : await graph.recall({ keywords, depth: keywords.length === 0 ? 1 : 2, limit: query.limit });
    return c.json({ ...withEndpoints(found), types: await graph.entityTypes() });
  });
  app.get("/api/v1/memory/entities/:name", async (c) => {
    const name = c.req.param("name");
    const entity = await memory().graph.entity(name);
    if (!entity) throw new HttpError(404, "not_found", `No entity "${name}"`);
    const relations = await memory().graph.history(entity.name, { limit: 200 });
    return c.json({ entity, relations });
  });
  app.delete("/api/v1/memory/entities/:name", async (c) => {
    return c.json(await memory().graph.deleteEntity(c.req.param("name")));
  });
  app.get("/api/v1/memory/relations/:id/versions", async (c) => {
    return c.json({ versions: await memory().graph.versions(relationId(c.req.param("id"))) });
  });
  app.patch("/api/v1/memory/relations/:id", async (c) => {
    const patch = await parseBody(c, RelationBody);
    return c.json({
      relation: await memory().graph.editRelation(relationId(c.req.param("id")), patch),
    });
  });
  app.delete("/api/v1/memory/relations/:id", async (c) => {
    const relation = await memory().graph.editRelation(relationId(c.req.param("id")), {
      status: "deleted",
    });
    return c.json({ relation });
  });
  // Forget a name everywhere (graph, documents, context window, text log), leaving a tombstone.
  app.post("/api/v1/memory/forget", async (c) => {
    const { name } = await parseBody(c, ForgetBody);
    const forget = memory().forget;
    if (!forget) throw notWired("forget action");
    return c.json({ report: await forget(name) });
  });
  app.get("/api/v1/memory/documents", async (c) => {
    const { q, limit } = parseQuery(c, ListQuery);
    const query = q.trim();
    return c.json({ documents: await memory().documents({ query: query || undefined, limit }) });
  });
  app.get("/api/v1/memory/documents/:id", async (c) => {
    const id = c.req.param("id");
    if (!DOCUMENT_ID.test(id)) throw new HttpError(400, "bad_request", `Bad document id "${id}"`);
    const read = memory().document;
    if (!read) throw notWired("document reader");
    const document = await read(id);
    if (!document) throw new HttpError(404, "not_found", `No document "${id}"`);
    return c.json({ document });
  });
  app.get("/api/v1/memory/context", async (c) => {
    const q = (c.req.query("q") ?? "").trim();
    return c.json(await memory().context(q === "" ? undefined : q));
  });
}

/** Relations plus every entity they touch, so the page can draw each edge. */
function withEndpoints(recall: GraphRecall): GraphRecall {
  const names = new Set(recall.entities.map((e) => e.name));
  const extra = new Map<string, GraphRecall["entities"][number]>();
  let next = -1;
  for (const r of recall.relations) {
    for (const name of [r.source, r.target]) {
      if (names.has(name) || extra.has(name)) continue;
      extra.set(name, { id: next--, name, type: "", mentions: 0, createdAt: 0, updatedAt: 0 });
    }
  }
  return { entities: [...recall.entities, ...extra.values()], relations: recall.relations };
}

function relationId(text: string): number {
  const id = Number(text);
  if (!Number.isInteger(id) || id < 1) {
    throw new HttpError(400, "bad_request", `Bad relation id "${text}"`);
  }
  return id;
}
