/**
 * The merge and review loops (ARCHITECTURE.md "Context Pruning" → detectEntityMerge,
 * reviewRelations). Merge: exact duplicates after normalisation always fold; near names (bigram
 * Jaccard > 0.75, the wasm function) go to the model, at most 5 pairs a run. Review: relations
 * below the confidence floor, 10 a run, confirmed, fixed or deleted by the model; without a
 * source the review is skipped (and logged).
 */
import { z } from "zod";
import {
  ConsolidationError,
  type Consolidator,
  errorMessage,
  type GraphEntity,
  type GraphMaintenance,
  type HeartbeatCounts,
  type Logger,
  readDecision,
} from "../../core/mod.ts";
import type { HotLoops } from "../../wasm/mod.ts";
import type { HeartbeatState } from "./_state.ts";

/** What both loops work with. */
export interface GraphLoopOptions {
  graph: GraphMaintenance;
  state: HeartbeatState;
  consolidator?: Consolidator;
  logger: Logger;
  signal?: AbortSignal;
}

/** Names that are the same entity once case, width, spaces and light punctuation are gone. */
export function mergeKey(name: string): string {
  return name.normalize("NFKC").toLowerCase().replace(/[\s\-_.·'’"“”]/gu, "");
}

/** Near-duplicate pairs by bigram Jaccard above `threshold`, best first. */
export function mergeCandidates(
  entities: readonly GraphEntity[],
  hot: Pick<HotLoops, "bigramJaccardBatch">,
  threshold = 0.75,
): { a: GraphEntity; b: GraphEntity; score: number }[] {
  const names = entities.map((e) => e.name.toLowerCase());
  const pairs: { a: GraphEntity; b: GraphEntity; score: number }[] = [];
  for (let i = 0; i < entities.length - 1; i++) {
    const scores = hot.bigramJaccardBatch(names[i]!, names.slice(i + 1));
    scores.forEach((score, j) => {
      if (score > threshold) pairs.push({ a: entities[i]!, b: entities[i + 1 + j]!, score });
    });
  }
  return pairs.sort((x, y) => y.score - x.score);
}

const MergeReply = z.lazy(() =>
  z.object({
    decisions: z.array(z.object({
      pair: z.int().min(1).max(100),
      merge: z.boolean(),
      keep: z.string().max(200).optional(),
    })).max(100),
  })
);

/** One run of the merge loop. */
export async function mergeEntities(
  options: GraphLoopOptions & { hot: Pick<HotLoops, "bigramJaccardBatch">; perRun?: number },
): Promise<HeartbeatCounts> {
  const entities = await options.graph.entities({ limit: 1000 });
  const counts = { entities: entities.length, exact: 0, candidates: 0, merged: 0, refused: 0 };
  const live: GraphEntity[] = [];
  const byKey = new Map<string, GraphEntity>();
  for (const e of [...entities].sort((x, y) => y.mentions - x.mentions)) {
    const keep = byKey.get(mergeKey(e.name));
    if (!keep) {
      byKey.set(mergeKey(e.name), e);
      live.push(e);
      continue;
    }
    try {
      await options.graph.merge(keep.name, e.name);
      counts.exact++;
    } catch (error) {
      options.logger.warn("Merge failed", {
        keep: keep.name,
        drop: e.name,
        error: errorMessage(error),
      });
    }
  }
  const pairs = mergeCandidates(live, options.hot)
    .filter((p) => !options.state.rejected(p.a.name, p.b.name))
    .slice(0, options.perRun ?? 5);
  counts.candidates = pairs.length;
  if (pairs.length === 0) return counts;
  if (!options.consolidator?.available()) {
    options.logger.info("Merge: no LLM source; near-duplicate names left as they are", {
      candidates: pairs.length,
    });
    return counts;
  }
  const reply = await askOrDefer(options, mergePrompt(pairs), "merge");
  if (reply === undefined) return counts;
  const decision = readDecision(reply, MergeReply);
  if (!decision.ok) {
    options.logger.warn("Merge: unusable answer", { problem: decision.problem });
    return counts;
  }
  for (const d of decision.value.decisions) {
    const pair = pairs[d.pair - 1];
    if (!pair) continue;
    if (!d.merge) {
      options.state.reject(pair.a.name, pair.b.name);
      counts.refused++;
      continue;
    }
    const keep = d.keep === pair.b.name ? pair.b : pair.a;
    const drop = keep === pair.a ? pair.b : pair.a;
    try {
      await options.graph.merge(keep.name, drop.name);
      counts.merged++;
    } catch (error) {
      options.logger.warn("Merge failed", {
        keep: keep.name,
        drop: drop.name,
        error: errorMessage(error),
      });
    }
  }
  await options.state.save();
  return counts;
}

const ReviewReply = z.lazy(() =>
  z.object({
    reviews: z.array(z.object({
      id: z.int(),
      action: z.enum(["confirm", "fix", "delete"]),
      predicate: z.string().trim().min(1).max(100).optional(),
      object: z.string().trim().min(1).max(500).optional(),
    })).max(100),
  })
);

/** One run of the review loop. */
export async function reviewRelations(
  options: GraphLoopOptions & { below: number; batch?: number },
): Promise<HeartbeatCounts> {
  const limit = options.batch ?? 10;
  const state = options.state;
  let batch = await options.graph.lowConfidence({
    below: options.below,
    afterId: state.data.reviewCursor,
    limit,
  });
  if (batch.length === 0 && state.data.reviewCursor > 0) {
    state.data.reviewCursor = 0; // wrapped: start over with what is still unsure
    batch = await options.graph.lowConfidence({ below: options.below, afterId: 0, limit });
  }
  const counts = { pending: batch.length, confirmed: 0, fixed: 0, deleted: 0, skipped: 0 };
  if (batch.length === 0) return counts;
  if (!options.consolidator?.available()) {
    options.logger.info("Review: no LLM source; skipped", { pending: batch.length });
    counts.skipped = batch.length;
    return counts;
  }
  const lines = batch.map((r) =>
    `#${r.id} ${r.source} —${r.type}→ ${r.target} (confidence ${r.confidence.toFixed(2)}` +
    (r.sentence ? `; from: "${r.sentence.slice(0, 200)}")` : ")")
  );
  const reply = await askOrDefer(options, reviewPrompt(lines), "review");
  if (reply === undefined) return counts;
  const decision = readDecision(reply, ReviewReply);
  if (!decision.ok) {
    options.logger.warn("Review: unusable answer", { problem: decision.problem });
    return counts;
  }
  const ids = new Set(batch.map((r) => r.id));
  for (const r of decision.value.reviews.filter((r) => ids.has(r.id))) {
    try {
      if (r.action === "delete") {
        await options.graph.editRelation(r.id, { status: "deleted" });
        counts.deleted++;
      } else if (r.action === "fix" && (r.predicate || r.object)) {
        await options.graph.editRelation(r.id, {
          type: r.predicate,
          target: r.object,
          confidence: 1,
        });
        counts.fixed++;
      } else {
        await options.graph.editRelation(r.id, { confidence: 1 });
        counts.confirmed++;
      }
    } catch (error) {
      options.logger.warn("Review edit failed", { relation: r.id, error: errorMessage(error) });
    }
  }
  state.data.reviewCursor = Math.max(...ids);
  await state.save();
  return counts;
}

/** The model's answer, or undefined when the consolidation turn was preempted or stopped. */
async function askOrDefer(
  options: GraphLoopOptions,
  prompt: string,
  heartbeat: string,
): Promise<string | undefined> {
  try {
    return await options.consolidator!.ask(prompt, { signal: options.signal, meta: { heartbeat } });
  } catch (error) {
    if (!(error instanceof ConsolidationError)) throw error;
    // Without an answer nothing changes: the same candidates come up again next run.
    if (error.kind === "deferred") {
      options.logger.info("Heartbeat deferred", { heartbeat, reason: error.status });
    } else {
      options.logger.warn("Heartbeat: no LLM answered; left for the next run", {
        heartbeat,
        reason: error.status,
        error: error.message,
      });
    }
    return undefined;
  }
}

function mergePrompt(pairs: { a: GraphEntity; b: GraphEntity }[]): string {
  return [
    "[Memory consolidation: merge]",
    "These pairs of memory entities have similar names. Decide for each whether they are the same thing.",
    'Answer with JSON only: {"decisions":[{"pair":1,"merge":true,"keep":"<the name to keep>"}]}',
    "",
    ...pairs.map((p, i) =>
      `${
        i + 1
      }. "${p.a.name}" (${p.a.type}, ${p.a.mentions} mentions) / "${p.b.name}" (${p.b.type}, ${p.b.mentions} mentions)`
    ),
  ].join("\n");
}

function reviewPrompt(lines: string[]): string {
  return [
    "[Memory consolidation: review]",
    "These remembered facts are uncertain. For each, confirm it, fix it (a better predicate or object), or delete it.",
    'Answer with JSON only: {"reviews":[{"id":12,"action":"confirm"},{"id":13,"action":"fix","predicate":"…","object":"…"},{"id":14,"action":"delete"}]}',
    "",
    ...lines,
  ].join("\n");
}
