/**
 * The rule distiller (ARCHITECTURE.md "Memory Flow" ⑤, "Distillation Pipeline"): personal facts
 * a person states about themself, matched by pattern in Chinese and English, as triples about
 * the speaker. Pure functions; memory/loops/heartbeat.ts runs it over the text log every 10
 * minutes, and the archive loop over cold documents when no model answers.
 *
 * Deliberately conservative: questions ("我叫什么？", "do I like jazz?") state nothing; negations
 * never match ("我不喜欢", "I don't like"); an object that is a pronoun or a clause ("I like that
 * you…", "我爱你", "I like it") is not a fact worth keeping and yields no triple. Coordinated
 * objects ("火锅和烧烤", "cats and dogs") become one fact each. The rules live in _distill_rules.ts.
 */
import type { Triple } from "../../core/mod.ts";
import { type DistilledFact, RULES } from "./_distill_rules.ts";

export { DISTILLED } from "./_distill_rules.ts";
export { chineseNumber } from "./_numbers.ts";
export { splitCoordinated } from "./_coordination.ts";

/** Options of distillText. */
export interface DistillOptions {
  /** The speaking person; default "owner". */
  subject?: string;
  turnIds?: readonly string[];
  /** Confidence of a rule fact; default 0.9. */
  confidence?: number;
}

/** The facts `text` states about its speaker (and their pets), in rule order, each once. */
export function distillText(text: string, options: DistillOptions = {}): Triple[] {
  const speaker = options.subject?.trim() || "owner";
  const triples: Triple[] = [];
  const seen = new Set<string>();
  for (const sentence of splitSentences(text)) {
    if (isQuestion(sentence)) continue;
    for (const rule of RULES) {
      const match = rule.pattern.exec(sentence);
      if (!match) continue;
      for (const fact of rule.facts(match)) {
        const triple = toTriple(fact, speaker, sentence, options);
        const key = `${triple.subject}\u0000${triple.predicate}\u0000${triple.object}`;
        if (seen.has(key)) continue;
        seen.add(key);
        triples.push(triple);
      }
    }
  }
  return triples;
}

function toTriple(
  fact: DistilledFact,
  speaker: string,
  sentence: string,
  options: DistillOptions,
): Triple {
  return {
    subject: fact.subject ?? speaker,
    predicate: fact.predicate,
    object: fact.object,
    subjectType: fact.subjectType ?? "person",
    ...(fact.objectType ? { objectType: fact.objectType } : {}),
    confidence: options.confidence ?? 0.9,
    sentence: sentence.trim(),
    turnIds: [...(options.turnIds ?? [])],
  };
}

/** Sentences of `text`: split at end punctuation and line breaks. */
export function splitSentences(text: string): string[] {
  return text.split(/(?<=[。！？!?；;\n])|(?<=\.)\s+/u).map((s) => s.trim()).filter((s) =>
    s !== ""
  );
}

function isQuestion(sentence: string): boolean {
  return /[?？]\s*$/u.test(sentence) ||
    /(?:吗|么|什么|谁|哪里|哪儿|多少|几岁)\s*[。.]?$/u.test(sentence) ||
    /^(?:do|does|did|am|is|are|what|who|where|how|can|could|would|should)\b/i.test(sentence);
}
