/**
 * The schemas of the daemon's boundaries are built on first use, not when their module loads
 * (docs/benchmarks.md: building them cost zod ~40 ms of every start), and built they refuse
 * what they refused before: a CLI frame, a plugin.json, an OpenAI answer, a memory import line.
 */
import assert from "node:assert/strict";
import type { z } from "zod";
import { ClientFrame } from "../plugins/builtin/cli/protocol.ts";
import { ManifestSchema, parseManifest } from "../plugins/host/manifest.ts";
import { Line } from "../memory/_portable_records.ts";
import { parseCompletion } from "../adapters/_openai_wire.ts";

/**
 * Counts the builds of a z.lazy schema from now on: zod calls its getter once, on first use, so
 * a count of 1 after a parse means nothing built it before (its module's import, say).
 */
function countBuilds(schema: z.ZodLazy): { count: number } {
  const builds = { count: 0 };
  const getter = schema._zod.def.getter;
  schema._zod.def.getter = () => {
    builds.count++;
    return getter();
  };
  return builds;
}

const failures = {
  malformed: (what: string) => new Error(`malformed: ${what}`),
} as unknown as Parameters<typeof parseCompletion>[2];

Deno.test("boundary schemas are built on first use and then refuse bad input", () => {
  const [frame, manifests, lines] = [ClientFrame, ManifestSchema, Line].map(countBuilds);

  assert.equal(ClientFrame.safeParse({ type: "status" }).success, true);
  assert.equal(ClientFrame.safeParse({ type: "chat", text: " " }).success, false);
  assert.equal(ClientFrame.safeParse({ type: "nope" }).success, false);
  assert.equal(frame!.count, 1);

  const manifest = { name: "echo", version: "1.0.0", entry: "main.ts", kind: "subprocess" };
  assert.equal(parseManifest(JSON.stringify(manifest)).name, "echo");
  assert.throws(() => parseManifest(JSON.stringify({ ...manifest, version: "1" })), /semver/);
  assert.throws(() => parseManifest(JSON.stringify({ ...manifest, extra: 1 })));

  assert.equal(Line.safeParse({ kind: "nope" }).success, false);
  assert.equal(Line.safeParse("a line").success, false);
  assert.deepEqual([manifests!.count, lines!.count], [1, 1]);

  const answer = { model: "m", choices: [{ message: { content: "hi" }, finish_reason: "stop" }] };
  assert.equal(parseCompletion(JSON.stringify(answer), "m", failures).text, "hi");
  assert.throws(
    () =>
      parseCompletion(JSON.stringify({ choices: [{ message: { content: 3 } }] }), "m", failures),
    /malformed/,
  );
});
