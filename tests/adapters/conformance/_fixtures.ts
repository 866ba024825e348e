/**
 * Wire fixtures: `tests/fixtures/wire/<family>/<case>.txt`, a response body byte for byte as
 * the provider's API reference describes it, and `<case>.json`, the unified result a client
 * must produce from it, written by hand.
 *
 * A fixture starts with `#` lines that are not sent: `# reference: …` (required: the API
 * reference it follows), `# content-type: …` (required), `# status: …` (default 200) and
 * free notes. Every byte after the last header line is the body, line endings included.
 */
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** Where the fixture families live. */
export const WIRE_DIR = fileURLToPath(new URL("../../fixtures/wire/", import.meta.url));

const Usage = z.object({
  promptTokens: z.number(),
  completionTokens: z.number(),
  cachedTokens: z.number().optional(),
}).strict();

const ExpectedCall = z.object({
  /** The id as sent, or "*" for one the client generates (non-empty, unique per answer). */
  id: z.string(),
  name: z.string(),
  /** JSON text compared byte for byte, or an object compared as parsed JSON. */
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
}).strict();

const ExpectedAnswer = z.object({
  text: z.string(),
  reasoning: z.string().optional(),
  toolCalls: z.array(ExpectedCall),
  finishReason: z.enum(["stop", "tool_calls", "length", "content_filter"]),
  usage: Usage.optional(),
  model: z.string(),
}).strict();

const ExpectedError = z.object({
  error: z.object({
    kind: z.enum([
      "auth",
      "rate_limit",
      "overflow",
      "timeout",
      "server",
      "network",
      "malformed",
      "bad_request",
    ]),
    /** A part of the error message. */
    message: z.string(),
    status: z.number().optional(),
  }).strict(),
  /** Text and reasoning streamed before the failure (default none). */
  text: z.string().optional(),
  reasoning: z.string().optional(),
}).strict();

/** What a client must make of a fixture. */
export const Expected = z.union([ExpectedAnswer, ExpectedError]);
export type Expected = z.infer<typeof Expected>;
export type ExpectedAnswer = z.infer<typeof ExpectedAnswer>;
export type ExpectedCall = z.infer<typeof ExpectedCall>;

/** One fixture, ready to serve. */
export interface WireFixture {
  family: string;
  name: string;
  reference: string;
  status: number;
  contentType: string;
  body: Uint8Array;
  /** Byte offsets where each SSE event / NDJSON line ends. */
  eventEnds: number[];
  /** A whole JSON body (neither SSE nor NDJSON): it also answers a non-streamed call. */
  json: boolean;
  expected: Expected;
  /**
   * `<case>.request.json`, when present: the case sends VISION_REQUEST, and every request the
   * client made must carry `value` under the body's top-level `key`, compared as parsed JSON.
   */
  request?: ExpectedRequest;
}

const ExpectedRequest = z.object({ key: z.string(), value: z.unknown() }).strict();
/** Part of a request body a client must send, as written from the provider's reference. */
export type ExpectedRequest = z.infer<typeof ExpectedRequest>;

function loadRequest(where: string): ExpectedRequest | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`${WIRE_DIR}${where}.request.json`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  return ExpectedRequest.parse(JSON.parse(text));
}

const latin1 = new TextDecoder("latin1");

/** Every fixture of `family`, sorted by name; throws when one is incomplete. */
export function loadFamily(family: string): WireFixture[] {
  const dir = `${WIRE_DIR}${family}/`;
  const names = [...Deno.readDirSync(dir)]
    .filter((e) => e.isFile && e.name.endsWith(".txt"))
    .map((e) => e.name.slice(0, -4))
    .sort();
  if (names.length === 0) throw new Error(`No wire fixtures in ${dir}`);
  return names.map((name) => loadFixture(family, name));
}

/** The fixture `<family>/<name>.txt` and its expected result. */
export function loadFixture(family: string, name: string): WireFixture {
  const where = `${family}/${name}`;
  const raw = Deno.readFileSync(`${WIRE_DIR}${where}.txt`);
  const { meta, bodyStart } = header(raw);
  const reference = meta.get("reference");
  const contentType = meta.get("content-type");
  if (!reference) throw new Error(`Wire fixture ${where}.txt names no "# reference:"`);
  if (!contentType) throw new Error(`Wire fixture ${where}.txt names no "# content-type:"`);
  const body = raw.subarray(bodyStart);
  const parsed = Expected.safeParse(
    JSON.parse(Deno.readTextFileSync(`${WIRE_DIR}${where}.json`)),
  );
  if (!parsed.success) {
    throw new Error(`Wire fixture ${where}.json is not an expected result: ${parsed.error}`);
  }
  return {
    family,
    name,
    reference,
    status: Number(meta.get("status") ?? 200),
    contentType,
    body,
    eventEnds: eventEnds(body, contentType),
    json: !/event-stream|ndjson/.test(contentType),
    expected: parsed.data,
    request: loadRequest(where),
  };
}

function header(raw: Uint8Array): { meta: Map<string, string>; bodyStart: number } {
  const meta = new Map<string, string>();
  let at = 0;
  while (raw[at] === 0x23 /* # */) {
    let end = raw.indexOf(0x0a, at);
    if (end < 0) end = raw.length;
    const line = new TextDecoder().decode(raw.subarray(at + 1, end)).trim();
    const match = /^([a-z-]+):\s*(.*)$/.exec(line);
    if (match && !meta.has(match[1]!)) meta.set(match[1]!, match[2]!);
    at = end + 1;
  }
  return { meta, bodyStart: Math.min(at, raw.length) };
}

/** Event ends: after each blank line (LF, CRLF or CR) of SSE, after each NDJSON line. */
function eventEnds(body: Uint8Array, contentType: string): number[] {
  // latin1 maps one byte to one character, so string offsets are byte offsets.
  const text = latin1.decode(body);
  const pattern = contentType.includes("event-stream")
    ? /\r\n\r\n|\n\n|\r\r/g
    : contentType.includes("ndjson")
    ? /\n/g
    : undefined;
  if (!pattern) return [];
  return [...text.matchAll(pattern)].map((m) => m.index + m[0].length);
}
