/** The memory heartbeats' settings, `core.memory.*` (docs/configuration.md "Memory heartbeats"). */
import { z } from "zod";
import type { ConfigRegistry } from "../../core/mod.ts";

const MINUTE = 60_000;
const interval = z.lazy(() => z.int().min(0).max(7 * 24 * 60 * MINUTE));

/** The `core.memory.*` keys, their defaults and what they mean. */
export const MEMORY_LOOP_KEYS = [
  {
    key: "core.memory.distill_interval_ms",
    default: 30 * MINUTE,
    description: "Milliseconds between context prunes into documents (distill loop); 0 disables",
  },
  {
    key: "core.memory.archive_interval_ms",
    default: 60 * MINUTE,
    description: "Milliseconds between cold-document archivals into the graph; 0 disables",
  },
  {
    key: "core.memory.merge_interval_ms",
    default: 120 * MINUTE,
    description: "Milliseconds between entity merge detections; 0 disables",
  },
  {
    key: "core.memory.review_interval_ms",
    default: 120 * MINUTE,
    description: "Milliseconds between reviews of low-confidence relations; 0 disables",
  },
  {
    key: "core.memory.rule_distill_interval_ms",
    default: 10 * MINUTE,
    description:
      "Milliseconds between rule distillations of the text log into the graph; 0 disables",
  },
] as const;

/** Define the `core.memory.*` keys (registerMemoryDefaults calls it). Throws TypeError when twice. */
export function registerMemoryLoopDefaults(registry: ConfigRegistry): void {
  for (const k of MEMORY_LOOP_KEYS) {
    registry.define({
      key: k.key,
      schema: () => interval,
      default: k.default,
      description: k.description,
    });
  }
  registry.define({
    key: "core.memory.review_below",
    schema: () => z.number().min(0).max(1),
    default: 0.6,
    description: "Relations with a confidence below this are sent to the review loop",
  });
}
