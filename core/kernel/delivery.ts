/**
 * Where an input's messages go: its notices and its one terminal reply reach the callbacks its
 * sender gave (the CLI, the web API) or else the output channel the input names, and each is
 * published as an event as well. A callback or channel that fails is logged, never thrown back
 * into the turn; a channel without images gets a link line per image instead.
 */
import type { EventBus } from "../events.ts";
import type { InjectOptions, Input, Reply } from "../input.ts";
import type { Logger } from "../ports.ts";
import { errorMessage } from "../errors.ts";
import { describeMedia, type MediaRef } from "../memory/media.ts";
import { Cap, type OutputChannel, type OutputMessage, type OutputRegistry } from "./output.ts";

/** Name of the output channel that receives consolidation replies. */
export const CONSOLIDATION_CHANNEL = "_consolidation_";

/** Where the web plugin serves a stored image (DESIGN.md §6, behind the token). */
export function mediaLink(digest: string): string {
  return `/api/v1/media/${digest}`;
}

/** Options of a Delivery. */
export interface DeliveryOptions {
  events: EventBus;
  outputs: OutputRegistry;
  logger: Logger;
}

/** Routes notices and replies of inputs to their senders or channels. */
export class Delivery {
  readonly #options: DeliveryOptions;
  readonly #replyTo = new Map<string, (reply: Reply) => void>();
  readonly #noticeTo = new Map<string, (text: string) => void>();

  constructor(options: DeliveryOptions) {
    this.#options = options;
  }

  /** Keep the sender's callbacks of input `inputId` until its reply is delivered. */
  expect(inputId: string, options: Pick<InjectOptions, "onReply" | "onNotice">): void {
    if (options.onReply) this.#replyTo.set(inputId, options.onReply);
    if (options.onNotice) this.#noticeTo.set(inputId, options.onNotice);
  }

  /**
   * A non-terminal message about `input` ("busy, please wait"): to its `onNotice`, else through
   * its channel, and always as a `notice` event. Its one terminal reply is still owed.
   */
  notice(input: Input, text: string): void {
    const { events, logger, outputs } = this.#options;
    events.publish({ type: "notice", turnId: input.id, channel: input.channel, text });
    const callback = this.#noticeTo.get(input.id);
    if (callback) return this.#call("Notice callback threw", input, () => callback(text));
    const channel = outputs.get(input.channel);
    if (!channel) {
      logger.debug("No output channel for notice", { inputId: input.id, channel: input.channel });
      return;
    }
    this.#send(channel, { payload: text, meta: { ...input.meta }, type: "text" });
  }

  /** The terminal reply of `input`: published, then to its sender or else its channel. */
  reply(input: Input, reply: Reply): void {
    const { events, logger, outputs } = this.#options;
    events.publish({
      type: "output",
      turnId: input.id,
      channel: reply.channel,
      text: reply.text,
      status: reply.status,
      ...(reply.media?.length ? { media: reply.media } : {}),
    });
    const callback = this.#replyTo.get(input.id);
    this.#replyTo.delete(input.id);
    this.#noticeTo.delete(input.id);
    if (callback) return this.#call("Reply callback threw", input, () => callback(reply));
    const channel = outputs.get(reply.channel);
    if (!channel && reply.channel === CONSOLIDATION_CHANNEL) {
      logger.debug("Consolidation reply", { inputId: input.id, status: reply.status });
    } else if (!channel) {
      logger.warn("No output channel for reply", { inputId: input.id, channel: reply.channel });
    } else {
      this.#toChannel(channel, input, reply.text, reply.media ?? []);
    }
  }

  #toChannel(channel: OutputChannel, input: Input, text: string, media: readonly MediaRef[]) {
    const canShow = (channel.caps & Cap.image) !== 0;
    // A channel without the image capability gets a line per image: what it is and its link.
    const links = canShow
      ? []
      : media.map((m) => `[image ${describeMedia(m)}: ${mediaLink(m.digest)}]`);
    this.#send(channel, {
      payload: [text, ...links].join("\n"),
      meta: { ...input.meta },
      type: "text",
      inputId: input.id,
    });
    if (!canShow) return;
    for (const m of media) {
      this.#send(channel, {
        payload: m.digest,
        meta: { ...input.meta, mime: m.mime, size: m.size, url: mediaLink(m.digest) },
        type: "image",
        inputId: input.id,
      });
    }
  }

  #call(what: string, input: Input, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#options.logger.error(what, { inputId: input.id, error: errorMessage(error) });
    }
  }

  /** Hand `message` to a channel on a later microtask; a failure is logged, never thrown. */
  #send(channel: OutputChannel, message: OutputMessage): void {
    Promise.resolve()
      .then(() => channel.handler(message))
      .catch((error) =>
        this.#options.logger.error("Output channel failed", {
          channel: channel.name,
          error: errorMessage(error),
        })
      );
  }
}
