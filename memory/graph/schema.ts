/**
 * The graph database's schema (memory/graph.db) as ordered migrations, and the naming rules
 * every graph statement shares: how names and predicates are normalised and which predicates
 * are functional (a new value closes the old one instead of contradicting it).
 */

/** The type of an entity committed without one. */
export const DEFAULT_ENTITY_TYPE = "entity";

/** A display name: trimmed, inner whitespace collapsed. Throws TypeError when blank. */
export function displayName(name: string): string {
  const shown = name.normalize("NFKC").trim().replace(/\s+/g, " ");
  if (shown === "") throw new TypeError("Cannot use a blank entity name");
  return shown;
}

/** The identity of a name: its display form lower-cased. "  Ann  SMITH" ≡ "ann smith". */
export function normalizeName(name: string): string {
  return displayName(name).toLowerCase();
}

/** A predicate as stored: trimmed, lower-cased, inner whitespace as "_" ("Lives in" → "lives_in"). */
export function normalizePredicate(predicate: string): string {
  const p = predicate.normalize("NFKC").trim().toLowerCase().replace(/\s+/g, "_");
  if (p === "") throw new TypeError("Cannot use a blank predicate");
  return p;
}

/**
 * Functional predicates: one value at a time for one subject, so committing
 * `Ann —lives_in→ Bergen` closes an open `Ann —lives_in→ Oslo` (the old fact stays in history
 * with its validity). Every other predicate holds many values: a second pet, sister or liked
 * dish is one more true fact, never a replacement. Keep this list short: a predicate wrongly
 * here silently retires true facts, one wrongly missing only leaves an outdated fact open
 * until the model closes it (`memory_edit close`). Traits (`trait:<name>`) are single-valued
 * per trait name.
 */
export const FUNCTIONAL_PREDICATES: ReadonlySet<string> = new Set([
  // name
  "name",
  "full_name",
  "named",
  "called",
  "姓名",
  "名字",
  "叫",
  "名叫",
  // age and birthday
  "age",
  "年龄",
  "岁数",
  "birthday",
  "date_of_birth",
  "born_on",
  "生日",
  "出生日期",
  // residence
  "lives_in",
  "lives_at",
  "residence",
  "home_city",
  "address",
  "居住地",
  "住在",
  "住址",
  "现居",
  // job and work place
  "job",
  "occupation",
  "profession",
  "job_title",
  "works_as",
  "works_at",
  "works_for",
  "employer",
  "职业",
  "工作",
  "职位",
  "工作单位",
  "就职于",
  // spouse
  "spouse",
  "spouse_of",
  "married_to",
  "wife",
  "husband",
  "配偶",
  "妻子",
  "丈夫",
  "老婆",
  "老公",
  // origin and birthplace
  "born_in",
  "birthplace",
  "hometown",
  "comes_from",
  "origin",
  "出生地",
  "籍贯",
  "家乡",
  "老家",
  // one measure at a time
  "gender",
  "height",
  "weight",
  "性别",
  "身高",
  "体重",
  "species",
  "物种",
]);

/** Whether a new value of `predicate` (normalised) closes the subject's previous one. */
export function isSingleValued(predicate: string): boolean {
  return predicate.startsWith("trait:") || FUNCTIONAL_PREDICATES.has(predicate);
}

/**
 * Ordered migrations; never edit a shipped one, append a new one. The walk's two partial
 * indexes carry every column BFS and ranking read (status and valid_to too), so both run on
 * covering indexes without touching the relations table.
 */
