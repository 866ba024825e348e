/**
 * Commit of triples into the graph database, inside the caller's transaction: upsert entities
 * (by normalised name or alias), reinforce an identical open relation instead of inserting it
 * twice, close the superseded value of a functional predicate, link the source sentence.
 */
import type { CommitResult, Triple } from "../../core/mod.ts";
import {
  DEFAULT_ENTITY_TYPE,
  displayName,
  isSingleValued,
  normalizeName,
  normalizePredicate,
} from "./schema.ts";
import { type GraphSql, mergeTurnIds, reinforce } from "./_rows.ts";

/** What commitTriples did, with the entities whose vector must be (re)computed. */
export interface CommitOutcome extends CommitResult {
  /** Entities inserted or renamed by this commit. */
  fresh: number[];
}

/** Commit `triples`; the caller holds the transaction. Throws TypeError on a blank field. */
export function commitTriples(g: GraphSql, triples: readonly Triple[]): CommitOutcome {
  const now = g.now();
  const touched = new Set<number>();
  const fresh: number[] = [];
  const out: CommitOutcome = { entities: 0, relations: 0, reinforced: 0, closed: 0, fresh };
  for (const t of triples) {
    const source = upsertEntity(g, t.subject, t.subjectType, now, fresh);
    const target = upsertEntity(g, t.object, t.objectType, now, fresh);
    touched.add(source).add(target);
    const type = normalizePredicate(t.predicate);
    const relation = {
      source,
      target,
      type,
      confidence: clamp(t.confidence ?? 1),
      validFrom: t.validFrom ?? now,
      turnIds: t.turnIds ?? [],
      sessionId: t.sessionId,
    };
    // The same fact: open, or closed but true at the new statement's time (an old exchange
    // distilled late says again what history already holds; it is not a second fact).
    const same = g.get(
      `select id, confidence, turn_ids from relations where source_id = ? and target_id = ?
         and type = ? and status = 'active'
         and (valid_to is null or (valid_from <= ?4 and valid_to > ?4))
       order by valid_to is not null limit 1`,
      BigInt(source),
      BigInt(target),
      type,
      BigInt(relation.validFrom),
    );
    let id: number;
    if (same) {
      id = Number(same.id);
      g.run(
        `update relations set confidence = ?, mentions = mentions + 1, turn_ids = ?,
           session_id = coalesce(?, session_id), updated_at = ? where id = ?`,
        reinforce(Number(same.confidence), relation.confidence),
        JSON.stringify(mergeTurnIds(JSON.parse(String(same.turn_ids)), relation.turnIds)),
        relation.sessionId ?? null,
        BigInt(now),
        BigInt(id),
      );
      out.reinforced++;
    } else {
      const validTo = isSingleValued(type) && !t.keepOthers
        ? supersede(g, relation, now, out)
        : undefined;
      id = insertRelation(g, relation, validTo, now);
      out.relations++;
    }
    if (t.sentence?.trim()) linkSentence(g, id, t.sentence.trim(), relation, now);
  }
  out.entities = touched.size;
  return out;
}

/**
 * Commit the triples not already stored: a relation with the same subject, predicate, object
 * and start of validity (open or closed) is the same fact and is skipped, so importing an
 * export twice changes nothing. The caller holds the transaction.
 */
export function commitNewTriples(
  g: GraphSql,
  triples: readonly Triple[],
): CommitOutcome & { skipped: number } {
  const fresh = triples.filter((t) => t.validFrom === undefined || !stored(g, t, t.validFrom));
  return { ...commitTriples(g, fresh), skipped: triples.length - fresh.length };
}

function stored(g: GraphSql, t: Triple, validFrom: number): boolean {
  const source = g.entityId(displayName(t.subject));
  const target = g.entityId(displayName(t.object));
  if (source === undefined || target === undefined) return false;
  return g.get(
    `select 1 from relations where source_id = ? and target_id = ? and type = ?
       and valid_from = ? and status = 'active' limit 1`,
    BigInt(source),
    BigInt(target),
    normalizePredicate(t.predicate),
    BigInt(validFrom),
  ) !== undefined;
}

