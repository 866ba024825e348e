/** The text an event of the window is embedded and scored by, and what is done to it. */
import type { ContextEvent } from "./context.ts";
import type { TextRedactor } from "../memory/forget.ts";

/** Whitespace normalisation applied last before vectorising (CleanText). */
export function cleanText(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The text an event is scored by: agent → response (+ tool outputs), user → input, cold → both.
 * Tool outputs are recorded already filtered by each tool's memory policy (the turn applies it).
 */
export function textForVector(event: ContextEvent): string {
  const known = memo.get(event);
  if (known && sameText(known, event)) return known.text;
  const text = computeText(event);
  memo.set(event, {
    role: event.role,
    input: event.input,
    response: event.response,
    outputs: event.tools?.map((t) => t.output),
    text,
  });
  return text;
}

/**
 * Each event's text as last computed, with the fields it was computed from. A recall asks for
 * the text of every event of the window several times (the known vectors, the recent turns,
 * the context tier's ranking), and cutting and cleaning ~100 of them anew was ~3% of a recall
 * and its garbage; an event changed in place since is computed again.
 */
const memo = new WeakMap<ContextEvent, EventTextKey & { text: string }>();

interface EventTextKey {
  role: ContextEvent["role"];
  input?: string;
  response?: string;
  outputs?: string[];
}

function sameText(key: EventTextKey, event: ContextEvent): boolean {
  if (key.role !== event.role || key.input !== event.input || key.response !== event.response) {
    return false;
  }
  const tools = event.tools;
  if (tools === undefined || key.outputs === undefined) return tools === key.outputs;
  return tools.length === key.outputs.length && tools.every((t, i) => t.output === key.outputs![i]);
}

function computeText(event: ContextEvent): string {
  const parts: string[] = [];
  if (event.role === "user") parts.push(event.input ?? "");
  else if (event.role === "agent") {
    parts.push(event.response ?? "");
    for (const tool of event.tools ?? []) parts.push(tool.output);
  } else parts.push(event.input ?? "", event.response ?? "");
  return cleanText(parts.join("\n"));
}

/** The dot product of `query` with each vector (all L2-normalised: the cosine). */
export function dotScores(query: Float32Array, vectors: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(vectors.length);
  vectors.forEach((v, i) => {
    let sum = 0;
    for (let j = 0; j < v.length; j++) sum += v[j]! * query[j]!;
    out[i] = sum;
  });
  return out;
}

/** `event` with forgotten names blanked out (and no vector), or `event` itself when clean. */
export function redactEvent(event: ContextEvent, redactor: TextRedactor): ContextEvent {
  const texts = [event.input, event.response, ...(event.tools ?? []).map((t) => t.output)];
  if (!texts.some((t) => t !== undefined && redactor.mentions(t))) return event;
  const { vector: _, ...rest } = event;
  const blank = (text: string | undefined) =>
    text === undefined ? undefined : redactor.redact(text);
  return {
    ...rest,
    ...(event.input === undefined ? {} : { input: blank(event.input) }),
    ...(event.response === undefined ? {} : { response: blank(event.response) }),
    ...(event.tools
      ? { tools: event.tools.map((t) => ({ ...t, output: redactor.redact(t.output) })) }
      : {}),
  };
}
