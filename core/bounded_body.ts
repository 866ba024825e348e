/**
 * Reading a body that outside code sends (an HTTP answer) only as far as a bound: a sender that
 * never ends grows nothing past `max`, and leaving the read early cancels the rest.
 */

/** What `readBounded` read: the text of at most `max` bytes, and whether more was sent. */
export interface BoundedBody {
  text: string;
  /** The body was longer than `max` bytes; `text` is its first `max`. */
  over: boolean;
}

/** The first `max` bytes of `body` as UTF-8 text; the rest is not read. */
export async function readBounded(
  body: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<BoundedBody> {
  if (!body) return { text: "", over: false };
  const parts: Uint8Array[] = [];
  let bytes = 0;
  let over = false;
  for await (const chunk of body) {
    if (bytes + chunk.length > max) {
      parts.push(chunk.subarray(0, max - bytes));
      bytes = max;
      over = true;
      break; // leaving the loop cancels the body
    }
    parts.push(chunk);
    bytes += chunk.length;
  }
  const all = new Uint8Array(bytes);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return { text: new TextDecoder().decode(all), over };
}
