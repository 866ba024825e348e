/**
 * The sandbox of the files and cmd plugins: every path the model names must resolve, through
 * every symbolic link, inside one of the allowed roots (`<home>/agentfs/` and
 * `plugin.files.roots`). Checked on real paths — of the file and of each parent, also for a
 * file that does not exist yet — so `..`, absolute paths and links pointing out are refused.
 */
import { basename, dirname, isAbsolute, join, normalize, relative, resolve } from "node:path";
import { HomeAgentError } from "../../../core/mod.ts";

/** A path the sandbox refused; the message says which path and what is allowed. */
export class SandboxError extends HomeAgentError {
  constructor(message: string) {
    super("sandbox_refused", message);
  }
}

/** A checked path: `real` is absolute and inside `root`. */
export interface SandboxPath {
  real: string;
  root: string;
  /** The path as the model should name it: relative to the default root when inside it. */
  shown: string;
  exists: boolean;
}

/** Resolves paths for the tools; every method may throw SandboxError. */
export interface Sandbox {
  /** The default root (relative paths start here), as configured. */
  readonly home: string;
  /** The roots in effect, real paths, default first; missing roots are left out. */
  roots(): Promise<string[]>;
  /** Check `path` (relative to `base`, default the default root). */
  resolve(path: string, options?: { base?: string }): Promise<SandboxPath>;
}

/** Whether `path` is `root` or inside it (both absolute and normalised). */
export function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** A sandbox over `home` (created when missing) and the extra roots `extra()` names. */
export function createSandbox(home: string, extra: () => readonly string[] = () => []): Sandbox {
  const roots = async () => {
    const out: string[] = [];
    for (const root of [home, ...extra()]) {
      if (!isAbsolute(root)) continue;
      const real = await Deno.realPath(root).catch(() => undefined);
      if (real && !out.includes(real)) out.push(real);
    }
    return out;
  };
  const allowed = () => [home, ...extra()].join(", ");
  return {
    home,
    roots,
    async resolve(path, options = {}) {
      if (path.includes("\0")) throw new SandboxError(`Path contains a NUL byte`);
      const real = await roots();
      if (real.length === 0) {
        throw new SandboxError(`No sandbox root exists (configured: ${allowed()})`);
      }
      const lexical = isAbsolute(path)
        ? normalize(path)
        : resolve(options.base ?? real[0]!, path === "" ? "." : path);
      const lexicalRoots = [home, ...extra(), ...real].filter(isAbsolute).map((r) => normalize(r));
      if (!lexicalRoots.some((root) => within(root, lexical))) {
        throw new SandboxError(
          `Path "${path}" is outside the sandbox; allowed folders: ${allowed()}`,
        );
      }
      const { target, exists } = await realTarget(lexical, path);
      const root = real.find((r) => within(r, target));
      if (!root) {
        throw new SandboxError(
          `Path "${path}" resolves to "${target}" through a symbolic link, outside the ` +
            `sandbox; allowed folders: ${allowed()}`,
        );
      }
      const rel = relative(real[0]!, target);
      const shown = within(real[0]!, target) ? (rel === "" ? "." : rel) : target;
      return { real: target, root, shown, exists };
    },
  };
}

/**
 * The real path `lexical` names: the real path of its longest existing ancestor plus the
 * missing rest. A dangling link on the way is refused, since writing through it would create
 * its target wherever it points.
 */
async function realTarget(
  lexical: string,
  asked: string,
): Promise<{ target: string; exists: boolean }> {
  const missing: string[] = [];
  let at = lexical;
  for (;;) {
    try {
      const real = await Deno.realPath(at);
      return { target: missing.length ? join(real, ...missing) : real, exists: !missing.length };
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    const link = await Deno.lstat(at).then((s) => s.isSymlink, () => false);
    if (link) {
      throw new SandboxError(`Path "${asked}" goes through a dangling symbolic link "${at}"`);
    }
    missing.unshift(basename(at));
    const up = dirname(at);
    if (up === at) return { target: lexical, exists: false };
    at = up;
  }
}
