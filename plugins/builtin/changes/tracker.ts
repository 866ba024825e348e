/**
 * The change tracker (docs/plugins.md "changes"): every file change the agent makes through
 * `files` and `cmd` lands in the changeset of its turn; a changeset rolls back only when every
 * file is still as the agent left it.
 */
import { dirname } from "node:path";
import { type Clock, HomeAgentError, type Logger } from "../../../core/mod.ts";
import { sha256, writeAtomic } from "../_fs.ts";
import type { Sandbox } from "../files/sandbox.ts";
import {
  type Changeset,
  type ChangesetFile,
  type ChangeStore,
  contentBytes,
  type StoreLimits,
} from "./store.ts";
import type { ChangeRecorder, FileChange } from "./types.ts";

/** A changeset in a list: what changed, not the contents. */
export interface ChangesetSummary {
  id: string;
  turnId: string;
  createdAt: number;
  tools: string[];
  files: { path: string; change: "created" | "modified" | "deleted" }[];
  untracked?: string[];
  rollbackOf?: string;
  rolledBack?: { by: string; at: number };
}

/** Options of a ChangeTracker. */
export interface ChangeTrackerOptions {
  store: ChangeStore;
  clock: Clock;
  logger: Logger;
  limits: () => StoreLimits;
  /** Rollback writes only where the sandbox still allows. */
  sandbox: Sandbox;
}

const TURNS_REMEMBERED = 32;

