/**
 * The graph database's schema (memory/graph.db) as ordered migrations, and the naming rules
 * every graph statement shares: how names and predicates are normalised and which predicates
 * are single-valued (a new value closes the old one instead of contradicting it).
 */

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
];

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
 * Predicates that may hold many values at once for one subject. Every other predicate is
 * single-valued: committing `Ann —lives_in→ Bergen` closes an open `Ann —lives_in→ Oslo`.
 * Traits (`trait:<name>`) are single-valued per trait name.
 */
export const MULTI_VALUED_PREDICATES: ReadonlySet<string> = new Set([
  // likes and dislikes
  "likes",
  "loves",
  "dislikes",
  "hates",
  "enjoys",
  "喜欢",
  "喜好",
  "爱",
  "讨厌",
  "爱好",
  "hobby",
  "interested_in",
  // people and groups
  "knows",
  "friend_of",
  "friend",
  "认识",
  "朋友",
  "parent_of",
  "child_of",
  "sibling_of",
  "孩子",
  "兄弟姐妹",
  "member_of",
  "works_with",
  "colleague_of",
  "同事",
  // possessions, skills, experiences
  "has",
  "owns",
  "有",
  "拥有",
  "speaks",
  "会说",
  "visited",
  "去过",
  "can",
  "会",
  // structure
  "is_a",
  "是",
  "part_of",
  "contains",
  "related_to",
  "mentions",
  "tag",
]);

/** Whether a new value of `predicate` (normalised) closes the subject's previous one. */
export function isSingleValued(predicate: string): boolean {
  return !MULTI_VALUED_PREDICATES.has(predicate);
}
