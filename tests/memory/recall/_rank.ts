/** rankMemory over window events alone, with a real (empty) DocStore in a temporary folder. */
import type { ContextEvent, Embedder } from "../../../core/mod.ts";
import { ManualClock } from "../../fakes/clock.ts";
import { MemoryLogger } from "../../fakes/logger.ts";
import { createTextAnalyzer, DocStore, rankMemory, type RecallItem } from "../../../memory/mod.ts";
import { defaultRecallSettings } from "../../../memory/recall/config.ts";

/** The window's `events` ranked for `turns` with `embedder`'s default settings, best first. */
export async function rankEvents(
  embedder: Embedder,
  turns: string | string[],
  events: ContextEvent[],
): Promise<RecallItem[]> {
  const dir = await Deno.makeTempDir();
  const analyzer = await createTextAnalyzer();
  const documents = await DocStore.open({
    dir,
    embedder,
    analyzer,
    clock: new ManualClock(),
    logger: new MemoryLogger(),
  });
  try {
    return await rankMemory(turns, { embedder, analyzer, events, documents }, {
      settings: defaultRecallSettings(embedder),
    });
  } finally {
    documents.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** A user event of the window; `vector` is stored in `fingerprint`'s space when given. */
export function inputEvent(
  id: string,
  input: string,
  stored?: { vector: number[]; fingerprint: string },
): ContextEvent {
  return {
    id,
    role: "user",
    source: "cli",
    channel: "cli",
    input,
    turnIds: [id],
    timestamp: 0,
    ...(stored &&
      { vector: { fingerprint: stored.fingerprint, vector: Float32Array.from(stored.vector) } }),
  };
}
