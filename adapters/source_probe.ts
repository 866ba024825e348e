/**
 * Trying an LLM source before it is saved (the page's setup screen): the models its API lists
 * (OpenAI-style `GET /models`, Anthropic `GET /v1/models`, Gemini `models.list`, Ollama
 * `GET /api/tags`) and one small real call through the source's own adapter. Both go over the
 * adapters' HTTP plumbing, so a failure is the same one-sentence ProviderError a chat would get.
 */
import { z } from "zod";
import {
  errorMessage,
  ProviderError,
  type ProviderFactory,
  silentLogger,
  type SourceConfig,
} from "../core/mod.ts";
import { clientTarget, type NativeClientOptions } from "./_client.ts";
import {
  asProviderError,
  HttpExchange,
  type HttpTarget,
  parseJson,
  SourceFailures,
} from "./_http.ts";

/** Most model names one listing returns (a hostile server cannot grow the page without end). */
export const MAX_LISTED_MODELS = 2000;
/** Largest listing body read, per page. */
const MAX_LIST_BYTES = 4 * 1024 * 1024;
/** Pages followed (Anthropic's `after_id`, Gemini's `pageToken`). */
const MAX_PAGES = 10;

/** The outcome of a test call: the model's answer, or the source's error in words. */
export type SourceTestResult =
  | { ok: true; model: string; text: string; ms: number }
  | { ok: false; error: ProbeFailure };

/** The outcome of a model listing: the ids, or the source's error in words. */
export type ModelListResult =
  | { ok: true; models: string[] }
  | { ok: false; error: ProbeFailure };

/** A failed probe as the page shows it. */
export interface ProbeFailure {
  kind: string;
  message: string;
  status?: number;
}

/** Lists models and makes test calls for sources not (yet) saved. */
export interface SourceProbe {
  /** The model ids the source's API lists, sorted; never rejects. */
  models(source: SourceConfig, options?: { signal?: AbortSignal }): Promise<ModelListResult>;
  /** One short non-streamed call through the source's adapter; never rejects. */
  test(source: SourceConfig, options?: { signal?: AbortSignal }): Promise<SourceTestResult>;
}

/** Options of createSourceProbe. */
export interface SourceProbeOptions extends NativeClientOptions {
  /** Builds the source's Provider as the daemon would (native and Lua adapters). */
  factory: ProviderFactory;
}

/** A SourceProbe over the daemon's adapters. */
export function createSourceProbe(options: SourceProbeOptions): SourceProbe {
  const { factory, ...http } = options;
  return {
    async models(source, call = {}) {
      try {
        return { ok: true, models: await listModels(source, { ...http, signal: call.signal }) };
      } catch (error) {
        return { ok: false, error: probeFailure(error) };
      }
    },
    async test(source, call = {}) {
      const started = performance.now();
      try {
        const provider = factory(source);
        const response = await provider.chat({
          messages: [{ role: "user", content: "Reply with the single word OK." }],
          maxTokens: 16,
        }, { signal: call.signal });
        const ms = Math.round(performance.now() - started);
        return { ok: true, model: response.model || source.model, text: response.text, ms };
      } catch (error) {
        return { ok: false, error: probeFailure(error) };
      }
    },
  };
}

/** A probe's error as data: a ProviderError's kind and status, else the error's message. */
export function probeFailure(error: unknown): ProbeFailure {
  if (!(error instanceof ProviderError)) return { kind: "config", message: errorMessage(error) };
  return {
    kind: error.kind,
    message: error.message,
    ...(error.status !== undefined ? { status: error.status } : {}),
  };
}

const OpenAIList = z.lazy(() => z.object({ data: z.array(z.object({ id: z.string() })) }));
const AnthropicList = z.lazy(() =>
  z.object({
    data: z.array(z.object({ id: z.string() })),
    has_more: z.boolean().optional(),
    last_id: z.string().nullish(),
  })
);
const GeminiList = z.lazy(() =>
  z.object({
    models: z.array(z.object({
      name: z.string(),
      supportedGenerationMethods: z.array(z.string()).optional(),
    })).optional(),
    nextPageToken: z.string().optional(),
  })
);
const OllamaTags = z.lazy(() => z.object({ models: z.array(z.object({ name: z.string() })) }));

