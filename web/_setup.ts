/**
 * First run (docs/web.md "Setup"): with no LLM source the page opens on a setup screen that
 * lists a source's models and test-calls it through the daemon's own adapters (the browser never
 * talks to a provider), saves it as the `core.llm.sources.<name>.*` keys, edits the persona,
 * and installs the semantic memory model with its progress streamed as SSE.
 */
import type { Env, Hono } from "hono";
import { z } from "zod";
import { errorMessage, HomeAgentError, type SourceConfig } from "../core/mod.ts";
import type { ModelInstallStep, SetupPort, WebDeps } from "./ports.ts";
import { HttpError, notWired, parseBody } from "./_http.ts";
import { sseFrame } from "./event_hub.ts";

/** The name a source is saved under when the page gives none. */
export const DEFAULT_SOURCE_NAME = "main";

const httpUrl = z.lazy(() =>
  z.string().max(2000).refine((text) => {
    try {
      return ["http:", "https:"].includes(new URL(text).protocol);
    } catch {
      return false;
    }
  }, "expected an http:// or https:// URL")
);

/** A source as the setup screen sends it (the fields of its config keys). */
const SourceDraft = z.lazy(() =>
  z.object({
    name: z.string().regex(/^[a-z0-9_-]{1,40}$/, "expected 1-40 of a-z, 0-9, _ and -")
      .refine((name) => name !== "env", '"env" is the environment\'s source')
      .default(DEFAULT_SOURCE_NAME),
    adapter: z.string().regex(/^(lua:)?[a-z0-9_-]{1,40}$/, 'expected an adapter such as "openai"'),
    baseUrl: httpUrl,
    apiKey: z.string().max(4096).optional(),
    model: z.string().trim().max(200).default(""),
  })
);
type SourceDraft = z.infer<typeof SourceDraft>;

const WithModel = SourceDraft.refine((d) => d.model !== "", {
  message: "choose a model",
  path: ["model"],
});
const PersonaBody = z.lazy(() => z.object({ text: z.string().trim().min(1).max(100_000) }));
const InstallBody = z.lazy(() =>
  z.object({
    name: z.string().min(1).max(64).optional(),
    from: z.string().min(1).max(4096).optional(),
  })
);

/** Mount the setup routes on `app`. */
export function mountSetup<E extends Env>(app: Hono<E>, deps: WebDeps): void {
  const setup = (): SetupPort =>
    deps.setup ?? (() => {
      throw notWired("setup screen");
    })();

  app.get("/api/v1/setup", (c) => {
    const sources = deps.llm?.sources() ?? [];
    return c.json({
      needed: sources.length === 0,
      sources: sources.map((s) => ({ name: s.name, adapter: s.adapter, model: s.model })),
      persona: setup().persona.read(),
    });
  });
  app.post("/api/v1/setup/models", async (c) => {
    const source = sourceOf(await parseBody(c, SourceDraft));
    return c.json(await setup().models(source, { signal: c.req.raw.signal }));
  });
  app.post("/api/v1/setup/test", async (c) => {
    const source = sourceOf(await parseBody(c, WithModel));
    return c.json(await setup().test(source, { signal: c.req.raw.signal }));
  });
  app.post("/api/v1/setup/source", async (c) => {
    const draft = await parseBody(c, WithModel);
    saveSource(deps, draft);
    return c.json(
      { source: { name: draft.name, adapter: draft.adapter, model: draft.model } },
      201,
    );
  });
  app.put("/api/v1/setup/persona", async (c) => {
    const { text } = await parseBody(c, PersonaBody);
    await setup().persona.write(text.endsWith("\n") ? text : text + "\n");
    return c.json({ persona: setup().persona.read() });
  });
  mountModelRoutes(app, setup);
}

function sourceOf(draft: SourceDraft): SourceConfig {
  return {
    name: draft.name,
    adapter: draft.adapter,
    baseUrl: draft.baseUrl,
    ...(draft.apiKey ? { apiKey: draft.apiKey } : {}),
    model: draft.model,
    enabled: true,
  };
}

/**
 * Write the draft's keys (validated above, so the registry refuses none); an empty key leaves
 * a stored one as it was, so re-saving a source need not repeat its secret.
 */
function saveSource(deps: WebDeps, draft: SourceDraft): void {
  const settings = deps.settings;
  if (!settings) throw notWired("settings registry");
  const key = (field: string) => `core.llm.sources.${draft.name}.${field}`;
  settings.set(key("adapter"), draft.adapter);
  settings.set(key("base_url"), draft.baseUrl);
  settings.set(key("model"), draft.model);
  if (draft.apiKey) settings.set(key("api_key"), draft.apiKey);
  settings.set(key("enabled"), true);
}

/** Download steps sent at most this often (in percent of the file). */
const PROGRESS_STEP = 1;

function mountModelRoutes<E extends Env>(app: Hono<E>, setup: () => SetupPort): void {
  const model = () =>
    setup().memoryModel ?? (() => {
      throw notWired("memory model installer");
    })();
  let installing = false;

  app.get("/api/v1/memory/model", async (c) => c.json(await model().status()));
  // One install at a time: an SSE stream of `progress` events, then `done` or `error`.
  app.post("/api/v1/memory/model/install", async (c) => {
    const request = await parseBody(c, InstallBody);
    const installer = model();
    if (installing) throw new HttpError(409, "install_conflict", "A model is being installed");
    installing = true;
    const signal = c.req.raw.signal;
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        const send = (event: string, data: unknown) => {
          try {
            controller.enqueue(encoder.encode(sseFrame({ event, data: JSON.stringify(data) })));
          } catch {
            // the page went away; its signal stops the install (a download resumes next time)
          }
        };
        try {
          const onProgress = throttled((step) => send("progress", step));
          send("done", await installer.install(request, { onProgress, signal }));
        } catch (error) {
          const code = error instanceof HomeAgentError ? error.code : "internal";
          send("error", { code, message: errorMessage(error) });
        } finally {
          installing = false;
          try {
            controller.close();
          } catch {
            // already cancelled by the client
          }
        }
      },
    });
    return new Response(body, {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  });
}

/** Pass every phase change on, and a download's bytes only when its percent moved. */
function throttled(send: (step: ModelInstallStep) => void): (step: ModelInstallStep) => void {
  let last = "";
  return (step) => {
    const { bytes, total } = step;
    const percent = typeof bytes === "number" && typeof total === "number" && total > 0
      ? Math.floor((bytes / total) * 100 / PROGRESS_STEP)
      : -1;
    const mark = `${step.phase}:${String(step.file ?? "")}:${percent}`;
    if (mark === last) return;
    last = mark;
    send(step);
  };
}
