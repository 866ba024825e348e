/** Context events for tests that fill a window. */
import type { ContextEvent } from "../../core/mod.ts";

/** Event `e<i>` of the CLI channel, a user's unless `fields` says otherwise. */
export function cliEvent(i: number, fields: Partial<ContextEvent> = {}): ContextEvent {
  return { id: `e${i}`, role: "user", source: "cli", channel: "cli", timestamp: i, ...fields };
}
