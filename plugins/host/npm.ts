/**
 * Fetching one package from an npm registry, as `plugin install npm:<package>` does: the
 * version's tarball URL and `dist.integrity` come from the registry's packument; the tarball
 * must be served by the same registry and match its sha512 integrity, or nothing is installed.
 * Names and versions are validated before any request; every body is read within a size limit.
 */
import { z } from "zod";
import { errorMessage, NameError, PluginError } from "../../core/mod.ts";
import type { SkillPackage } from "./skills_home.ts";
import { readTarGz, type TarLimits } from "./tar.ts";

/** The public npm registry. */
export const NPM_REGISTRY = "https://registry.npmjs.org";

/** A parsed `npm:<name>[@<version or tag>]`. */
export interface NpmSpec {
  name: string;
  /** An exact version or a dist-tag; absent: `latest`. */
  version?: string;
}

/** A fetched, verified package. */
export interface NpmPackage {
  name: string;
  version: string;
  /** `sha512-…`, as the registry published it and the tarball matched. */
  integrity: string;
  /** Files by path inside the package (npm's leading `package/` folder removed). */
  files: Map<string, Uint8Array>;
}

/** Options of fetchNpmPackage. */
export interface NpmFetchOptions {
  registry?: string;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Largest packument, bytes; default 32 MiB. */
  maxPackumentBytes?: number;
  /** Largest tarball, bytes; default 20 MiB. */
  maxTarballBytes?: number;
  tar?: Partial<TarLimits>;
}

const NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const TAG = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;

/** Parse `npm:<name>[@<version>]`; throws NameError for a name npm would refuse. */
export function parseNpmSpec(spec: string): NpmSpec {
  if (!spec.startsWith("npm:")) throw new TypeError(`Not an npm package spec: "${spec}"`);
  const body = spec.slice(4);
  const at = body.lastIndexOf("@");
  const [name, version] = at > 0 ? [body.slice(0, at), body.slice(at + 1)] : [body, undefined];
  if (name.length > 214 || !NAME.test(name)) {
    throw new NameError("skill", name, "expected an npm package name like @scope/name");
  }
  if (version !== undefined && !VERSION.test(version) && !TAG.test(version)) {
    throw new NameError("skill", version, "expected a version like 1.2.3 or a tag like latest");
  }
  return { name, version };
}

const Packument = z.lazy(() =>
  z.object({
    "dist-tags": z.record(z.string(), z.string()).default({}),
    versions: z.record(
      z.string(),
      z.object({
        version: z.string(),
        dist: z.object({ tarball: z.string(), integrity: z.string().optional() }),
      }),
    ),
  })
);

/** Fetch, verify and unpack `spec` from the registry. Throws PluginError saying what failed. */
export async function fetchNpmPackage(
  spec: NpmSpec,
  options: NpmFetchOptions = {},
): Promise<NpmPackage> {
  const registry = new URL(options.registry ?? NPM_REGISTRY);
  const get = options.fetch ?? fetch;
  const where = `${registry.origin}${registry.pathname.replace(/\/$/, "")}`;
  const packumentUrl = `${where}/${spec.name.replace("/", "%2f")}`;
  const record = await fetchBytes(get, packumentUrl, options.maxPackumentBytes ?? 32 << 20, {
    accept: "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8",
    signal: options.signal,
    what: `the registry's record of "${spec.name}"`,
  });
  const packument = Packument.safeParse(parseJson(record));
  if (!packument.success) {
    throw failure(spec.name, `the registry's record of it is not a package record`);
  }
  const wanted = spec.version ?? "latest";
  const version = packument.data.versions[wanted] ??
    packument.data.versions[packument.data["dist-tags"][wanted] ?? ""];
  if (!version) throw failure(spec.name, `it has no version or tag "${wanted}"`);
  const integrity = sha512Of(version.dist.integrity);
  if (!integrity) {
    throw failure(spec.name, `version ${version.version} publishes no sha512 integrity`);
  }
  const tarball = new URL(version.dist.tarball, where);
  if (tarball.origin !== registry.origin) {
    throw failure(spec.name, `its tarball is not served by the registry (${tarball.origin})`);
  }
  const bytes = await fetchBytes(get, tarball.href, options.maxTarballBytes ?? 20 << 20, {
    signal: options.signal,
    what: `the tarball of ${spec.name}@${version.version}`,
  });
  const actual = await sha512(bytes);
  if (`sha512-${actual}` !== integrity) {
    throw failure(spec.name, `the tarball does not match its integrity (${integrity})`);
  }
  const entries = await readTarGz(bytes, {
    maxTotalBytes: 64 << 20,
    maxEntryBytes: 16 << 20,
    maxFiles: 2000,
    ...options.tar,
  });
  return { name: spec.name, version: version.version, integrity, files: stripRoot(entries) };
}