/** One page of a listing: names, and the query that fetches the next page if there is one. */
interface Page {
  names: string[];
  next?: string;
}

/** How one wire family lists its models. */
interface Lister {
  path: string;
  headers(source: SourceConfig): Record<string, string>;
  read(json: unknown): Page;
}

const bearer = (source: SourceConfig): Record<string, string> =>
  source.apiKey ? { authorization: `Bearer ${source.apiKey}` } : {};

const LISTERS: Record<"openai" | "anthropic" | "gemini" | "ollama", Lister> = {
  openai: {
    path: "/models",
    headers: bearer,
    read: (json) => ({ names: OpenAIList.parse(json).data.map((m) => m.id) }),
  },
  anthropic: {
    path: "/v1/models?limit=1000",
    headers: (source) => ({ "x-api-key": source.apiKey ?? "", "anthropic-version": "2023-06-01" }),
    read(json) {
      const list = AnthropicList.parse(json);
      const next = list.has_more && list.last_id ? `after_id=${list.last_id}` : undefined;
      return { names: list.data.map((m) => m.id), next };
    },
  },
  gemini: {
    path: "/models?pageSize=1000",
    headers: (source) => ({ "x-goog-api-key": source.apiKey ?? "" }),
    read(json) {
      const list = GeminiList.parse(json);
      // Only the models that can chat: embedding and image models list other methods.
      const names = (list.models ?? [])
        .filter((m) => m.supportedGenerationMethods?.includes("generateContent") ?? true)
        .map((m) => m.name.replace(/^models\//, ""));
      const token = list.nextPageToken;
      return { names, next: token ? `pageToken=${encodeURIComponent(token)}` : undefined };
    },
  },
  ollama: {
    path: "/api/tags",
    headers: bearer,
    read: (json) => ({ names: OllamaTags.parse(json).models.map((m) => m.name) }),
  },
};

/** The wire family of an adapter name: Anthropic, Gemini, Ollama, else OpenAI-compatible. */
export function listerFamily(adapter: string): keyof typeof LISTERS {
  const name = adapter.trim().toLowerCase().replace(/^lua:/, "");
  return name === "anthropic" || name === "gemini" || name === "ollama" ? name : "openai";
}

/** The model ids `source` lists, sorted and unique; rejects with ProviderError. */
export async function listModels(
  source: SourceConfig,
  options: NativeClientOptions & { signal?: AbortSignal } = {},
): Promise<string[]> {
  const lister = LISTERS[listerFamily(source.adapter)];
  const base = clientTarget(source, lister.path, { logger: silentLogger, ...options });
  const names = new Set<string>();
  let query: string | undefined;
  for (let page = 0; page < MAX_PAGES && names.size < MAX_LISTED_MODELS; page++) {
    const url = query ? `${base.url}${base.url.includes("?") ? "&" : "?"}${query}` : base.url;
    const target: HttpTarget = { ...base, url, headers: lister.headers(source) };
    const read = await getPage(target, lister.read, options.signal);
    for (const name of read.names) names.add(name);
    if (!read.next) break;
    query = read.next;
  }
  return [...names].slice(0, MAX_LISTED_MODELS).sort();
}

/** GET `target` and read its JSON, within MAX_LIST_BYTES; rejects with ProviderError. */
async function getPage(
  target: HttpTarget,
  read: (json: unknown) => Page,
  signal?: AbortSignal,
): Promise<Page> {
  const failures = new SourceFailures(target.source, target.url);
  let exchange: HttpExchange | undefined;
  try {
    exchange = await HttpExchange.open(target, undefined, signal);
    let text = "";
    for await (const chunk of exchange.chunks()) {
      text += chunk;
      if (text.length > MAX_LIST_BYTES) {
        throw failures.malformed(`a model list larger than ${MAX_LIST_BYTES} bytes`);
      }
    }
    return read(parseJson(text, failures, "a model list"));
  } catch (error) {
    if (error instanceof z.ZodError) throw failures.malformed("a model list of another shape");
    throw asProviderError(error, failures, signal);
  } finally {
    exchange?.close();
  }
}
