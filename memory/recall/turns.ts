/** The turns a chat recall is asked with: the window's newest events, then the input. */
import type { ContextEvent, Input } from "../../core/mod.ts";
import { textForVector } from "../../core/mod.ts";

/**
 * Up to `count` texts, oldest first, ending with `input.text`: the newest events of the window
 * before the input (its own event, recorded already, is not counted twice), inputs and replies
 * alike; NoMemory events and events without words are left out.
 */
export function recentTurns(
  events: readonly ContextEvent[],
  input: Pick<Input, "id" | "text">,
  count: number,
): string[] {
  const earlier: string[] = [];
  for (let i = events.length - 1; i >= 0 && earlier.length < count - 1; i--) {
    const event = events[i]!;
    if (event.noMemory || event.turnIds?.includes(input.id)) continue;
    const text = textForVector(event).trim();
    if (text !== "") earlier.push(text);
  }
  return [...earlier.reverse(), input.text];
}
