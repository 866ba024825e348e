/** The graph's bulk paths: export of every fact, and fast inserts of a known-clean graph. */
import type { Triple } from "../../core/mod.ts";
import { withTransaction } from "../sqlite.ts";
import type { GraphSql } from "./_rows.ts";
import { DEFAULT_ENTITY_TYPE, displayName, normalizeName } from "./schema.ts";

/** Rows for GraphDB.bulkEntities and bulkRelations (relations name entity ids). */
export interface BulkGraph {
  entities: { name: string; type?: string; mentions?: number }[];
  relations: { source: number; target: number; type: string; validFrom: number }[];
}

/** Insert `entities` in one transaction without de-duplication; their ids in order. */
export function bulkEntities(g: GraphSql, entities: BulkGraph["entities"]): number[] {
  const now = BigInt(g.now());
  return withTransaction(g.db, () => {
    const insert = g.sql(
      `insert into entities (name, norm, type, mentions, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?) returning id`,
    );
    return entities.map((e) =>
      Number(
        insert.get(
          displayName(e.name),
          normalizeName(e.name),
          e.type ?? DEFAULT_ENTITY_TYPE,
          BigInt(e.mentions ?? 1),
          now,
          now,
        )!.id,
      )
    );
  });
}

/** Insert `relations` between entity ids in one transaction, without superseding. */
export function bulkRelations(g: GraphSql, relations: BulkGraph["relations"]): void {
  const now = BigInt(g.now());
  withTransaction(g.db, () => {
    const insert = g.sql(
      `insert into relations (source_id, target_id, type, valid_from, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?)`,
    );
    for (const r of relations) {
      insert.run(BigInt(r.source), BigInt(r.target), r.type, BigInt(r.validFrom), now, now);
    }
  });
}

/** Every fact not deleted (open and closed), oldest first, with names and sentences. */
export function exportFacts(g: GraphSql): (Triple & { validTo?: number })[] {
  return g.db.prepare(
    `select s.name as subject, s.type as subject_type, r.type as predicate,
       t.name as object, t.type as object_type, r.confidence, r.valid_from, r.valid_to,
       r.session_id, r.turn_ids,
       (select se.text from relation_sentences rs join sentences se on se.id = rs.sentence_id
         where rs.relation_id = r.id limit 1) as sentence
     from relations r
     join entities s on s.id = r.source_id
     join entities t on t.id = r.target_id
     where r.status = 'active'
     order by r.valid_from, r.id`,
  ).all().map((r) => ({
    subject: String(r.subject),
    subjectType: String(r.subject_type),
    predicate: String(r.predicate),
    object: String(r.object),
    objectType: String(r.object_type),
    confidence: Number(r.confidence),
    validFrom: Number(r.valid_from),
    validTo: r.valid_to === null ? undefined : Number(r.valid_to),
    sessionId: r.session_id === null ? undefined : String(r.session_id),
    turnIds: JSON.parse(String(r.turn_ids)) as string[],
    sentence: r.sentence === null ? undefined : String(r.sentence),
  }));
}
