/**
 * Forgetting in the graph database, inside the caller's transaction: tombstones (keyed hashes
 * in graph.db, the key beside them), and the sweep that erases every entity a forgotten name
 * names or appears in, every relation touching one, and the name from the sentences left.
 */
import type { Triple } from "../../core/mod.ts";
import { foldName, ForgottenNames, type Tombstone } from "../forget/matcher.ts";
import type { GraphSql } from "./_rows.ts";
import { purgeEntity } from "./_edit.ts";
import { normalizeName } from "./schema.ts";

/** The tombstones of the database. */
export function loadForgotten(g: GraphSql): ForgottenNames {
  const keys = g.all("select id, key from tombstone_keys").map((r): [number, Uint8Array] => [
    Number(r.id),
    r.key as Uint8Array,
  ]);
  const tombstones = g.all("select key_id, hash, length, quick from tombstones").map((r) => ({
    keyId: Number(r.key_id),
    hash: String(r.hash),
    length: Number(r.length),
    ...quickOf(r.quick),
  }));
  return new ForgottenNames(keys, tombstones);
}

/** Store tombstones for `names` under the home's key (made on first use); returns them. */
export function addTombstones(
  g: GraphSql,
  forgotten: ForgottenNames,
  names: readonly string[],
): Tombstone[] {
  const now = BigInt(g.now());
  let key = g.get("select id, key from tombstone_keys order by id desc limit 1");
  if (!key) {
    key = g.get(
      "insert into tombstone_keys (key, created_at) values (?, ?) returning id, key",
      crypto.getRandomValues(new Uint8Array(32)),
      now,
    )!;
  }
  forgotten.addKey(Number(key.id), key.key as Uint8Array);
  const made = names.map((name) => forgotten.tombstone(name, Number(key.id)));
  for (const t of made) {
    forgotten.add(t);
    insertTombstone(g, t, now);
  }
  return made;
}

function insertTombstone(g: GraphSql, t: Tombstone, createdAt: bigint): number {
  return g.run(
    `insert or ignore into tombstones (key_id, hash, length, created_at, quick)
       values (?, ?, ?, ?, ?)`,
    BigInt(t.keyId),
    t.hash,
    BigInt(t.length),
    createdAt,
    t.quick === undefined ? null : BigInt(t.quick),
  );
}

function quickOf(value: unknown): { quick?: number } {
  return value === null || value === undefined ? {} : { quick: Number(value) };
}

/**
 * Tombstone `name` and its entity's name and aliases into a copy of `forgotten`, then sweep
 * the graph by it; the caller holds the transaction and merges the copy once it commits.
 */
export function forgetName(
  g: GraphSql,
  forgotten: ForgottenNames,
  name: string,
): { names: string[]; next: ForgottenNames; sweep: GraphSweep } {
  const id = g.entityId(name);
  const entity = id === undefined ? undefined : g.entity(id);
  const names = [name, ...(entity ? [entity.name, ...entity.aliases ?? []] : [])];
  const unique = [...new Map(names.map((n) => [foldName(n), n])).values()];
  const next = forgotten.copy();
  addTombstones(g, next, unique);
  return { names: unique, next, sweep: sweepGraph(g, next) };
}

/** What the graph sweep erased. */
export interface GraphSweep {
  entities: number[];
  relations: number;
  sentences: number;
}

/**
 * Erase what `forgotten` names: entities whose name or alias is forgotten or whose name
 * mentions one (with their relations), relations whose predicate mentions one; aliases that
 * mention one are dropped from an entity kept; sentences are redacted (merged into an equal
 * one when the redacted text is already stored) and those left without a fact removed.
 */
export function sweepGraph(g: GraphSql, forgotten: ForgottenNames): GraphSweep {
  const out: GraphSweep = { entities: [], relations: 0, sentences: 0 };
  for (const row of g.all("select id, name, aliases from entities")) {
    const aliases = String(row.aliases).split("\n").filter((a) => a !== "");
    const name = String(row.name);
    if (forgotten.mentions(name) || aliases.some((a) => forgotten.isForgotten(a))) {
      out.relations += purgeEntity(g, name).relations;
      out.entities.push(Number(row.id));
    } else if (aliases.some((a) => forgotten.mentions(a))) {
      dropAliases(g, Number(row.id), aliases, forgotten);
    }
  }
  for (const row of g.all("select distinct type from relations")) {
    if (forgotten.mentions(String(row.type))) {
      out.relations += g.run("delete from relations where type = ?", String(row.type));
    }
  }
  out.sentences = redactSentences(g, forgotten);
  // A sentence that carries media but gave no fact is kept (its text is redacted above).
  out.sentences += g.run(
    `delete from sentences where id not in (select sentence_id from relation_sentences)
     and id not in (select src_id from edges where src_kind = 'sentence')`,
  );
  g.run(
    "delete from edges where src_kind = 'sentence' and src_id not in (select id from sentences)",
  );
  return out;
}

