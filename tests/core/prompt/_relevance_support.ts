/** The window's fixtures for the RelevanceContext and persistence tests: a disk in memory, events. */
import {
  type ContextEvent,
  type ContextRecord,
  type ContextSnapshot,
  type ContextStore,
  RelevanceContext,
  type RelevanceContextOptions,
  type StoredContext,
} from "../../../core/mod.ts";
import { cliEvent } from "../../fakes/context.ts";
import { createHashEmbedder } from "../../../memory/embed/hash.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";

/**
 * A store that keeps what a disk would: the last snapshot and the journal after it.
 * `durable()` is what a process started after a crash would load.
 */
export class MemoryContextStore implements ContextStore {
  saves: ContextSnapshot[] = [];
  appends: ContextRecord[][] = [];
  initial?: ContextSnapshot;
  journal: ContextRecord[] = [];
  load(): Promise<StoredContext> {
    return Promise.resolve(this.durable());
  }
  save(snapshot: ContextSnapshot) {
    this.saves.push(structuredClone(snapshot));
    this.initial = structuredClone(snapshot);
    this.journal = [];
    return Promise.resolve();
  }
  append(records: readonly ContextRecord[]) {
    this.appends.push(structuredClone([...records]));
    this.journal.push(...structuredClone([...records]));
    return Promise.resolve();
  }
  durable(): StoredContext {
    return structuredClone({ snapshot: this.initial, journal: this.journal });
  }
  /** What a process started after a crash finds on this "disk". */
  restarted(): MemoryContextStore {
    const next = new MemoryContextStore();
    const { snapshot, journal } = this.durable();
    next.initial = snapshot;
    next.journal = journal;
    return next;
  }
}

export const HOUR = 3_600_000;
export const T0 = Date.UTC(2026, 0, 1);

export function event(i: number, text: string, extra: Partial<ContextEvent> = {}): ContextEvent {
  return cliEvent(i, { input: text, turnIds: [`t${i}`], timestamp: T0 + i * HOUR, ...extra });
}

export async function setup(overrides: Partial<RelevanceContextOptions> = {}) {
  const clock = new ManualClock(T0);
  const store = new MemoryContextStore();
  const archived: ContextEvent[][] = [];
  const context = await RelevanceContext.load({
    clock,
    logger: new MemoryLogger(),
    embedder: createHashEmbedder(),
    store,
    archive: (events) => {
      archived.push(events);
      return Promise.resolve();
    },
    topK: () => 14,
    ...overrides,
  });
  return { clock, store, archived, context };
}
