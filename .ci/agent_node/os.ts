/**
 * `node:os` for the agent build cache on POSIX (see path.ts): `tmpdir` as Node's, which the
 * agent calls at start (its daemon index); `homedir` from node:os itself, on its first call
 * (a home not named by `--home` or HOMEAGENT_HOME).
 */

/** TMPDIR, TMP or TEMP, else /tmp; without a trailing slash. */
export function tmpdir(): string {
  let path = Deno.env.get("TMPDIR") || Deno.env.get("TMP") || Deno.env.get("TEMP") || "/tmp";
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  return path;
}

/** node:os's own, loaded on the first call. */
export function homedir(): string {
  const os = globalThis.process.getBuiltinModule("node:os") as typeof import("node:os");
  return os.homedir();
}
