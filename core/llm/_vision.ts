/**
 * Images per source: a source that declares `vision` gets a user message's images as they
 * are; any other gets the message without them and one plain line saying what arrived, so the
 * model can tell the owner it cannot see it instead of pretending to.
 */
import type { ChatMessage, ChatRequest, ImagePart } from "./provider.ts";
import type { RequestBuilder } from "./call.ts";

/** The note a source without vision reads in place of `images`. */
export function unseenImagesNote(images: readonly ImagePart[]): string {
  const kinds = [...new Set(images.map((i) => i.mime))].join(", ");
  const what = images.length === 1
    ? `An image (${kinds}) arrived`
    : `${images.length} images (${kinds}) arrived`;
  return `[${what} with this message, but this model cannot see images. Say so if it matters.]`;
}

/** `request` as `vision` allows: unchanged with vision, else images replaced by the note. */
export function forVision(request: ChatRequest, vision: boolean): ChatRequest {
  if (vision || !request.messages.some(hasImages)) return request;
  return {
    ...request,
    messages: request.messages.map((m): ChatMessage => {
      if (m.role !== "user" || !m.images?.length) return m;
      const note = unseenImagesNote(m.images);
      return { role: "user", content: m.content === "" ? note : `${m.content}\n\n${note}` };
    }),
  };
}

/** A plan (request or builder) whose every request is adapted by forVision. */
export function visionPlan<P extends ChatRequest | RequestBuilder>(plan: P, vision: boolean): P {
  if (typeof plan === "function") {
    return ((fit: Parameters<RequestBuilder>[0]) => forVision(plan(fit), vision)) as P;
  }
  return forVision(plan as ChatRequest, vision) as P;
}

function hasImages(m: ChatMessage): boolean {
  return m.role === "user" && (m.images?.length ?? 0) > 0;
}