function dropAliases(
  g: GraphSql,
  id: number,
  aliases: string[],
  forgotten: ForgottenNames,
): void {
  const kept = aliases.filter((a) => !forgotten.mentions(a));
  for (const alias of aliases.filter((a) => forgotten.mentions(a))) {
    g.run("delete from entity_aliases where norm = ?", normalizeName(alias));
  }
  g.run("update entities set aliases = ? where id = ?", kept.join("\n"), BigInt(id));
}

function redactSentences(g: GraphSql, forgotten: ForgottenNames): number {
  let changed = 0;
  for (const row of g.all("select id, text from sentences")) {
    const text = String(row.text);
    if (!forgotten.mentions(text)) continue;
    const redacted = forgotten.redact(text);
    const same = g.get("select id from sentences where text = ?", redacted);
    if (same) {
      g.run(
        `insert or ignore into relation_sentences (relation_id, sentence_id)
         select relation_id, ? from relation_sentences where sentence_id = ?`,
        BigInt(Number(same.id)),
        BigInt(Number(row.id)),
      );
      g.run("delete from sentences where id = ?", BigInt(Number(row.id)));
    } else {
      g.run("update sentences set text = ? where id = ?", redacted, BigInt(Number(row.id)));
    }
    changed++;
  }
  return changed;
}

/** Triples without those that name a forgotten entity; kept ones have their sentence redacted. */
export function screenTriples(
  triples: readonly Triple[],
  forgotten: ForgottenNames,
): { kept: Triple[]; refused: number } {
  if (forgotten.size === 0) return { kept: [...triples], refused: 0 };
  const kept: Triple[] = [];
  for (const t of triples) {
    if ([t.subject, t.object, t.predicate].some((text) => forgotten.mentions(text))) continue;
    kept.push(
      t.sentence && forgotten.mentions(t.sentence)
        ? { ...t, sentence: forgotten.redact(t.sentence) }
        : t,
    );
  }
  return { kept, refused: triples.length - kept.length };
}

/** The tombstones as an export carries them: each key (base64) and the hashes made under it. */
export interface TombstoneDump {
  keys: { id: number; key: string }[];
  tombstones: (Tombstone & { createdAt: number })[];
}

/** Every key and tombstone of the database. */
export function dumpTombstones(g: GraphSql): TombstoneDump {
  return {
    keys: g.all("select id, key from tombstone_keys order by id").map((r) => ({
      id: Number(r.id),
      key: btoa(String.fromCharCode(...(r.key as Uint8Array))),
    })),
    tombstones: g.all(
      "select key_id, hash, length, created_at, quick from tombstones order by key_id, hash",
    ).map((r) => ({
      keyId: Number(r.key_id),
      hash: String(r.hash),
      length: Number(r.length),
      createdAt: Number(r.created_at),
      ...quickOf(r.quick),
    })),
  };
}

/**
 * Store the tombstones of an export, inside the caller's transaction: a key already here (the
 * same bytes) is reused, another is added; `forgotten` learns them. Resolves how many were new.
 */
export function loadTombstones(
  g: GraphSql,
  forgotten: ForgottenNames,
  dump: TombstoneDump,
): number {
  const ids = new Map<number, number>();
  for (const k of dump.keys) {
    const key = Uint8Array.from(atob(k.key), (c) => c.charCodeAt(0));
    const known = g.all("select id, key from tombstone_keys").find((r) =>
      equalBytes(r.key as Uint8Array, key)
    );
    const id = known ? Number(known.id) : Number(
      g.get(
        "insert into tombstone_keys (key, created_at) values (?, ?) returning id",
        key,
        BigInt(g.now()),
      )!.id,
    );
    ids.set(k.id, id);
    forgotten.addKey(id, key);
  }
  let added = 0;
  for (const t of dump.tombstones) {
    const keyId = ids.get(t.keyId);
    if (keyId === undefined) throw new RangeError(`Tombstone of unknown key ${t.keyId}`);
    const tombstone: Tombstone = { keyId, hash: t.hash, length: t.length, ...quickOf(t.quick) };
    added += insertTombstone(g, tombstone, BigInt(t.createdAt));
    forgotten.add(tombstone);
  }
  return added;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
