/** plugin.json: the manifest of an installed plugin, validated with zod. */
import { z } from "zod";
import { PLUGIN_NAME, PluginError } from "../../core/mod.ts";
import { CAPABILITIES, type Capability } from "../sdk/protocol.ts";

export { PLUGIN_NAME };

const relativePath = z.lazy(() =>
  z.string().min(1).max(255).refine(
    (p) => !p.startsWith("/") && !p.split(/[\\/]/).includes("..") && !p.includes("\0"),
    { message: "expected a path inside the plugin folder" },
  )
);

const hostName = z.lazy(() =>
  z.string().min(1).max(255).regex(
    /^[A-Za-z0-9.\-_[\]:*]+$/,
    "expected a host or host:port",
  )
);
const envName = z.lazy(() =>
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable")
);

const setting = z.lazy(() =>
  z.object({
    type: z.enum(["string", "number", "boolean", "json"]),
    default: z.unknown(),
    description: z.string().max(500).optional(),
    secret: z.boolean().optional(),
  })
);

/** A declared platform: an OS, optionally with the CPU in npm's (x64) or Deno's (x86_64) words. */
const PLATFORM = /^[a-z]+(?:-(?:x64|arm64|x86_64|aarch64))?$/;

/** The manifest schema. Unknown keys are refused so typos do not pass silently. */
export const ManifestSchema = z.lazy(() =>
  z.strictObject({
    name: z.string().regex(PLUGIN_NAME, "expected 1 to 64 lowercase letters, digits or _"),
    version: z.string().regex(/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/, "expected semver x.y.z"),
    description: z.string().max(1000).optional(),
    entry: relativePath,
    kind: z.enum(["subprocess", "lua", "skill"]),
    platforms: z.array(
      z.string().regex(
        PLATFORM,
        'expected an OS ("linux", "darwin", "windows") or OS-arch ("linux-x64", "darwin-arm64")',
      ),
    ).optional(),
    min_version: z.string().regex(/^\d+\.\d+\.\d+/).optional(),
    capabilities: z.array(z.enum(CAPABILITIES as [Capability, ...Capability[]])).default([]),
    permissions: z.strictObject({
      read: z.array(relativePath).default([]),
      write: z.array(relativePath).default([]),
      net: z.array(hostName).default([]),
      env: z.array(envName).default([]),
      run: z.array(relativePath).default([]),
    }).default({ read: [], write: [], net: [], env: [], run: [] }),
    settings: z.record(z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/), setting).default(
      {},
    ),
    /** Per-call timeout of this plugin's tools, ms. */
    timeout_ms: z.number().int().min(10).max(600_000).optional(),
  })
);

/** A validated plugin.json. */
export type Manifest = z.infer<typeof ManifestSchema>;

/** Parse and validate manifest text; throws PluginError naming the field and the reason. */
export function parseManifest(text: string, where = "plugin.json"): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new PluginError("?", `Cannot read ${where}: not valid JSON`, { cause: error });
  }
  const parsed = ManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const name = typeof (raw as { name?: unknown })?.name === "string"
      ? (raw as { name: string }).name
      : "?";
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new PluginError(name, `Invalid ${where} of plugin "${name}": ${issues.join("; ")}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

/** Read `<dir>/plugin.json`. */
export async function readManifest(dir: string): Promise<Manifest> {
  const path = `${dir}/plugin.json`;
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw new PluginError("?", `Cannot read "${path}": ${(error as Error).message}`, {
      cause: error,
    });
  }
  return parseManifest(text, path);
}

/** Whether `running` (x.y.z) satisfies `min` (x.y.z). */
export function satisfiesMinVersion(running: string, min: string | undefined): boolean {
  if (!min) return true;
  const a = running.split(/[-+]/)[0]!.split(".").map(Number);
  const b = min.split(/[-+]/)[0]!.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    const x = a[i] ?? 0, y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}

/** This machine as a platform name, npm style: `linux-x64`, `darwin-arm64`. */
export function currentPlatform(
  build: { os: string; arch: string } = Deno.build,
): string {
  const arch = build.arch === "x86_64" ? "x64" : build.arch === "aarch64" ? "arm64" : build.arch;
  return `${build.os}-${arch}`;
}

/**
 * Whether the manifest's `platforms` include this machine (absent or empty: every one): its OS
 * alone, or OS-arch in npm's words (`linux-x64`) or Deno's (`linux-x86_64`).
 */
export function supportsPlatform(
  manifest: Pick<Manifest, "platforms">,
  build: { os: string; arch: string } = Deno.build,
): boolean {
  const declared = manifest.platforms ?? [];
  return declared.length === 0 || declared.includes(build.os) ||
    declared.includes(currentPlatform(build)) || declared.includes(`${build.os}-${build.arch}`);
}

/** Throw PluginError unless the manifest's plugin runs on this machine. */
export function checkPlatform(
  manifest: Pick<Manifest, "name" | "platforms">,
  build: { os: string; arch: string } = Deno.build,
): void {
  if (supportsPlatform(manifest, build)) return;
  throw new PluginError(
    manifest.name,
    `Plugin "${manifest.name}" is built for ${manifest.platforms!.join(", ")}, ` +
      `not for this machine (${currentPlatform(build)})`,
  );
}
