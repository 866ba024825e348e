/** What a package asks for, shown before install, and the confirmation around it. */
import assert from "node:assert/strict";
import {
  ConfirmationRequired,
  confirmInstall,
  type ConfirmIo,
  parseManifest,
  reviewManifest,
} from "../../../plugins/mod.ts";

const manifest = (extra: Record<string, unknown>) =>
  parseManifest(JSON.stringify({
    name: "weather",
    version: "2.1.0",
    entry: "main.ts",
    kind: "subprocess",
    capabilities: ["tools"],
    ...extra,
  }));

const SHA = "ab".repeat(32);

Deno.test("reviewManifest lists env names, paths, hosts and programs, and calls out HomeAgent's secrets", () => {
  const review = reviewManifest(
    manifest({
      permissions: {
        env: ["WEATHER_KEY", "HOMEAGENT_LLM_API_KEY"],
        read: ["assets"],
        write: ["cache"],
        net: ["api.weather.example:443"],
        run: ["bin/convert"],
      },
    }),
    SHA,
  );
  assert.deepEqual(review.homeagentEnv, ["HOMEAGENT_LLM_API_KEY"]);
  const text = review.lines.join("\n");
  assert.match(text, /^Plugin "weather" 2\.1\.0 \(subprocess, entry main\.ts, sha256 abababab/);
  assert.match(text, /environment variables: WEATHER_KEY, HOMEAGENT_LLM_API_KEY/);
  assert.match(text, /reads \(inside its folder\): assets/);
  assert.match(text, /writes \(inside its folder\): cache/);
  assert.match(text, /network hosts: api\.weather\.example:443/);
  assert.match(text, /programs it starts: bin\/convert/);
  assert.match(text, /^! It asks for HomeAgent's own secrets: HOMEAGENT_LLM_API_KEY/m);
  assert.match(text, /^! It starts programs \("bin\/convert"\): it runs outside the sandbox/m);
});

Deno.test("reviewManifest says when a plugin asks for nothing, and flags a native entry", () => {
  const plain = reviewManifest(manifest({}), SHA).lines.join("\n");
  assert.match(plain, /no permissions beyond its own folder and its data\/ folder/);
  assert.doesNotMatch(plain, /^!/m);
  const native = reviewManifest(manifest({ entry: "plugin.bin" }), SHA);
  assert.match(native.native!, /its entry "plugin.bin" is a native program/);
  assert.match(native.lines.at(-1)!, /refused unless core\.plugins\.allow_native is true/);
});

function io(overrides: Partial<ConfirmIo>): ConfirmIo & { printed: string[]; asked: string[] } {
  const printed: string[] = [];
  const asked: string[] = [];
  return {
    yes: false,
    isTerminal: true,
    ask: (q) => (asked.push(q), "n"),
    print: (line) => printed.push(line),
    printed,
    asked,
    ...overrides,
  };
}

Deno.test("confirmInstall asks on a terminal, takes --yes, and refuses without either", async () => {
  const review = reviewManifest(manifest({ permissions: { env: ["HOMEAGENT_LLM_API_KEY"] } }), SHA);
  const yes = io({ ask: () => "y" });
  assert.equal(await confirmInstall(review, yes), true);
  assert.deepEqual(yes.printed, review.lines);
  const no = io({});
  assert.equal(await confirmInstall(review, no), false);
  assert.match(no.asked[0]!, /Install "weather" with these permissions\? \[y\/N\]/);
  assert.equal(await confirmInstall(review, io({ ask: () => null })), false);
  const flagged = io({ yes: true, isTerminal: false });
  assert.equal(await confirmInstall(review, flagged), true);
  assert.deepEqual(flagged.asked, []);
  assert.ok(flagged.printed.some((l) => l.includes("HOMEAGENT_LLM_API_KEY")));
  await assert.rejects(
    confirmInstall(review, io({ isTerminal: false })),
    (e: unknown) => e instanceof ConfirmationRequired && /pass --yes/.test(e.message),
  );
});
