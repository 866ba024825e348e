/** The home directory (DESIGN.md §3): where every file of one HomeAgent lives. */
import { dirname, join } from "node:path";
import { homedir } from "node:os";

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
  plugins: string;
  run: string;
  socket: string;
  pidFile: string;
  logs: string;
}

/** Resolve the home: `--home DIR`, else `$HOMEAGENT_HOME`, else `~/.homeagent`. */
export function resolveHome(flag: string | undefined, env: { HOMEAGENT_HOME?: string }): string {
  const chosen = flag ?? env.HOMEAGENT_HOME ?? join(homedir(), ".homeagent");
  return chosen.startsWith("/") ? chosen : join(Deno.cwd(), chosen);
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
    plugins: join(root, "plugins"),
    run,
    socket: join(run, "homed.sock"),
    pidFile: join(run, "homed.pid"),
    logs: join(root, "logs"),
  };
}

/** The persona written on first start; the owner edits persona.md to change it. */
export const DEFAULT_PERSONA = `# Persona

You are HomeAgent, a personal assistant that lives on your owner's home server.
You remember what matters to the people you talk with, you use tools when they help,
and you answer plainly and briefly. When you do not know, you say so.
`;

/** Create the home's folders and a default persona when missing; returns the paths. */
export async function ensureHome(root: string): Promise<HomePaths> {
  const paths = homePaths(root);
  for (const dir of [root, paths.memory, paths.docs, paths.media, paths.text, paths.knowledge]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  for (const dir of [paths.plugins, paths.run, paths.logs]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  await Deno.chmod(paths.run, 0o700);
  try {
    await Deno.writeTextFile(paths.persona, DEFAULT_PERSONA, { createNew: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  return paths;
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

/**
 * Write `text` to `path` atomically: temp file, fsync, rename, fsync of the folder. With
 * `sync: false` the fsyncs are left to the caller (bulk writes sync the folder once at the end);
 * the file is still either the old or the new one, never a mix.
 */
export async function writeFileAtomic(
  path: string,
  text: string,
  options: { sync?: boolean } = {},
): Promise<void> {
  const sync = options.sync ?? true;
  const tmp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(tmp, text);
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