export const GRAPH_MIGRATIONS: readonly string[] = [
  `create table entities (
     id integer primary key,
     name text not null,
     norm text not null unique,
     type text not null default 'entity',
     mentions integer not null default 1,
     status text not null default 'active' check (status in ('active', 'deleted')),
     aliases text not null default '',
     created_at integer not null,
     updated_at integer not null,
     fingerprint text,
     vector blob
   );
   create index entities_mentions on entities(mentions desc) where status = 'active';
   create table entity_aliases (
     norm text primary key,
     entity_id integer not null references entities(id) on delete cascade
   ) without rowid;
   create index entity_aliases_entity on entity_aliases(entity_id);
   create virtual table entities_fts using fts5(
     norm, aliases, content = 'entities', content_rowid = 'id', tokenize = 'trigram'
   );
   create trigger entities_fts_insert after insert on entities begin
     insert into entities_fts(rowid, norm, aliases) values (new.id, new.norm, new.aliases);
   end;
   create trigger entities_fts_delete after delete on entities begin
     insert into entities_fts(entities_fts, rowid, norm, aliases)
       values ('delete', old.id, old.norm, old.aliases);
   end;
   create trigger entities_fts_update after update of norm, aliases on entities begin
     insert into entities_fts(entities_fts, rowid, norm, aliases)
       values ('delete', old.id, old.norm, old.aliases);
     insert into entities_fts(rowid, norm, aliases) values (new.id, new.norm, new.aliases);
   end;
   create table relations (
     id integer primary key,
     source_id integer not null references entities(id) on delete cascade,
     target_id integer not null references entities(id) on delete cascade,
     type text not null,
     confidence real not null default 1,
     mentions integer not null default 1,
     status text not null default 'active' check (status in ('active', 'deleted')),
     valid_from integer not null,
     valid_to integer,
     session_id text,
     turn_ids text not null default '[]',
     created_at integer not null,
     updated_at integer not null
   );
   create index relations_out on relations(source_id, target_id, confidence, status, valid_to)
     where status = 'active' and valid_to is null;
   create index relations_in on relations(target_id, source_id, confidence, status, valid_to)
     where status = 'active' and valid_to is null;
   create index relations_source_all on relations(source_id);
   create index relations_target_all on relations(target_id);
   create index relations_recent on relations(created_at desc)
     where status = 'active' and valid_to is null;
   create table sentences (
     id integer primary key,
     text text not null unique,
     session_id text,
     turn_ids text not null default '[]',
     created_at integer not null
   );
   create table relation_sentences (
     relation_id integer not null references relations(id) on delete cascade,
     sentence_id integer not null references sentences(id) on delete cascade,
     primary key (relation_id, sentence_id)
   ) without rowid;
   create index relation_sentences_sentence on relation_sentences(sentence_id);
   create table blocks (
     id integer primary key,
     digest text not null unique,
     mime text not null,
     size integer not null,
     fingerprint text,
     vector blob,
     created_at integer not null
   );
   create table edges (
     src_kind text not null check (src_kind in ('entity', 'relation', 'sentence', 'block')),
     src_id integer not null,
     type text not null,
     dst_kind text not null check (dst_kind in ('entity', 'relation', 'sentence', 'block')),
     dst_id integer not null,
     created_at integer not null,
     primary key (src_kind, src_id, type, dst_kind, dst_id)
   ) without rowid;
   create index edges_dst on edges(dst_kind, dst_id);`,
  // Until v2 every predicate off a short list was single-valued, so a second pet or sister
  // closed the first. Reopen what that rule closed: a fact of a predicate now multi-valued whose
  // end is exactly the start of another value of the same subject and predicate. It runs once
  // per database, with the functional list of the build that upgrades it.
  `update relations set valid_to = null
     where status = 'active' and valid_to is not null and type not like 'trait:%'
       and type not in (${[...FUNCTIONAL_PREDICATES].map(sqlText).join(", ")})
       and exists (select 1 from relations n where n.source_id = relations.source_id
         and n.type = relations.type and n.target_id != relations.target_id
         and n.status = 'active' and n.valid_from = relations.valid_to);`,
  // Forgotten names (memory forget): keyed hashes only, never the name; the FTS index of names
  // erases a deleted name from its segments instead of leaving it for a later merge.
  `create table tombstone_keys (
     id integer primary key,
     key blob not null,
     created_at integer not null
   );
   create table tombstones (
     key_id integer not null references tombstone_keys(id),
     hash text not null,
     length integer not null,
     created_at integer not null,
     primary key (key_id, hash)
   ) without rowid;
   insert into entities_fts(entities_fts, rank) values ('secure-delete', 1);`,
  // The matcher's pre-check beside each tombstone (memory/forget/quick_hash.ts); tombstones
  // made before it have none and are matched the slow way.
  `alter table tombstones add column quick integer;`,
];

function sqlText(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
