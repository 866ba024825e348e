/**
 * Which homes have a running daemon, for this user: each daemon leaves one small file in a
 * private runtime folder while it runs. A command that finds no daemon for its home asks it,
 * so "no daemon" can say "but one runs for home Y: pass --home Y" — the usual cause is a
 * daemon started with `--home` or `HOMEAGENT_HOME` in another terminal.
 *
 * The folder: `$HOMEAGENT_RUNTIME_DIR` (empty: no index), else `$XDG_RUNTIME_DIR/homeagent`,
 * else `<tmp>/homeagent-<uid>`. It is used only when it is a real folder owned by this user
 * and closed to others (a folder another user planted in /tmp is ignored).
 */
import { join } from "node:path";
import { tmpdir } from "node:os";
import { z } from "zod";

/** One running daemon. */
export interface DaemonEntry {
  home: string;
  pid: number;
  socket: string;
}

const Entry = z.lazy(() =>
  z.object({ home: z.string(), pid: z.number().int(), socket: z.string() })
);

/** The runtime folder of the index, or undefined when there is none. */
export function daemonIndexDir(
  env: Record<string, string | undefined>,
  uid: number | null,
): string | undefined {
  const chosen = env.HOMEAGENT_RUNTIME_DIR;
  if (chosen !== undefined) return chosen === "" ? undefined : chosen;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, "homeagent");
  return uid === null ? undefined : join(tmpdir(), `homeagent-${uid}`);
}

/** The index in `dir`; every method is best-effort and never throws (a hint is not worth a failure). */
export class DaemonIndex {
  #dir: string | undefined;

  constructor(dir: string | undefined) {
    this.#dir = dir;
  }

  /** Record `entry` while its daemon runs; returns what removes it again. */
  async add(entry: DaemonEntry): Promise<() => Promise<void>> {
    const dir = await this.#usable(true);
    if (!dir) return () => Promise.resolve();
    const file = join(dir, `${await entryName(entry.home)}.json`);
    const tmp = `${file}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    try {
      await Deno.writeTextFile(tmp, JSON.stringify(entry), { mode: 0o600 });
      await Deno.rename(tmp, file);
    } catch {
      await Deno.remove(tmp).catch(() => {});
      return () => Promise.resolve();
    }
    return () => Deno.remove(file).catch(() => {});
  }

  /** The daemons whose socket answers now; entries of daemons that died are removed. */
  async running(): Promise<DaemonEntry[]> {
    const dir = await this.#usable(false);
    if (!dir) return [];
    const found: DaemonEntry[] = [];
    try {
      for await (const item of Deno.readDir(dir)) {
        if (!item.isFile || !item.name.endsWith(".json")) continue;
        const entry = await readEntry(join(dir, item.name));
        if (!entry) continue;
        if (await answers(entry.socket)) found.push(entry);
        else await Deno.remove(join(dir, item.name)).catch(() => {});
      }
    } catch {
      // the folder went away or cannot be read: no hint
    }
    return found.sort((a, b) => a.home.localeCompare(b.home));
  }

  /** The folder when it is safe to use: ours, a real folder, closed to others. */
  async #usable(create: boolean): Promise<string | undefined> {
    const dir = this.#dir;
    if (!dir) return undefined;
    try {
      if (create) await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
      const info = await Deno.lstat(dir);
      const uid = Deno.uid();
      if (!info.isDirectory || info.isSymlink) return undefined;
      if (uid !== null && info.uid !== uid) return undefined;
      if (info.mode !== null && (info.mode & 0o077) !== 0) return undefined;
      return dir;
    } catch {
      return undefined;
    }
  }
}

async function readEntry(path: string): Promise<DaemonEntry | undefined> {
  try {
    const parsed = Entry.safeParse(JSON.parse(await Deno.readTextFile(path)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

async function answers(socket: string): Promise<boolean> {
  try {
    (await Deno.connect({ transport: "unix", path: socket })).close();
    return true;
  } catch {
    return false;
  }
}

async function entryName(home: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(home));
  return [...new Uint8Array(digest).slice(0, 8)].map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}
