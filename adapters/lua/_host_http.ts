/** http_get/http_post of adapter scripts: the host's fetch, limited to the source's own host. */
import { readBounded, type SourceConfig } from "../../core/mod.ts";
import type { LuaHttpHost } from "./vm.ts";

/** Default and longest wait of one script HTTP call, and the largest body handed back. */
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 30_000;
const MAX_BODY = 1024 * 1024;

/** The HTTP host of `source`'s VM; answers are JSON text `{status, body, headers}` or `{error}`. */
export function hostHttp(source: SourceConfig, fetcher?: typeof fetch): LuaHttpHost {
  const fetchFn = fetcher ?? ((input, init) => globalThis.fetch(input, init));
  return async (method, url, body, headers, timeoutMs) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return JSON.stringify({ error: `"${url}" is not a URL` });
    }
    const allowed = hostOf(source.baseUrl);
    if (target.host !== allowed) {
      return JSON.stringify({
        error: `scripts may only reach the source's host "${allowed}", not "${target.host}"`,
      });
    }
    const wait = Math.min(Math.max(timeoutMs || DEFAULT_TIMEOUT_MS, 1), MAX_TIMEOUT_MS);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), wait);
    try {
      const response = await fetchFn(target, {
        method: method.toUpperCase(),
        headers,
        ...(method === "post" ? { body } : {}),
        signal: controller.signal,
      });
      const { text } = await readBounded(response.body, MAX_BODY);
      return JSON.stringify({
        status: response.status,
        body: text,
        headers: Object.fromEntries(response.headers),
      });
    } catch (error) {
      const reason = controller.signal.aborted
        ? `no answer within ${wait} ms`
        : error instanceof Error
        ? error.message
        : String(error);
      return JSON.stringify({ error: reason });
    } finally {
      clearTimeout(timer);
    }
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}
