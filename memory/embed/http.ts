/**
 * An OpenAI-compatible `POST {base_url}/embeddings` endpoint (OpenAI, Ollama's /v1, vLLM,
 * llama.cpp, …): batched, timed out, every failure an EmbeddingError that says what the
 * server did. Vectors are L2-normalised here whatever the server returns.
 * @module
 */
import {
  type Embedder,
  EmbeddingError,
  type EmbedOptions,
  errorMessage,
  type Logger,
  type Modality,
  readBounded,
} from "../../core/mod.ts";
import { formatFingerprint, l2Normalize } from "./fingerprint.ts";

/** Options of createHttpEmbedder. */
export interface HttpEmbedderOptions {
  /** As the provider's SDK takes it, e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Vector length; 0 or absent asks the server once at creation. */
  dim?: number;
  /** Texts per request; default 64. */
  batchSize?: number;
  /** Per request; default 30,000 ms. */
  timeoutMs?: number;
  logger: Logger;
  fetch?: typeof fetch;
}

/**
 * Most bytes of one answer: a batch of 64 texts at 3,072 dimensions is about 4 MB of JSON. The
 * endpoint is outside code; one that sends without end would otherwise grow the daemon.
 */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: unknown }[];
}

/** Build the embedder; probes the dimension when not given (rejects with EmbeddingError). */
export async function createHttpEmbedder(options: HttpEmbedderOptions): Promise<Embedder> {
  if (!options.baseUrl || !options.model) {
    throw new EmbeddingError(
      "http",
      "unavailable",
      "No embeddings endpoint is configured: set core.agent.embedding_http_base_url and core.agent.embedding_http_model",
    );
  }
  const url = `${options.baseUrl.replace(/\/+$/, "")}/embeddings`;
  const post = (texts: readonly string[], signal?: AbortSignal) =>
    request(url, texts, options, signal);
  const dim = options.dim || (await post(["dimension probe"]))[0]!.length;
  const batchSize = options.batchSize ?? 64;
  options.logger.info("Using embeddings endpoint", { url, model: options.model, dim });
  return {
    fingerprint: formatFingerprint({ model: `http/${options.model}`, version: "v1", dim }),
    dim,
    modalities: ["text"] as readonly Modality[],
    async embed(texts: readonly string[], opts: EmbedOptions = {}) {
      const out: Float32Array[] = [];
      for (let at = 0; at < texts.length; at += batchSize) {
        const vectors = await post(texts.slice(at, at + batchSize), opts.signal);
        const wrong = vectors.find((v) => v.length !== dim);
        if (wrong) {
          throw new EmbeddingError(
            "http",
            "failed",
            `Embeddings from "${url}" have dimension ${wrong.length}, expected ${dim}`,
          );
        }
        out.push(...vectors);
      }
      return out;
    },
  };
}

async function request(
  url: string,
  texts: readonly string[],
  options: HttpEmbedderOptions,
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  const fail = (why: string, cause?: unknown) =>
    new EmbeddingError("http", "failed", `Embeddings request to "${url}" failed: ${why}`, {
      cause,
    });
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), options.timeoutMs ?? 30_000);
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  let response: Response;
  let body: string;
  try {
    response = await (options.fetch ?? fetch)(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: options.model, input: texts, encoding_format: "float" }),
      signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal,
    });
    const read = await readBounded(response.body, MAX_ANSWER_BYTES);
    if (read.over) throw new RangeError(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    body = read.text;
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (error instanceof RangeError) throw fail(error.message);
    throw fail(timeout.signal.aborted ? "timed out" : errorMessage(error), error);
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok) throw fail(`HTTP ${response.status}: ${body.slice(0, 200)}`);
  let parsed: EmbeddingsResponse;
  try {
    parsed = JSON.parse(body) as EmbeddingsResponse;
  } catch (error) {
    throw fail("the response is not JSON", error);
  }
  const data = Array.isArray(parsed.data) ? parsed.data : [];
  if (data.length !== texts.length) {
    throw fail(`expected ${texts.length} embeddings, got ${data.length}`);
  }
  const out: Float32Array[] = new Array(texts.length);
  data.forEach((item, i) => {
    const index = typeof item.index === "number" ? item.index : i;
    const values = item.embedding;
    if (!Array.isArray(values) || values.length === 0 || !values.every(Number.isFinite)) {
      throw fail(`embedding ${index} is not a list of numbers`);
    }
    if (index < 0 || index >= texts.length || out[index]) throw fail(`bad index ${index}`);
    out[index] = l2Normalize(Float32Array.from(values as number[]));
  });
  return out;
}
