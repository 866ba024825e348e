/**
 * The command a person types to run HomeAgent, for every message that tells them what to run
 * ("start one with `homeagent serve`"). Someone who followed the README may have a compiled
 * binary, an installed `homeagent` shim (`deno task install`), the one-file bundle
 * (`deno task bundle`), or only the checkout; a hint that names a command they do not have is
 * worse than none.
 */
import { basename, delimiter, dirname, isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { type LaunchFacts, launchKind } from "./launch.ts";

export { type LaunchFacts, type LaunchKind, launchKind } from "./launch.ts";

/** The installed command's name (`deno task install`, a compiled binary). */
export const PROGRAM = "homeagent";

/**
 * The command prefix to show, in order: a compiled binary (its name when the shell finds one
 * of that name, else its path); the bundle (`deno run -A <bundle>`); an installed `homeagent`
 * on PATH; `deno task homeagent` in the checkout (deno finds the task from any folder inside
 * it); else `deno run -A <repo>/main.ts`, which works from any folder.
 */
export function commandName(facts: LaunchFacts): string {
  const kind = launchKind(facts);
  if (kind === "compiled") {
    const self = basename(facts.execPath);
    return which(self, facts) !== undefined ? self : shellQuote(facts.execPath);
  }
  if (kind === "bundle") return `deno run -A ${shellQuote(facts.bundle!)}`;
  if (which(PROGRAM, facts) !== undefined) return PROGRAM;
  if (within(facts.repo, facts.cwd)) return `deno task ${PROGRAM}`;
  return `deno run -A ${shellQuote(join(facts.repo, "main.ts"))}`;
}

/** The facts of this process. */
export function processLaunchFacts(): LaunchFacts {
  const main = Deno.mainModule;
  // Run from the checkout the main module is main.ts; a bundle is one .js file.
  const bundle = main.startsWith("file:") && /\.m?js$/.test(main) ? fileURLToPath(main) : undefined;
  return {
    execPath: Deno.execPath(),
    repo: dirname(fileURLToPath(new URL("../../../main.ts", import.meta.url))),
    bundle,
    cwd: Deno.cwd(),
    path: Deno.env.get("PATH") ?? "",
    isExecutable(file) {
      try {
        const info = Deno.statSync(file);
        return info.isFile && (info.mode === null || (info.mode & 0o111) !== 0);
      } catch {
        return false;
      }
    },
  };
}

function within(root: string, dir: string): boolean {
  const path = relative(root, dir);
  return !(path === ".." || path.startsWith(`..${sep}`) || isAbsolute(path));
}

function which(name: string, facts: LaunchFacts): string | undefined {
  for (const dir of facts.path.split(delimiter)) {
    if (dir === "") continue;
    const file = join(dir, name);
    if (facts.isExecutable(file)) return file;
  }
  return undefined;
}

/** `text` as one shell word (quoted when it holds anything the shell would read). */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
