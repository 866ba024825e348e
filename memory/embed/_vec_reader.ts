/**
 * Streaming reader of word-vector text files: fastText `.vec` and ConceptNet Numberbatch
 * (`word v1 v2 …` per line, an optional `count dim` header), plain or `.gz`.
 */

/** One parsed line: the word (Numberbatch `/c/xx/` prefix removed, lower-cased) and its vector. */
export interface VecEntry {
  word: string;
  vector: Float32Array;
}

/** What a read produced besides the entries. */
export interface VecStats {
  dim: number;
  read: number;
  skipped: number;
}

/** Lines of a text file, decompressing `.gz`; the file closes when iteration ends. */
async function* lines(path: string): AsyncGenerator<string> {
  const file = await Deno.open(path);
  let stream: ReadableStream<BufferSource> = file.readable;
  if (path.endsWith(".gz")) stream = stream.pipeThrough(new DecompressionStream("gzip"));
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let rest = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const parts = (rest + value).split("\n");
      rest = parts.pop() ?? "";
      yield* parts;
    }
    if (rest !== "") yield rest;
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** `/c/en/ice_cream` → `ice_cream`; `/c/zh/苹果/n` → `苹果`; anything else lower-cased. */
export function vecKey(raw: string): string {
  const match = /^\/c\/[a-z_-]+\/([^/]+)/.exec(raw);
  return (match ? match[1]! : raw).normalize("NFKC").toLowerCase();
}

/**
 * Read up to `maxWords` entries of `path`, calling `onEntry` for each. Lines whose length
 * disagrees with the first vector's are skipped and counted. Throws SyntaxError when the
 * file holds no vector at all.
 */
export async function readVecFile(
  path: string,
  maxWords: number,
  onEntry: (entry: VecEntry) => void,
): Promise<VecStats> {
  let dim = 0, read = 0, skipped = 0, first = true;
  for await (const line of lines(path)) {
    if (read >= maxWords) break;
    const fields = line.trimEnd().split(" ");
    if (first && fields.length === 2 && fields.every((f) => /^\d+$/.test(f))) {
      first = false;
      continue; // "count dim" header
    }
    first = false;
    if (fields.length < 2) continue;
    const values = new Float32Array(fields.length - 1);
    for (let i = 1; i < fields.length; i++) values[i - 1] = Number(fields[i]);
    if (dim === 0) dim = values.length;
    if (values.length !== dim || values.some(Number.isNaN)) {
      skipped++;
      continue;
    }
    onEntry({ word: vecKey(fields[0]!), vector: values });
    read++;
  }
  if (dim === 0) throw new SyntaxError(`No word vectors in "${path}"`);
  return { dim, read, skipped };
}
