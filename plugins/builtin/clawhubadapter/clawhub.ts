/**
 * A client of a ClawHub registry (the OpenClaw skill registry's HTTP API): `GET <search_url>?q=`
 * answers `{results: [{slug, displayName, summary, version, score}]}`, and
 * `GET <download_url>?slug=&version=` a zip of the skill's folder. Both URLs are settings, so a
 * mirror (or a test's loopback fake) serves as well as the public one. Downloads are verified
 * with the same strict zip reader as .hmap packages and recorded with their sha256.
 */
import { z } from "zod";
import { NameError, PluginError } from "../../../core/mod.ts";
import { fetchBytes, readZipFiles, type SkillPackage } from "../../host/mod.ts";

/** One search hit. */
export interface ClawHubHit {
  slug: string;
  displayName?: string;
  summary?: string;
  version?: string;
  score?: number;
}

const SearchAnswer = z.lazy(() =>
  z.object({
    results: z.array(
      z.object({
        slug: z.string(),
        displayName: z.string().nullish(),
        summary: z.string().nullish(),
        version: z.string().nullish(),
        score: z.number().nullish(),
      }).passthrough(),
    ).max(1000),
  }).passthrough()
);

/** ClawHub slugs: lowercase words joined by "-" (they become folder names only through SKILL.md). */
const SLUG = /^[a-z0-9][a-z0-9-]{0,99}$/;
const VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** Largest download, bytes. */
export const CLAWHUB_MAX_BYTES = 20 * 1024 * 1024;

/** Parse `clawhub:<slug>[@version]` (or a bare slug); throws NameError. */
export function parseClawHubSource(source: string): { slug: string; version?: string } {
  const body = source.startsWith("clawhub:") ? source.slice(8) : source;
  const [slug = "", version] = body.split("@");
  if (!SLUG.test(slug)) throw new NameError("skill", slug, "expected a ClawHub slug like gifgrep");
  if (version !== undefined && !VERSION.test(version)) {
    throw new NameError("skill", version, "expected a version like 1.2.3");
  }
  return { slug, version };
}

/** Search `url` for `query`. Throws PluginError when the registry cannot answer. */
export async function searchClawHub(
  url: string,
  query: string,
  options: { limit?: number; fetch?: typeof fetch; signal?: AbortSignal } = {},
): Promise<ClawHubHit[]> {
  const target = new URL(url);
  target.searchParams.set("q", query);
  target.searchParams.set("limit", String(options.limit ?? 10));
  const bytes = await fetchBytes(options.fetch ?? fetch, target.href, 2 << 20, {
    signal: options.signal,
    what: `ClawHub search results from ${target.origin}`,
  });
  let parsed;
  try {
    parsed = SearchAnswer.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) {
    throw new PluginError("?", `ClawHub search at ${target.origin} answered no results list`);
  }
  return parsed.data.results.filter((r) => SLUG.test(r.slug)).map((r) => ({
    slug: r.slug,
    displayName: r.displayName ?? undefined,
    summary: r.summary ?? undefined,
    version: r.version ?? undefined,
    score: r.score ?? undefined,
  }));
}

/** Download and verify the skill `slug` from `url`, as a package to install. */
export async function downloadClawHub(
  url: string,
  source: string,
  options: { fetch?: typeof fetch; signal?: AbortSignal } = {},
): Promise<SkillPackage> {
  const { slug, version } = parseClawHubSource(source);
  const target = new URL(url);
  target.searchParams.set("slug", slug);
  if (version) target.searchParams.set("version", version);
  const bytes = await fetchBytes(options.fetch ?? fetch, target.href, CLAWHUB_MAX_BYTES, {
    signal: options.signal,
    what: `ClawHub skill "${slug}" from ${target.origin}`,
    redirect: "follow", // downloads may be served from the registry's file storage
  });
  const { files } = await readZipFiles(bytes, { maxTotalBytes: 64 << 20, maxEntryBytes: 16 << 20 });
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  const sha256 = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  return {
    files: singleFolder(files),
    source: `clawhub:${slug}${version ? `@${version}` : ""}`,
    integrity: `sha256-${sha256}`,
  };
}

/** A zip of one folder (SKILL.md inside it, none at the root) is read as that folder. */
function singleFolder(files: Map<string, Uint8Array>): Map<string, Uint8Array> {
  if (files.has("SKILL.md")) return files;
  const tops = new Set([...files.keys()].map((p) => p.split("/")[0]));
  const [top] = tops;
  if (tops.size !== 1 || !files.has(`${top}/SKILL.md`)) return files;
  return new Map([...files].map(([p, d]) => [p.slice(top!.length + 1), d]));
}
