/**
 * A home as a user's would be after weeks: config written the way `homeagent config set` writes
 * it, and memory seeded through the real tiers (graph facts, documents, a window of events),
 * for benchmarks and end-to-end tests that start a real daemon on it.
 */
import { registerCoreDefaults, silentLogger, type Triple } from "../../core/mod.ts";
import { registerLuaAdapterDefaults, systemClock } from "../../adapters/mod.ts";
import {
  ensureHome,
  openHomeConfig,
  openMemory,
  registerMemoryDefaults,
} from "../../memory/mod.ts";
import { registerPluginSettings } from "../../plugins/mod.ts";

/** Set config keys of `home` as `homeagent config set` does (every module's keys defined). */
export async function configureHome(home: string, values: Record<string, unknown>): Promise<void> {
  const paths = await ensureHome(home);
  using config = openHomeConfig(paths.configDb, {
    clock: systemClock,
    logger: silentLogger,
    env: {},
    command: "homeagent",
    register: [
      registerCoreDefaults,
      registerMemoryDefaults,
      registerLuaAdapterDefaults,
      registerPluginSettings,
    ],
  });
  for (const [key, value] of Object.entries(values)) config.registry.set(key, value);
}

/** An OpenAI-wire source named `name` at `url` with `model` and a declared window. */
export function sourceSettings(
  name: string,
  url: string,
  model: string,
  contextWindow: number,
): Record<string, unknown> {
  const prefix = `core.llm.sources.${name}`;
  return {
    [`${prefix}.adapter`]: "openai",
    [`${prefix}.base_url`]: url,
    [`${prefix}.model`]: model,
    [`${prefix}.context_window`]: contextWindow,
  };
}

/** What seedMemory writes. */
export interface SeedOptions {
  facts?: number;
  documents?: number;
  events?: number;
}

export const PEOPLE = ["Ann", "Bo", "Cy", "Dee", "小明", "小红", "妈妈", "爸爸", "Erik", "Fay"];
export const THINGS = [
  "tea",
  "jazz",
  "Oslo",
  "Bergen",
  "piano",
  "football",
  "北京",
  "上海",
  "cats",
  "garden",
  "nurse",
  "teacher",
  "chess",
  "coffee",
  "hiking",
  "Acme",
  "school",
  "火锅",
  "跑步",
  "书法",
];
const PREDICATES = ["likes", "lives_in", "works_at", "knows", "visited", "喜欢", "认识", "owns"];

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/**
 * Seed `home`'s memory through the real tiers (the daemon must not be running): `facts` graph
 * facts about ten people, `documents` documents, and a window of `events` alternating
 * questions and answers, oldest first. Deterministic.
 */
export async function seedMemory(home: string, options: SeedOptions = {}): Promise<void> {
  const random = rng(5);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const paths = await ensureHome(home);
  using config = openHomeConfig(paths.configDb, {
    clock: systemClock,
    logger: silentLogger,
    env: {},
    command: "homeagent",
    register: [registerCoreDefaults, registerMemoryDefaults],
  });
  const memory = await openMemory({
    paths,
    config: config.registry,
    clock: systemClock,
    logger: silentLogger,
  });
  try {
    const triples: Triple[] = Array.from({ length: options.facts ?? 300 }, (_, i) => ({
      subject: pick(PEOPLE),
      predicate: pick(PREDICATES),
      object: random() < 0.3 ? pick(PEOPLE) : `${pick(THINGS)}${i % 7 === 0 ? ` ${i}` : ""}`,
    }));
    await memory.graph.graph.commit(triples);
    await memory.documents.insertMany(
      Array.from({ length: options.documents ?? 200 }, (_, i) => ({
        content: `On day ${i} ${pick(PEOPLE)} talked about ${pick(THINGS)} and ${pick(THINGS)}; ` +
          `${pick(PEOPLE)} said it was ${pick(["fun", "hard", "新鲜"])}.`,
        source: "cli",
      })),
      { sync: false },
    );
    const start = Date.UTC(2026, 0, 1);
    for (let i = 0; i < (options.events ?? 200); i++) {
      const asks = i % 2 === 0;
      memory.context.append({
        id: `seed-${i}`,
        role: asks ? "user" : "agent",
        source: "cli",
        channel: "cli",
        ...(asks
          ? { input: `Question ${i} about ${pick(THINGS)} and ${pick(PEOPLE)}?` }
          : { response: `Answer ${i}: ${"some words ".repeat(8)}${pick(THINGS)}.` }),
        turnIds: [`seed-turn-${i >> 1}`],
        timestamp: start + i * 60_000,
      });
    }
    await memory.context.commit();
  } finally {
    await memory.close();
  }
}
