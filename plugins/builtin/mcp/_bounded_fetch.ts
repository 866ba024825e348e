/**
 * The fetch of the MCP HTTP client transports, with the stdio transport's framing bound: a
 * response line (an SSE field, or a JSON answer sent without a newline) longer than
 * `maxLineBytes` fails the body. The SDK's SSE parser keeps a partial line whole, so a server
 * that sent one without end grew the daemon for as long as it sent.
 */

/** Wrap `base` so every response body is cut off at a line past `maxLineBytes`. */
export function boundedFetch(
  server: string,
  maxLineBytes: number,
  onOverflow: (error: Error) => void,
  base: typeof fetch = (input, init) => globalThis.fetch(input, init),
): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body) return response;
    let run = 0;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          for (let at = 0;;) {
            const nl = chunk.indexOf(0x0a, at);
            run += (nl < 0 ? chunk.length : nl) - at;
            if (run > maxLineBytes) {
              const error = new Error(
                `MCP server "${server}" sent a line longer than ${maxLineBytes} bytes; the connection ends there`,
              );
              controller.error(error);
              return onOverflow(error);
            }
            if (nl < 0) break;
            run = 0;
            at = nl + 1;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
