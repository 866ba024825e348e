/** Shared helpers of the embedder tests: ranking, small word-vector files, temp dirs. */
import { join } from "node:path";
import { cosine } from "../../../memory/mod.ts";
import { tinyEmbeddingModel } from "../../fixtures/tiny_onnx.ts";

// axes: food, weather, liking, eating, film, time
const AXES: Record<string, number[]> = {
  苹果: [1, 0, 0, 0.2, 0, 0],
  好吃: [0.7, 0, 0.1, 0.6, 0, 0],
  吃: [0.3, 0, 0, 1, 0, 0],
  喜欢: [0, 0, 1, 0, 0, 0],
  今天: [0, 0.1, 0, 0, 0, 1],
  下雨: [0, 1, 0, 0, 0, 0.1],
  电影: [0, 0, 0, 0, 1, 0],
  看: [0, 0, 0.1, 0, 0.6, 0],
  果: [0.9, 0, 0, 0.1, 0, 0],
  apple: [1, 0, 0, 0.2, 0, 0],
  delicious: [0.7, 0, 0.1, 0.6, 0, 0],
  eating: [0.3, 0, 0, 1, 0, 0],
  love: [0, 0, 1, 0, 0, 0],
  today: [0, 0.1, 0, 0, 0, 1],
  raining: [0, 1, 0, 0, 0, 0.1],
  movie: [0, 0, 0, 0, 1, 0],
};

/** A fastText `.vec` text: header, then `word v…` lines (English words capitalised first). */
export function fastTextVec(words = Object.keys(AXES)): string {
  const lines = words.map((w) => `${w} ${AXES[w]!.map((x) => x.toFixed(3)).join(" ")}`);
  return `${lines.length} 6\n${lines.join("\n")}\n`;
}

/** The same vectors with Numberbatch keys (`/c/zh/苹果`, `/c/en/apple`), no header. */
export function numberbatchVec(): string {
  return Object.entries(AXES).map(([w, v]) => {
    const lang = /\p{Script=Han}/u.test(w) ? "zh" : "en";
    return `/c/${lang}/${w} ${v.join(" ")}`;
  }).join("\n") + "\n";
}

/** Run `fn` with a temporary directory that is removed afterwards. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent_embed_" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The candidate most similar to the query by cosine, and every score. */
export async function best(
  embed: (texts: string[]) => Promise<Float32Array[]>,
  query: string,
  candidates: string[],
): Promise<{ winner: string; scores: number[] }> {
  const [q, ...rest] = await embed([query, ...candidates]);
  const scores = rest.map((v) => cosine(q!, v));
  return { winner: candidates[scores.indexOf(Math.max(...scores))]!, scores };
}

/**
 * Run `fn` with a tiny generated BERT model (tests/fixtures/tiny_onnx.ts) whose word vectors
 * are `vocab`'s, and its vocab.txt, in a temporary folder.
 */
export async function withTinyModel(
  vocab: readonly [string, number[]][],
  fn: (model: string, vocabFile: string) => Promise<void>,
): Promise<void> {
  await withTempDir(async (dir) => {
    const model = join(dir, "tiny-bert.onnx");
    const vocabFile = join(dir, "vocab.txt");
    await Deno.writeFile(model, tinyEmbeddingModel(vocab.map(([, v]) => v)));
    await Deno.writeTextFile(vocabFile, vocab.map(([t]) => t).join("\n") + "\n");
    await fn(model, vocabFile);
  });
}
