/**
 * Asking the owner (docs/PLUGIN_GUIDE.md "Asking the owner"): a plugin puts a yes/no question
 * to the owner — "run this command?" — and waits. The question is published as an
 * `owner_question` event, which the web page and the CLI REPL show with approve and deny; the
 * answer comes back over HTTP or the CLI socket through `answer()`. Every question ends exactly
 * once: approved, denied, timed out, or cancelled (the asker's signal aborted, e.g. a stopped
 * turn, or its plugin stopped). No IO: time comes from the injected Clock.
 */
import type { Clock, Logger, TimerHandle } from "../ports.ts";

/** How a question ended. */
export type OwnerAnswer = "approved" | "denied" | "timeout" | "cancelled";

/** What a plugin asks. */
export interface OwnerQuestionRequest {
  /** One line: what is asked ("Run a command?"). */
  title: string;
  /** What exactly, shown verbatim (the command and its folder). */
  detail?: string;
  /** Give up after this long (answer "timeout"); default 120 s, at most one hour. */
  timeoutMs?: number;
  /** The turn the question belongs to, when asked from a tool call. */
  turnId?: string;
}

/** A pending question as the UIs show it. */
export interface OwnerQuestion {
  id: string;
  plugin: string;
  title: string;
  detail: string;
  turnId?: string;
  askedAt: number;
  expiresAt: number;
}

/** The events a question publishes; members of KernelEvent (events.ts imports them from here). */
export type OwnerEvent =
  /** A plugin asks the owner (approve / deny in the web page or the CLI). */
  | { type: "owner_question"; question: OwnerQuestion }
  /** Question `id` ended. */
  | { type: "owner_answered"; id: string; answer: OwnerAnswer; by?: string };

/** Options of OwnerQuestions. */
export interface OwnerQuestionsOptions {
  clock: Clock;
  /** Where the questions and answers are published: the kernel's EventBus. */
  events: { publish(event: OwnerEvent): void };
  logger: Logger;
  newId?: () => string;
  /** Most questions pending at once; beyond it a new one is denied at once. Default 20. */
  capacity?: number;
}

/** Default wait for an answer. */
export const DEFAULT_QUESTION_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 3_600_000;
const MAX_TITLE = 200;
const MAX_DETAIL = 4000;

interface Pending {
  question: OwnerQuestion;
  resolve(answer: OwnerAnswer): void;
  timer: TimerHandle;
  cleanup(): void;
}

/** The questions waiting for the owner. ask() never rejects; answer() never throws. */
export class OwnerQuestions {
  #options: OwnerQuestionsOptions;
  #pending = new Map<string, Pending>();

  constructor(options: OwnerQuestionsOptions) {
    this.#options = options;
  }

  /** Ask on behalf of `plugin`; resolves with how the question ended. */
  ask(
    plugin: string,
    request: OwnerQuestionRequest,
    options: { signal?: AbortSignal } = {},
  ): Promise<OwnerAnswer> {
    const { clock, events, logger } = this.#options;
    if (options.signal?.aborted) return Promise.resolve("cancelled");
    if (this.#pending.size >= (this.#options.capacity ?? 20)) {
      logger.warn("Too many questions for the owner pending; denied", { plugin });
      return Promise.resolve("denied");
    }
    const timeoutMs = Math.min(
      Math.max(1, request.timeoutMs ?? DEFAULT_QUESTION_TIMEOUT_MS),
      MAX_TIMEOUT_MS,
    );
    const question: OwnerQuestion = {
      id: this.#options.newId?.() ?? crypto.randomUUID(),
      plugin,
      title: request.title.slice(0, MAX_TITLE),
      detail: (request.detail ?? "").slice(0, MAX_DETAIL),
      ...(request.turnId ? { turnId: request.turnId } : {}),
      askedAt: clock.now(),
      expiresAt: clock.now() + timeoutMs,
    };
    return new Promise<OwnerAnswer>((resolve) => {
      const onAbort = () => this.#end(question.id, "cancelled");
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(question.id, {
        question,
        resolve,
        timer: clock.setTimer(timeoutMs, () => this.#end(question.id, "timeout")),
        cleanup: () => options.signal?.removeEventListener("abort", onAbort),
      });
      logger.info("Question for the owner", { plugin, id: question.id, title: question.title });
      events.publish({ type: "owner_question", question: { ...question } });
    });
  }

  /** The owner's answer; false when no such question waits (answered, expired or unknown). */
  answer(id: string, approve: boolean, by = "owner"): boolean {
    return this.#end(id, approve ? "approved" : "denied", by);
  }

  /** The questions waiting, oldest first. */
  pending(): OwnerQuestion[] {
    return [...this.#pending.values()].map((p) => ({ ...p.question }));
  }

  /** Cancel every question `plugin` asked (the plugin stopped). */
  cancelPlugin(plugin: string): void {
    for (const p of [...this.#pending.values()]) {
      if (p.question.plugin === plugin) this.#end(p.question.id, "cancelled");
    }
  }

  #end(id: string, answer: OwnerAnswer, by?: string): boolean {
    const pending = this.#pending.get(id);
    if (!pending) return false;
    this.#pending.delete(id);
    pending.timer.cancel();
    pending.cleanup();
    this.#options.logger.info("Owner question ended", { id, answer, by });
    this.#options.events.publish({
      type: "owner_answered",
      id,
      answer,
      ...(by ? { by } : {}),
    });
    pending.resolve(answer);
    return true;
  }
}
