/** Helpers shared by the adapter tests. */
import type { SourceConfig } from "../../core/llm/sources.ts";
import type { StreamEvent } from "../../core/llm/provider.ts";

/** A source named "main" pointing at `baseUrl`. */
export function sourceAt(baseUrl: string, overrides: Partial<SourceConfig> = {}): SourceConfig {
  return { name: "main", adapter: "openai", baseUrl, model: "gpt-4o", enabled: true, ...overrides };
}

/** Every event of a stream, in order. */
export async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The text of the text deltas. */
export function textOf(events: StreamEvent[]): string {
  return events.map((e) => e.type === "text_delta" ? e.text : "").join("");
}

/** The last event, which must be `done` or `error`. */
export function lastOf(events: StreamEvent[]): StreamEvent {
  const last = events.at(-1);
  if (!last) throw new Error("The stream produced no event");
  return last;
}

/** A port on 127.0.0.1 that refuses connections (it was free a moment ago). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
