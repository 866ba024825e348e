/**
 * The home directory (DESIGN.md §3): where every file of one HomeAgent lives. It holds the web
 * token, API keys and every conversation, so it is private whatever the umask: folders 0700,
 * databases and state files 0600 (docs/security.md).
 */
import { dirname, join } from "node:path";
import { homedir } from "node:os";
import type { Logger } from "../core/mod.ts";

/** Absolute paths of a home directory's files. */
export interface HomePaths {
  root: string;
  configDb: string;
  persona: string;
  memory: string;
  context: string;
  docs: string;
  graphDb: string;
  media: string;
  text: string;
  knowledge: string;
  /** Skills as the ecosystem writes them: <name>/SKILL.md. */
  skills: string;
  plugins: string;
  run: string;
  socket: string;
  pidFile: string;
  logs: string;
  /** The agent's working folder and the files/cmd sandbox root. */
  agentfs: string;
  changesets: string;
  timers: string;
}

/** Resolve the home: `--home DIR`, else `$HOMEAGENT_HOME`, else `~/.homeagent`. */
export function resolveHome(flag: string | undefined, env: { HOMEAGENT_HOME?: string }): string {
  const chosen = flag ?? env.HOMEAGENT_HOME ?? join(homedir(), ".homeagent");
  return chosen.startsWith("/") ? chosen : join(Deno.cwd(), chosen);
}

/**
 * `root`, once it is known not to be a file: else throw HomeAgentError "home_not_folder", for
 * every command would fail on it later with an OS error's bare text ("File exists (os error
 * 17): mkdir …"). A home that does not exist yet is fine: serve makes it.
 */
export async function checkHomeFolder(root: string): Promise<string> {
  let where = "it is a file, not a folder";
  try {
    if (Deno.statSync(root).isDirectory) return root;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return root;
    if (!(error instanceof Deno.errors.NotADirectory)) throw error;
    where = "a file is in its path";
  }
  // Loaded only on this failure, as in plugins/guard/running.ts: the guard stays small.
  const { HomeAgentError }: typeof import("../core/mod.ts") = await import("../core/" + "mod.ts");
  throw new HomeAgentError(
    "home_not_folder",
    `Cannot use home "${root}": ${where}; pass --home (or set HOMEAGENT_HOME) to a folder, ` +
      "or move the file away",
  );
}

/** The paths of the home at `root`. */
export function homePaths(root: string): HomePaths {
  const memory = join(root, "memory");
  const run = join(root, "run");
  return {
    root,
    configDb: join(root, "config.db"),
    persona: join(root, "persona.md"),
    memory,
    context: join(memory, "context.json"),
    docs: join(memory, "docs"),
    graphDb: join(memory, "graph.db"),
    media: join(memory, "media"),
    text: join(memory, "text"),
    knowledge: join(root, "knowledge"),
    skills: join(root, "skills"),
    plugins: join(root, "plugins"),
    run,
    socket: join(run, "homed.sock"),
    pidFile: join(run, "homed.pid"),
    logs: join(root, "logs"),
    agentfs: join(root, "agentfs"),
    changesets: join(root, "changesets"),
    timers: join(root, "timers.json"),
  };
}

/** The persona written on first start; the owner edits persona.md to change it. */
export const DEFAULT_PERSONA = `# Persona

You are HomeAgent, a personal assistant that lives on your owner's home server.
You remember what matters to the people you talk with, you use tools when they help,
and you answer plainly and briefly. When you do not know, you say so.
`;

/** The files of a home that hold secrets or conversations, relative to its root. */
export const PRIVATE_FILES = [
  "config.db",
  "usage.db",
  "memory/graph.db",
  "memory/docs/index.db",
  "memory/context.json",
  "memory/context.journal",
  "timers.json",
];

/** Options of ensureHome. */
export interface EnsureHomeOptions {
  /** Told (warn) when loose modes of an existing home were tightened. */
  logger?: Logger;
}

/**
 * Create the home's folders (0700) and a default persona when missing, and tighten an existing
 * home whose folders or private files others could read; returns the paths.
 */
export function ensureHome(root: string, options: EnsureHomeOptions = {}): Promise<HomePaths> {
  try {
    return Promise.resolve(ensureHomeNow(root, options));
  } catch (error) {
    return Promise.reject(error); // a failure rejects, as from the async function it was
  }
}

function ensureHomeNow(root: string, options: EnsureHomeOptions): HomePaths {
  const paths = homePaths(root);
  const folders = [root, paths.memory, paths.docs, paths.media, paths.text, paths.knowledge];
  folders.push(paths.plugins, paths.run, paths.logs, paths.agentfs, paths.changesets);
  // Sync on purpose: each async call is an event-loop turn, and Deno's async writeTextFile loads
  // its web streams module on first use (~17 ms of a fresh home's start at load 6).
  for (const dir of folders) Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tightened = folders.filter((dir) => keepPrivate(dir, 0o700));
  for (const file of PRIVATE_FILES) {
    const path = join(root, file);
    const sqlite = file.endsWith(".db") ? [`${path}-wal`, `${path}-shm`] : [];
    tightened.push(...[path, ...sqlite].filter((p) => keepPrivate(p, 0o600)));
  }
  if (tightened.length > 0) {
    options.logger?.warn("Tightened loose permissions in the home (others could read them)", {
      paths: tightened,
    });
  }
  try {
    Deno.writeTextFileSync(paths.persona, DEFAULT_PERSONA, { createNew: true, mode: 0o600 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  return paths;
}

/**
 * Give `path` mode `mode` when its group or others have any access; true when it changed.
 * A missing file is left alone (false). No-op on Windows, which has no such modes.
 */
export function keepPrivate(path: string, mode: 0o600 | 0o700): boolean {
  if (Deno.build.os === "windows") return false;
  let current: number | null;
  try {
    current = Deno.statSync(path).mode;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  if (current === null || (current & 0o077) === 0) return false;
  Deno.chmodSync(path, mode);
  return true;
}

/** Read the persona; a missing file yields the default (the owner may delete it to reset). */
export function readPersona(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return DEFAULT_PERSONA;
    throw error;
  }
}

/** The persona file as the page edits it: the text (the default when missing), saved atomically. */
export function personaFile(path: string): { read(): string; write(text: string): Promise<void> } {
  return { read: () => readPersona(path), write: (text) => writeFileAtomic(path, text) };
}

/**
 * Write `text` to `path` atomically: temp file, fsync, rename, fsync of the folder. With
 * `sync: false` the fsyncs are left to the caller (bulk writes sync the folder once at the end);
 * the file is still either the old or the new one, never a mix. The file is created 0600: what
 * the home writes is private.
 */
export async function writeFileAtomic(
  path: string,
  text: string,
  options: { sync?: boolean } = {},
): Promise<void> {
  const sync = options.sync ?? true;
  const tmp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(tmp, text, { mode: 0o600 });
    if (sync) await syncPath(tmp);
    await Deno.rename(tmp, path);
  } catch (error) {
    await Deno.remove(tmp).catch(() => {});
    throw error;
  }
  if (sync) await syncPath(dirname(path));
}

/** fsync a file or a folder (a folder's fsync makes renames inside it durable). */
export async function syncPath(path: string): Promise<void> {
  const file = await Deno.open(path, { read: true });
  try {
    await file.sync();
  } finally {
    file.close();
  }
}

/** Whether something exists at `path` (a link counts, not followed); throws on other errors. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