/** The id of the entity `name`, inserted when new; counts a mention and revives a deleted one. */
export function upsertEntity(
  g: GraphSql,
  name: string,
  type: string | undefined,
  now: number,
  fresh: number[],
): number {
  const shown = displayName(name);
  const kind = type?.trim().toLowerCase() || undefined;
  const id = g.entityId(shown);
  if (id !== undefined) {
    g.run(
      `update entities set mentions = mentions + 1, updated_at = ?, status = 'active',
         type = case when type = ? and ? is not null then ? else type end where id = ?`,
      BigInt(now),
      DEFAULT_ENTITY_TYPE,
      kind ?? null,
      kind ?? null,
      BigInt(id),
    );
    return id;
  }
  const row = g.get(
    `insert into entities (name, norm, type, created_at, updated_at) values (?, ?, ?, ?, ?)
     returning id`,
    shown,
    normalizeName(shown),
    kind ?? DEFAULT_ENTITY_TYPE,
    BigInt(now),
    BigInt(now),
  );
  const created = Number(row!.id);
  fresh.push(created);
  return created;
}

interface NewRelation {
  source: number;
  target: number;
  type: string;
  confidence: number;
  validFrom: number;
  turnIds: readonly string[];
  sessionId?: string;
}

/**
 * Close the subject's open values of a functional predicate at the new fact's start. When an
 * open value started later than the new fact (an old fact learned late), nothing is closed and
 * the new fact is returned closed instead: its `validTo` is that later start.
 */
function supersede(
  g: GraphSql,
  r: NewRelation,
  now: number,
  out: CommitResult,
): number | undefined {
  const open = g.all(
    `select id, valid_from from relations where source_id = ? and type = ?
       and status = 'active' and valid_to is null and target_id != ?`,
    BigInt(r.source),
    r.type,
    BigInt(r.target),
  );
  const later = open.map((o) => Number(o.valid_from)).filter((from) => from > r.validFrom);
  if (later.length > 0) return Math.min(...later);
  for (const o of open) {
    g.run(
      "update relations set valid_to = ?, updated_at = ? where id = ?",
      BigInt(r.validFrom),
      BigInt(now),
      BigInt(Number(o.id)),
    );
    out.closed++;
  }
  return undefined;
}

function insertRelation(
  g: GraphSql,
  r: NewRelation,
  validTo: number | undefined,
  now: number,
): number {
  const row = g.get(
    `insert into relations (source_id, target_id, type, confidence, valid_from, valid_to,
       session_id, turn_ids, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
    BigInt(r.source),
    BigInt(r.target),
    r.type,
    r.confidence,
    BigInt(r.validFrom),
    validTo === undefined ? null : BigInt(validTo),
    r.sessionId ?? null,
    JSON.stringify(r.turnIds),
    BigInt(now),
    BigInt(now),
  );
  return Number(row!.id);
}

function linkSentence(
  g: GraphSql,
  relationId: number,
  text: string,
  r: NewRelation,
  now: number,
): void {
  const existing = g.get("select id, turn_ids from sentences where text = ?", text);
  let sentenceId: number;
  if (existing) {
    sentenceId = Number(existing.id);
    const turns = mergeTurnIds(JSON.parse(String(existing.turn_ids)), r.turnIds);
    g.run(
      "update sentences set turn_ids = ? where id = ?",
      JSON.stringify(turns),
      BigInt(sentenceId),
    );
  } else {
    sentenceId = Number(
      g.get(
        `insert into sentences (text, session_id, turn_ids, created_at) values (?, ?, ?, ?)
         returning id`,
        text,
        r.sessionId ?? null,
        JSON.stringify(r.turnIds),
        BigInt(now),
      )!.id,
    );
  }
  g.run(
    "insert or ignore into relation_sentences (relation_id, sentence_id) values (?, ?)",
    BigInt(relationId),
    BigInt(sentenceId),
  );
}

function clamp(confidence: number): number {
  if (!Number.isFinite(confidence)) throw new RangeError(`Invalid confidence "${confidence}"`);
  return Math.min(1, Math.max(0, confidence));
}
