/**
 * Media in a turn: the images an input carries are tied to its sentence and turn in the
 * graph and loaded (verified) for the model; what the model attaches with `media_attach` is
 * collected per turn for the reply. A damaged or missing image becomes a note the model
 * reads, never a failed turn.
 * @module
 */
import type { Input } from "../input.ts";
import type { ImagePart } from "../llm/provider.ts";
import type { Logger } from "../ports.ts";
import { errorMessage } from "../errors.ts";
import { describeMedia, type MediaRef, type MediaStore } from "../memory/media.ts";

/** Most images the model may attach to one reply. */
export const MAX_ATTACHMENTS = 8;

/** Images attached to replies, by turn, until the turn takes them. */
export class MediaOutbox {
  #byTurn = new Map<string, MediaRef[]>();

  /** Attach `ref` to the reply of `turnId`; false when the turn has its MAX_ATTACHMENTS. */
  add(turnId: string, ref: MediaRef): boolean {
    const list = this.#byTurn.get(turnId) ?? [];
    if (list.some((r) => r.digest === ref.digest)) return true;
    if (list.length >= MAX_ATTACHMENTS) return false;
    list.push(ref);
    this.#byTurn.set(turnId, list);
    return true;
  }

  /** The attachments of `turnId`, removed from the outbox. */
  take(turnId: string): MediaRef[] {
    const list = this.#byTurn.get(turnId) ?? [];
    this.#byTurn.delete(turnId);
    return list;
  }
}

/** What a turn sends the model for its input's media. */
export interface TurnImages {
  images: ImagePart[];
  /** Plain lines for the system notes: media that could not be read, or media memory off. */
  notes: string[];
}

/** The sentence a block hangs off: the input's text, or a stand-in for an image alone. */
export function originSentence(input: Input): string {
  const text = input.text.trim();
  return text !== "" ? text : `(an image sent on its own, turn ${input.id})`;
}

/**
 * Link the input's media to its sentence and turn, and load each verified for the model.
 * Never throws: a failure is a note (and a log line).
 */
export async function loadTurnImages(
  input: Input,
  store: MediaStore | undefined,
  logger: Logger,
): Promise<TurnImages> {
  const refs = input.media ?? [];
  if (refs.length === 0) return { images: [], notes: [] };
  if (!store?.enabled) {
    return { images: [], notes: [`[${refs.length} image(s) arrived, but media memory is off.]`] };
  }
  const images: ImagePart[] = [];
  const notes: string[] = [];
  for (const ref of refs) {
    try {
      await store.link(ref.digest, { sentence: originSentence(input), turnId: input.id });
      const item = await store.get(ref.digest);
      images.push({ mime: item.mime, data: toBase64(item.bytes) });
    } catch (error) {
      logger.warn("Cannot load an image of the input", {
        digest: ref.digest,
        error: errorMessage(error),
      });
      notes.push(`[The image ${describeMedia(ref)} could not be read: ${errorMessage(error)}]`);
    }
  }
  return { images, notes };
}

/** Base64 of `bytes` (no line breaks), in chunks so large images do not overflow the stack. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}
