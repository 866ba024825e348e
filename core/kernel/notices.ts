/**
 * Kernel notices (L4) raised while the daemon is still being built: the provider manager and
 * the memory tiers exist before the agent that injects their notices, so what they raise
 * early waits here and goes in once the agent is attached.
 */
import type { KernelNoticeKind } from "../events.ts";
import type { Logger } from "../ports.ts";

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
