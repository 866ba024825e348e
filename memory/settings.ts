/**
 * The storage layer registers the keys it reads (docs/configuration.md): the embedding space,
 * `core.agent.embedding*` (memory/embed/config.ts), the media tier's (memory/media/config.ts), and the heartbeats, `core.memory.*`
 * (memory/loops/settings.ts), and recall's, `core.memory.recall.*` (memory/recall/config.ts). The kernel registers its own in core/config/core_defaults.ts.
 */
import type { ConfigRegistry } from "../core/mod.ts";
import { registerEmbeddingDefaults } from "./embed/config.ts";
import { registerMediaDefaults } from "./media/config.ts";
import { registerMemoryLoopDefaults } from "./loops/settings.ts";
import { registerRecallDefaults } from "./recall/config.ts";

/** Define every memory key. Throws TypeError when called twice on one registry. */
export function registerMemoryDefaults(registry: ConfigRegistry): void {
  registerEmbeddingDefaults(registry);
  registerMediaDefaults(registry);
  registerMemoryLoopDefaults(registry);
  registerRecallDefaults(registry);
}
