/**
 * What the memory heartbeats need from the kernel and the graph (ARCHITECTURE.md "Context
 * Pruning"): LLM decisions through the consolidation path (`Agent.injectConsolidation`, replies
 * on `_consolidation_`), and the graph maintenance the merge and review loops perform.
 */
import type { Agent } from "../kernel/agent.ts";
import type { GraphEntity, GraphRelation } from "./graph.ts";
import type { RelationPatch } from "./graph_store.ts";
import type { z } from "zod";
import { HomeAgentError } from "../errors.ts";

/**
 * Why a consolidation ask got no answer. `deferred`: the owner's work came first (preempted,
 * stopped, the queue full): ask again on a later run. `unavailable`: no LLM answered (every
 * source down or unusable, over its cap, none configured): use the fallback now.
 */
export type ConsolidationFailure = "deferred" | "unavailable";

/** A consolidation turn that did not end with an answer (stopped, preempted, failed, refused). */
export class ConsolidationError extends HomeAgentError {
  /** The reply's error code or status (`preempted`, `providers_all_failed`, …). */
  readonly status: string;
  readonly kind: ConsolidationFailure;
  constructor(
    status: string,
    message: string,
    options: { kind: ConsolidationFailure; cause?: unknown },
  ) {
    super(`consolidation_${status}`, message, { cause: options.cause });
    this.status = status;
    this.kind = options.kind;
  }
}

/** Asks the model for a decision through the kernel's own consolidation path. */
export interface Consolidator {
  /** Whether an LLM source is configured now; without one the loops use their fallbacks. */
  available(): boolean;
  /**
   * Send `prompt` as a consolidation input and resolve with the reply text. Rejects with
   * ConsolidationError when the turn ends other than "ok", or with the signal's reason.
   */
  ask(
    prompt: string,
    options?: { signal?: AbortSignal; meta?: Record<string, unknown> },
  ): Promise<string>;
}

/** A Consolidator over `agent`; `available` says whether a source is configured. */
export function agentConsolidator(
  agent: Pick<Agent, "injectConsolidation">,
  available: () => boolean,
): Consolidator {
  return {
    available,
    ask(prompt, options = {}) {
      const { signal } = options;
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise((resolve, reject) => {
        const onAbort = () => reject(signal?.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
        agent.injectConsolidation(prompt, {
          meta: options.meta,
          onReply: (reply) => {
            signal?.removeEventListener("abort", onAbort);
            if (reply.status === "ok") return resolve(reply.text);
            reject(
              new ConsolidationError(
                reply.errorCode ?? reply.status,
                `Consolidation turn ended "${reply.status}": ${reply.text}`,
                { kind: reply.status === "error" ? "unavailable" : "deferred" },
              ),
            );
          },
        });
      });
    },
  };
}

/** The JSON value in a model's reply: a ```json fence, else the outermost {…}; undefined if none parses. */
export function extractJson(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)?.[1];
  const candidates = [fenced, text.trim()];
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  for (const candidate of candidates) {
    if (candidate === undefined || candidate.trim() === "") continue;
    try {
      return JSON.parse(candidate);
    } catch {
      // try the next reading
    }
  }
  return undefined;
}

/** Replies longer than this are not read at all (no decision needs so much). */
export const MAX_DECISION_CHARS = 32_000;

/** A model's decision, or in a few words why it is unusable (never the reply's own text). */
export type Decision<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * Read a consolidation reply as hostile input: bounded, JSON found by extractJson, checked by
 * `schema`. The problem names the first wrong field and what is wrong with it, so a log line
 * says enough to fix a prompt without copying what the model wrote.
 */
export function readDecision<T>(reply: string, schema: z.ZodType<T>): Decision<T> {
  if (reply.length > MAX_DECISION_CHARS) {
    return { ok: false, problem: `too long (${reply.length} characters)` };
  }
  const json = extractJson(reply);
  if (json === undefined) {
    return { ok: false, problem: `no JSON object in ${reply.length} characters` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue?.path.map(String).join(".") || "the answer";
  return { ok: false, problem: `${where}: ${issue?.code ?? "invalid"}` };
}

/**
 * Graph maintenance for the merge and review loops. memory/ adapts GraphDB to it. Methods
 * reject on storage failure and as GraphStore does for unknown names and ids.
 */
export interface GraphMaintenance {
  /** Active entities, most recently updated first, at most `limit`. */
  entities(options: { limit: number }): Promise<GraphEntity[]>;
  /** Active, open relations with confidence below `below` and id above `afterId`, id ascending. */
  lowConfidence(
    options: { below: number; afterId: number; limit: number },
  ): Promise<GraphRelation[]>;
  /** Fold `drop` into `keep` (GraphStore.merge). */
  merge(keep: string, drop: string): Promise<unknown>;
  /** Change, close or delete one relation (GraphStore.editRelation). */
  editRelation(id: number, patch: RelationPatch): Promise<GraphRelation>;
}