/** Records, lists and rolls back changesets. Writes are serialised. */
export class ChangeTracker implements ChangeRecorder {
  #options: ChangeTrackerOptions;
  #byTurn = new Map<string, string>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: ChangeTrackerOptions) {
    this.#options = options;
  }

  /** Add `changes` to the changeset of `turnId` (created on its first change). */
  record(
    turnId: string,
    tool: string,
    changes: FileChange[],
    untracked: string[] = [],
  ): Promise<void> {
    if (changes.length === 0 && untracked.length === 0) return Promise.resolve();
    return this.#serial(() => this.#record(turnId, tool, changes, untracked));
  }

  async #record(turnId: string, tool: string, changes: FileChange[], untracked: string[]) {
    const { store, clock } = this.#options;
    const limits = this.#options.limits();
    const known = this.#byTurn.get(turnId);
    const set: Changeset = known
      ? await store.get(known).catch(() => this.#fresh(turnId))
      : this.#fresh(turnId);
    for (const change of changes) {
      const entry: ChangesetFile = {
        path: change.path,
        before: change.beforeUnknown
          ? null
          : await store.content(change.before, limits.maxFileBytes),
        after: await store.content(change.after, limits.maxFileBytes),
        ...(change.beforeUnknown ? { beforeUnknown: true } : {}),
      };
      const at = set.files.findIndex((f) => f.path === change.path);
      // Several changes to one file in a turn: the first before, the last after.
      if (at >= 0) set.files[at] = { ...set.files[at]!, after: entry.after };
      else set.files.push(entry);
    }
    if (!set.tools.includes(tool)) set.tools.push(tool);
    if (untracked.length > 0) {
      set.untracked = [...new Set([...(set.untracked ?? []), ...untracked])].slice(0, 50);
    }
    set.updatedAt = clock.now();
    await store.save(set);
    this.#byTurn.set(turnId, set.id);
    if (this.#byTurn.size > TURNS_REMEMBERED) {
      this.#byTurn.delete(this.#byTurn.keys().next().value!);
    }
    if (!known) await store.prune(limits, clock.now());
  }

  #fresh(turnId: string): Changeset {
    const now = this.#options.clock.now();
    return {
      version: 1,
      id: changesetId(now),
      turnId,
      createdAt: now,
      updatedAt: now,
      tools: [],
      files: [],
    };
  }

  /** Every changeset, newest first, without contents. */
  async list(): Promise<ChangesetSummary[]> {
    return (await this.#options.store.list()).map(summary);
  }

  /** One changeset with its contents. Throws HomeAgentError `changes_not_found`. */
  show(id: string): Promise<Changeset> {
    return this.#options.store.get(id);
  }

  /**
   * Restore every file of changeset `id` to its content before. Refuses (HomeAgentError
   * `changes_conflict`, naming each file and why) when any file changed since, when a content
   * was not kept, or when a path is no longer inside the sandbox. The rollback is itself a
   * changeset, so it can be rolled back too.
   */
  rollback(id: string): Promise<ChangesetSummary> {
    return this.#serial(async () => {
      const { store, clock } = this.#options;
      const set = await store.get(id);
      if (set.rolledBack) {
        throw new HomeAgentError(
          "changes_conflict",
          `Changeset ${id} was already rolled back (by ${set.rolledBack.by})`,
        );
      }
      const problems: string[] = [];
      const current = new Map<string, Uint8Array | null>();
      for (const file of set.files) {
        const problem = await this.#check(file, current);
        if (problem) problems.push(`${file.path}: ${problem}`);
      }
      if (problems.length > 0) {
        throw new HomeAgentError(
          "changes_conflict",
          `Cannot roll back ${id}; nothing was changed:\n- ${problems.join("\n- ")}`,
        );
      }
      for (const file of set.files) await restore(file);
      const undo = this.#fresh(`rollback:${id}`);
      undo.tools = ["changes_rollback"];
      undo.rollbackOf = id;
      const limits = this.#options.limits();
      for (const file of set.files) {
        undo.files.push({
          path: file.path,
          before: await store.content(current.get(file.path) ?? null, limits.maxFileBytes),
          after: file.before,
        });
      }
      await store.save(undo);
      await store.save({ ...set, rolledBack: { by: undo.id, at: clock.now() } });
      this.#options.logger.info("Changeset rolled back", { id, by: undo.id });
      return summary(undo);
    });
  }

  /** Why `file` cannot be restored, or undefined; records its current bytes. */
  async #check(file: ChangesetFile, current: Map<string, Uint8Array | null>) {
    if (file.beforeUnknown || (file.before && file.before.base64 === undefined)) {
      return "its content before was not kept (larger than plugin.changes.max_file_bytes)";
    }
    const checked = await this.#options.sandbox.resolve(file.path).catch((e: Error) => e);
    if (checked instanceof Error) return `no longer inside the sandbox (${checked.message})`;
    if (checked.real !== file.path) return `now resolves elsewhere ("${checked.real}")`;
    const bytes = await Deno.readFile(file.path).catch((error) => {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    });
    current.set(file.path, bytes);
    if (file.after === null) return bytes === null ? undefined : "created again since";
    if (bytes === null) return "deleted since";
    if (await sha256(bytes) !== file.after.sha256) {
      return "changed since (its content differs from the agent's)";
    }
    return undefined;
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn);
    this.#queue = run.catch(() => {});
    return run;
  }
}

async function restore(file: ChangesetFile): Promise<void> {
  if (file.before === null) {
    await Deno.remove(file.path).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
    return;
  }
  await Deno.mkdir(dirname(file.path), { recursive: true, mode: 0o700 });
  await writeAtomic(file.path, contentBytes(file.before)!);
}

function summary(set: Changeset): ChangesetSummary {
  return {
    id: set.id,
    turnId: set.turnId,
    createdAt: set.createdAt,
    tools: set.tools,
    files: set.files.map((f) => ({
      path: f.path,
      change: f.before === null && !f.beforeUnknown
        ? "created"
        : f.after === null
        ? "deleted"
        : "modified",
    })),
    ...(set.untracked ? { untracked: set.untracked } : {}),
    ...(set.rollbackOf ? { rollbackOf: set.rollbackOf } : {}),
    ...(set.rolledBack ? { rolledBack: set.rolledBack } : {}),
  };
}

/** `YYYYMMDD-HHMMSS-xxxx` in UTC. */
function changesetId(now: number): string {
  const iso = new Date(now).toISOString(); // 2026-01-01T12:00:00.000Z
  const stamp = `${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}`;
  const random = crypto.getRandomValues(new Uint8Array(2));
  return `${stamp}-${[...random].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}
