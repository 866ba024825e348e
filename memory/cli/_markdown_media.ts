/**
 * The images of a Markdown export: each media block's bytes as a file beside the entities whose
 * facts came with its sentence (`entities/<entity>.media/`), or under `media/` when no fact did,
 * so a person browsing the export sees a photo next to what it is about.
 */
import { join } from "node:path";
import type { MediaBlock } from "../../core/mod.ts";
import { normalizeName } from "../graph/schema.ts";
import type { MemorySnapshot } from "../portable.ts";

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

/** The file name of a block: its digest's first 16 hex characters and its type's extension. */
export function mediaFileName(block: Pick<MediaBlock, "digest" | "mime">): string {
  return `${block.digest.slice(0, 16)}.${EXTENSIONS[block.mime] ?? "bin"}`;
}

/** The image files of an export: `write` puts one block's bytes in place as the export reads it. */
export interface MediaFiles {
  write(block: MediaBlock, bytes: Uint8Array): Promise<void>;
  /** Per normalised entity name, the paths of its images relative to `entities/`. */
  byEntity: Map<string, string[]>;
}

/** Image files into `dir`; `stems` maps a normalised entity name to its page's stem. */
export function mediaFiles(
  snapshot: MemorySnapshot,
  stems: Map<string, string>,
  dir: string,
): MediaFiles {
  const byEntity = new Map<string, string[]>();
  const owners = sentenceOwners(snapshot);
  const write = async (block: MediaBlock, bytes: Uint8Array) => {
    const entities = new Set(block.sentences.flatMap((s) => owners.get(s) ?? []));
    const name = mediaFileName(block);
    if (entities.size === 0) {
      await Deno.mkdir(join(dir, "media"), { recursive: true });
      await Deno.writeFile(join(dir, "media", name), bytes, { mode: 0o600 });
    }
    for (const entity of entities) {
      const folder = `${stems.get(entity)!}.media`;
      await Deno.mkdir(join(dir, "entities", folder), { recursive: true });
      await Deno.writeFile(join(dir, "entities", folder, name), bytes, { mode: 0o600 });
      byEntity.set(entity, [...byEntity.get(entity) ?? [], `${folder}/${name}`]);
    }
  };
  return { write, byEntity };
}

/** Sentence → the normalised names of the entities its facts are about (subject and object). */
function sentenceOwners(snapshot: MemorySnapshot): Map<string, string[]> {
  const known = new Set(snapshot.graph.entities.map((e) => normalizeName(e.name)));
  const owners = new Map<string, string[]>();
  for (const fact of snapshot.graph.facts) {
    const names = [fact.subject, fact.object].map(normalizeName).filter((n) => known.has(n));
    for (const sentence of fact.sentences) {
      owners.set(sentence, [...new Set([...owners.get(sentence) ?? [], ...names])]);
    }
  }
  return owners;
}
