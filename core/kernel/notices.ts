/**
 * Kernel notices (L4): faults the owner must hear of. `NoticeGate` keeps one per kind and
 * subject in flight on a running agent; `KernelNotices` holds those raised while the daemon is
 * still being built (the provider manager and the memory tiers exist before the agent that
 * injects their notices) until the agent is attached.
 */
import type { EventBus, KernelNoticeKind } from "../events.ts";
import type { Logger } from "../ports.ts";

/** Options of a NoticeGate. */
export interface NoticeGateOptions {
  events: EventBus;
  logger: Logger;
  /** Inject the notice's text at L4; `done` is called once it is answered (or refused). */
  inject(text: string, meta: Record<string, unknown>, done: () => void): boolean;
}

/** Publishes, logs and injects kernel notices, one per kind and subject at a time. */
export class NoticeGate {
  readonly #options: NoticeGateOptions;
  readonly #inFlight = new Set<string>();

  constructor(options: NoticeGateOptions) {
    this.#options = options;
  }

  /**
   * Raise a notice unless one of the same kind and subject is in flight. The injection happens
   * on a later microtask, so a caller deep in a turn is never re-entered.
   */
  raise(kind: KernelNoticeKind, subject: string, text: string): void {
    const key = `${kind}:${subject}`;
    if (this.#inFlight.has(key)) return;
    this.#inFlight.add(key);
    this.#options.events.publish({ type: "kernel_notice", kind, subject, text });
    this.#options.logger.warn("Kernel notice", { kind, subject, text });
    const done = () => this.#inFlight.delete(key);
    queueMicrotask(() => {
      if (!this.#options.inject(text, { kernelNotice: kind, subject }, done)) done();
    });
  }
}

/** Where notices go once there is an agent (Agent.kernelNotice). */
export interface NoticeSink {
  kernelNotice(kind: KernelNoticeKind, subject: string, text: string): void;
}

/** Holds notices until an agent is attached, then passes each one on at once. */
export class KernelNotices {
  #sink: NoticeSink | undefined;
  #early: [KernelNoticeKind, string, string][] = [];

  /** Raise a notice now, or as soon as an agent is attached. */
  send(kind: KernelNoticeKind, subject: string, text: string): void {
    if (this.#sink) this.#sink.kernelNotice(kind, subject, text);
    else this.#early.push([kind, subject, text]);
  }

  /** Deliver what waited and everything after it to `sink`. */
  attach(sink: NoticeSink): void {
    this.#sink = sink;
    for (const [kind, subject, text] of this.#early.splice(0)) {
      sink.kernelNotice(kind, subject, text);
    }
  }

  /**
   * `base`, where each error line carrying `movedTo` (the memory layer's report of a store it
   * could not open and moved aside) also becomes a `store_failed` notice.
   */
  storeLogger(base: Logger): Logger {
    const wrap = (logger: Logger): Logger => ({
      debug: (msg, fields) => logger.debug(msg, fields),
      info: (msg, fields) => logger.info(msg, fields),
      warn: (msg, fields) => logger.warn(msg, fields),
      error: (msg, fields = {}) => {
        logger.error(msg, fields);
        if (typeof fields.movedTo !== "string") return;
        const file = String(fields.path ?? fields.file ?? fields.movedTo);
        this.send(
          "store_failed",
          file,
          `${msg}: ${file} (moved to ${fields.movedTo}). Tell the owner.`,
        );
      },
      child: (bindings) => wrap(logger.child(bindings)),
    });
    return wrap(base);
  }
}
