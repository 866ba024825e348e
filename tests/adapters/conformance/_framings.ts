/**
 * Framings of a recorded response body: where it is cut into writes and how its end is
 * signalled. _wire_server.ts sends a body framed this way.
 *
 * ```ts
 * for (const framing of framings(200)) {
 *   server.enqueue({ status, contentType, pieces: cut(body, eventEnds, framing.split),
 *     transfer: framing.transfer });
 * }
 * ```
 */
import { rng } from "../../fakes/random.ts";

/** How the end of the body is signalled. */
export type Transfer = "chunked" | "length" | "close";

/** How the body is cut into writes. */
export type Split =
  | { kind: "events" }
  | { kind: "whole" }
  /** After the first byte of every multi-byte UTF-8 character: each one split in two. */
  | { kind: "utf8" }
  | { kind: "random"; seed: number };

/** One way of serving a body: its cuts and its transfer encoding. */
export interface Framing {
  split: Split;
  transfer: Transfer;
}

/** Every transfer encoding. */
export const TRANSFERS: readonly Transfer[] = ["chunked", "length", "close"];

/** Smallest and largest piece of a random split, in bytes. */
export const PIECE_MIN = 1;
export const PIECE_MAX = 64;

/**
 * The framings of one fixture: one event per write and the whole body in one write, each
 * under every transfer encoding; every multi-byte character cut in two (chunked, where
 * each piece reaches the client as its own read); then `seeds` random splits that take
 * the transfer encodings in turn. With Content-Length or connection close the pieces are
 * separate writes that the kernel may still merge, as a real network does.
 */
export function framings(seeds: number): Framing[] {
  const out: Framing[] = [];
  for (const transfer of TRANSFERS) {
    out.push({ split: { kind: "events" }, transfer }, { split: { kind: "whole" }, transfer });
  }
  out.push({ split: { kind: "utf8" }, transfer: "chunked" });
  for (let seed = 1; seed <= seeds; seed++) {
    out.push({ split: { kind: "random", seed }, transfer: TRANSFERS[seed % TRANSFERS.length]! });
  }
  return out;
}

/** A short name of a framing for assertion messages, e.g. `random#17/close`. */
export function framingName(framing: Framing): string {
  const split = framing.split.kind === "random"
    ? `random#${framing.split.seed}`
    : framing.split.kind;
  return `${split}/${framing.transfer}`;
}

/**
 * Cut `body` into pieces: at the event ends given (byte offsets, ascending), not at all, or
 * into random lengths of 1–64 bytes drawn from a PRNG seeded with `seed` (so a failure is
 * reproducible from its seed).
 */
export function cut(body: Uint8Array, eventEnds: readonly number[], split: Split): Uint8Array[] {
  if (split.kind === "whole" || body.length === 0) return [body];
  const ends = split.kind === "events"
    ? [...eventEnds]
    : split.kind === "utf8"
    ? utf8Ends(body)
    : randomEnds(body.length, split.seed);
  const pieces: Uint8Array[] = [];
  let at = 0;
  for (const end of ends) {
    if (end <= at || end > body.length) continue;
    pieces.push(body.subarray(at, end));
    at = end;
  }
  if (at < body.length) pieces.push(body.subarray(at));
  return pieces;
}

function utf8Ends(body: Uint8Array): number[] {
  const ends: number[] = [];
  // 0b11xxxxxx starts a multi-byte sequence; cut right after it.
  body.forEach((byte, i) => byte >= 0xc0 && ends.push(i + 1));
  return ends;
}

function randomEnds(length: number, seed: number): number[] {
  const next = rng(seed);
  const ends: number[] = [];
  for (let at = 0; at < length;) {
    at += PIECE_MIN + Math.floor(next() * (PIECE_MAX - PIECE_MIN + 1));
    ends.push(Math.min(at, length));
  }
  return ends;
}
