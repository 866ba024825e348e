/**
 * What a plugin asks for, as the owner reviews it before install: the same list for
 * `homeagent plugin install` and the web upload. HomeAgent's own environment variables and
 * code outside the sandbox are called out, not just listed.
 */
import { currentPlatform, type Manifest, supportsPlatform } from "./manifest.ts";
import { nativeReason } from "./permissions.ts";

/** A package's requests, for the owner to confirm. */
export interface PermissionReview {
  name: string;
  version: string;
  kind: Manifest["kind"];
  entry: string;
  sha256: string;
  capabilities: string[];
  env: string[];
  /** Of `env`: HomeAgent's own variables (HOMEAGENT_*: API keys, the LLM source, the home). */
  homeagentEnv: string[];
  read: string[];
  write: string[];
  net: string[];
  run: string[];
  /** Why it runs outside the Deno sandbox (refused unless core.plugins.allow_native). */
  native?: string;
  /** The platforms it declares (absent: every one). */
  platforms?: string[];
  /** The review in words, one line each; lines that start with "!" are warnings. */
  lines: string[];
}

/** Review a package's manifest. */
export function reviewManifest(manifest: Manifest, sha256: string): PermissionReview {
  const p = manifest.permissions;
  const homeagentEnv = p.env.filter((name) => name.toUpperCase().startsWith("HOMEAGENT_"));
  const native = manifest.kind === "subprocess" ? nativeReason(manifest) : undefined;
  const review = {
    name: manifest.name,
    version: manifest.version,
    kind: manifest.kind,
    entry: manifest.entry,
    sha256,
    capabilities: manifest.capabilities,
    env: p.env,
    homeagentEnv,
    read: p.read,
    write: p.write,
    net: p.net,
    run: p.run,
    native,
    platforms: manifest.platforms,
  };
  return { ...review, lines: describe(review) };
}

const KIND_NOTE: Record<Manifest["kind"], string> = {
  subprocess: "  runs as its own process, under exactly the Deno permissions listed",
  lua: "  runs in the daemon's Lua VM: no files, processes or environment; HTTP to its hosts only",
  skill: "  a SKILL: instructions the model reads; no code runs",
};

function describe(r: Omit<PermissionReview, "lines">): string[] {
  const lines = [
    `Plugin "${r.name}" ${r.version} (${r.kind}, entry ${r.entry}, sha256 ${
      r.sha256.slice(0, 16)
    }…)`,
    KIND_NOTE[r.kind],
  ];
  const list = (label: string, items: string[]) => {
    if (items.length > 0) lines.push(`  ${label}: ${items.join(", ")}`);
  };
  list("environment variables", r.env);
  list("reads (inside its folder)", r.read);
  list("writes (inside its folder)", r.write);
  list("network hosts", r.net);
  list("programs it starts", r.run);
  if (lines.length === 2) lines.push("  no permissions beyond its own folder and its data/ folder");
  list("capabilities", r.capabilities);
  if (r.homeagentEnv.length > 0) {
    lines.push(
      `! It asks for HomeAgent's own secrets: ${r.homeagentEnv.join(", ")} ` +
        `(API keys and settings of your LLM source); it will be able to read and send them`,
    );
  }
  if (!supportsPlatform({ platforms: r.platforms })) {
    lines.push(
      `! It is built for ${r.platforms!.join(", ")}, not for this machine ` +
        `(${currentPlatform()}): it will not install`,
    );
  }
  if (r.native) {
    lines.push(
      `! ${r.native[0]!.toUpperCase()}${r.native.slice(1)}: it runs outside the sandbox, with ` +
        `your user's rights; refused unless core.plugins.allow_native is true`,
    );
  }
  return lines;
}
