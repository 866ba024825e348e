/**
 * The metadata half of the content-addressed store: `block` rows of memory/graph.db (digest,
 * mime, size, vector and its space `fingerprint` = vec_model) and the structural edges
 * `sentence --contains--> block` that say what a block came with. All SQL of media is here.
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { MediaBlock, MediaOrigin, MediaRef } from "../../core/mod.ts";
import { withTransaction } from "../sqlite.ts";

/** The edge type from a sentence to the media it carried. */
export const CONTAINS = "contains";

type Row = Record<string, unknown>;

const toBytes = (v: Float32Array) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);

function toVector(blob: unknown): Float32Array | undefined {
  if (!(blob instanceof Uint8Array) || blob.byteLength % 4 !== 0) return undefined;
  return new Float32Array(blob.slice().buffer); // a copy: SQLite's buffer is not 4-aligned
}

/** SQL over the blocks and edges tables of one graph database connection. */
export class BlockRows {
  readonly db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  /** Insert the block of `ref` unless it exists; returns its id and whether it was new. */
  upsert(ref: MediaRef, now: number): { id: number; created: boolean } {
    const found = this.db.prepare("select id from blocks where digest = ?").get(ref.digest);
    if (found) return { id: Number(found.id), created: false };
    const row = this.db.prepare(
      "insert into blocks (digest, mime, size, created_at) values (?, ?, ?, ?) returning id",
    ).get(ref.digest, ref.mime, BigInt(ref.size), BigInt(now))!;
    return { id: Number(row.id), created: true };
  }

  /** The block of `digest` with the sentences and turns it came with. */
  get(digest: string): MediaBlock | undefined {
    const row = this.db.prepare(
      "select id, digest, mime, size, fingerprint, created_at from blocks where digest = ?",
    ).get(digest);
    return row ? this.#block(row) : undefined;
  }

  #block(row: Row): MediaBlock {
    const origins = this.db.prepare(
      `select s.text, s.turn_ids from edges e join sentences s on s.id = e.src_id
       where e.dst_kind = 'block' and e.dst_id = ? and e.src_kind = 'sentence' and e.type = ?
       order by e.created_at desc`,
    ).all(BigInt(Number(row.id)), CONTAINS);
    const turnIds = [
      ...new Set(origins.flatMap((o) => JSON.parse(String(o.turn_ids)) as string[])),
    ];
    return {
      id: Number(row.id),
      digest: String(row.digest),
      mime: String(row.mime),
      size: Number(row.size),
      createdAt: Number(row.created_at),
      vecModel: row.fingerprint == null ? "" : String(row.fingerprint),
      sentences: origins.map((o) => String(o.text)),
      turnIds,
    };
  }

  /** Blocks by digest, in the order asked (unknown digests are left out). */
  many(digests: readonly string[]): MediaBlock[] {
    return digests.flatMap((d) => this.get(d) ?? []);
  }

  /** Tie block `blockId` to the sentence and turn of `origin` (the sentence row is shared). */
  link(blockId: number, origin: MediaOrigin, now: number): void {
    withTransaction(this.db, () => {
      const existing = this.db.prepare("select id, turn_ids from sentences where text = ?")
        .get(origin.sentence);
      let sentenceId: number;
      if (existing) {
        sentenceId = Number(existing.id);
        const turns = new Set(JSON.parse(String(existing.turn_ids)) as string[]);
        turns.add(origin.turnId);
        this.db.prepare("update sentences set turn_ids = ? where id = ?")
          .run(JSON.stringify([...turns]), BigInt(sentenceId));
      } else {
        sentenceId = Number(
          this.db.prepare(
            `insert into sentences (text, session_id, turn_ids, created_at) values (?, ?, ?, ?)
             returning id`,
          ).get(
            origin.sentence,
            origin.sessionId ?? null,
            JSON.stringify([origin.turnId]),
            BigInt(now),
          )!
            .id,
        );
      }
      this.db.prepare(
        `insert or ignore into edges (src_kind, src_id, type, dst_kind, dst_id, created_at)
         values ('sentence', ?, ?, 'block', ?, ?)`,
      ).run(BigInt(sentenceId), CONTAINS, BigInt(blockId), BigInt(now));
    });
  }

  /** Write back the vector of `digest` and the space it lives in. */
  setVector(digest: string, fingerprint: string, vector: Float32Array): void {
    this.db.prepare("update blocks set fingerprint = ?, vector = ? where digest = ?")
      .run(fingerprint, toBytes(vector), digest);
  }

  /** Every block vector of the space `fingerprint`. */
  vectors(fingerprint: string): { digest: string; vector: Float32Array }[] {
    return this.db.prepare(
      "select digest, vector from blocks where fingerprint = ? and vector is not null",
    ).all(fingerprint).flatMap((r) => {
      const vector = toVector(r.vector);
      return vector ? [{ digest: String(r.digest), vector }] : [];
    });
  }

  /** The vector of `digest` when it lives in `fingerprint`'s space. */
  vector(digest: string, fingerprint: string): Float32Array | undefined {
    const row = this.db.prepare("select vector from blocks where digest = ? and fingerprint = ?")
      .get(digest, fingerprint);
    return row ? toVector(row.vector) : undefined;
  }

  /** Digests whose vec_model is empty or another space than `fingerprint`, oldest first. */
  stale(fingerprint: string): MediaRef[] {
    return this.db.prepare(
      `select digest, mime, size from blocks
       where fingerprint is null or fingerprint = '' or fingerprint <> ? order by id`,
    ).all(fingerprint).map((r) => ({
      digest: String(r.digest),
      mime: String(r.mime),
      size: Number(r.size),
    }));
  }

  /** Every block, oldest first (export). */
  all(): MediaBlock[] {
    return this.db.prepare(
      "select id, digest, mime, size, fingerprint, created_at from blocks order by id",
    ).all().map((r) => this.#block(r));
  }

  /** Remove the block of `digest` and every edge touching it; false when there was none. */
  delete(digest: string): boolean {
    return withTransaction(this.db, () => {
      const row = this.db.prepare("select id from blocks where digest = ?").get(digest);
      if (!row) return false;
      const id = BigInt(Number(row.id));
      this.db.prepare(
        `delete from edges where (src_kind = 'block' and src_id = ?) or (dst_kind = 'block' and dst_id = ?)`,
      ).run(id, id);
      this.db.prepare("delete from blocks where id = ?").run(id);
      return true;
    });
  }

  /** Count, total bytes, and how many lack a vector of `fingerprint`. */
  counts(fingerprint: string | undefined): { blocks: number; bytes: number; stale: number } {
    const row = this.db.prepare(
      `select count(*) as n, coalesce(sum(size), 0) as bytes,
              sum(case when fingerprint is null or fingerprint <> ? then 1 else 0 end) as stale
       from blocks`,
    ).get(fingerprint ?? "")!;
    return { blocks: Number(row.n), bytes: Number(row.bytes), stale: Number(row.stale ?? 0) };
  }
}