/** The sha512 entry of an SRI string (several may be listed, space-separated). */
function sha512Of(sri: string | undefined): string | undefined {
  return sri?.split(/\s+/).find((h) => /^sha512-[A-Za-z0-9+/]+={0,2}$/.test(h));
}

async function sha512(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-512", bytes as Uint8Array<ArrayBuffer>);
  let binary = "";
  for (const b of new Uint8Array(digest)) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** npm tarballs hold one top folder (usually `package/`); paths come out relative to it. */
function stripRoot(entries: Map<string, Uint8Array>): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  const roots = new Set([...entries.keys()].map((p) => p.split("/")[0]));
  if (roots.size !== 1 || [...entries.keys()].some((p) => !p.includes("/"))) {
    throw new PluginError("?", "Cannot install package: its files are not in one top folder");
  }
  for (const [path, data] of entries) files.set(path.slice(path.indexOf("/") + 1), data);
  return files;
}

/** Options of fetchBytes. */
export interface FetchBytesOptions {
  accept?: string;
  signal?: AbortSignal;
  /** What is fetched, for the error message. */
  what: string;
  /** Default "error": a registry answers where it was asked. */
  redirect?: RequestRedirect;
}

/** GET `url` into memory, refusing a body over `max` bytes. Throws PluginError saying why. */
export async function fetchBytes(
  get: typeof fetch,
  url: string,
  max: number,
  options: FetchBytesOptions,
): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await get(url, {
      headers: options.accept ? { accept: options.accept } : {},
      signal: options.signal,
      redirect: options.redirect ?? "error",
    });
  } catch (error) {
    throw new PluginError("?", `Cannot fetch ${options.what}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  if (!response.ok) {
    await response.body?.cancel();
    const why = response.status === 404 ? "not found" : `HTTP ${response.status}`;
    throw new PluginError("?", `Cannot fetch ${options.what}: ${why} (${url})`);
  }
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body ?? new ReadableStream<Uint8Array>()) {
    total += chunk.length;
    if (total > max) {
      throw new PluginError("?", `Cannot fetch ${options.what}: larger than ${max} bytes`);
    }
    parts.push(chunk);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) out.set(part, (at += part.length) - part.length);
  return out;
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

function failure(name: string, why: string): PluginError {
  return new PluginError("?", `Cannot install npm package "${name}": ${why}`);
}

/**
 * The skill package `npm:<name>[@version]`, fetched and verified; with `integrity`, the
 * registry must still serve exactly what the owner reviewed.
 */
export async function npmSkillPackage(
  spec: string,
  options: NpmFetchOptions & { integrity?: string } = {},
): Promise<SkillPackage> {
  const pkg = await fetchNpmPackage(parseNpmSpec(spec), options);
  if (options.integrity !== undefined && options.integrity !== pkg.integrity) {
    throw failure(pkg.name, `the registry now serves another tarball than the one reviewed`);
  }
  return { files: pkg.files, source: `npm:${pkg.name}@${pkg.version}`, integrity: pkg.integrity };
}
