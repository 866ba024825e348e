/** .hmap packages: install, upgrade keeping data, uninstall, and every refusal case. */
import assert from "node:assert/strict";
import { zipSync } from "fflate";
import { buildHmap, readHmap } from "../../../plugins/mod.ts";
import { echoHmap } from "../../fixtures/build_echo_hmap.ts";
import { createHarness } from "./_support.ts";

const manifest = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: "pkg", version: "1.0.0", entry: "SKILL.md", kind: "skill", ...extra });
const skill = "---\nname: pkg\ndescription: a packaged skill\n---\n# Steps\n1. Do it.\n";

/** A zip whose entries carry raw names and Unix modes, as a hostile archiver would write. */
function craft(entries: [string, string, number?][]): Uint8Array {
  const files: Record<string, [Uint8Array, { os: number; attrs: number }]> = {};
  for (const [name, text, mode] of entries) {
    files[name] = [new TextEncoder().encode(text), { os: 3, attrs: (mode ?? 0o100644) << 16 }];
  }
  return zipSync(files);
}

Deno.test("readHmap refuses traversal, absolute paths, links, oversize, unknown kinds and missing parts", async () => {
  const cases: [string, Uint8Array, RegExp][] = [
    [
      "../ entry",
      craft([["plugin.json", manifest()], ["SKILL.md", skill], ["../evil.sh", "x"]]),
      /path traversal/,
    ],
    [
      "nested ../",
      craft([["plugin.json", manifest()], ["SKILL.md", skill], ["a/../../b", "x"]]),
      /path traversal/,
    ],
    [
      "absolute",
      craft([["plugin.json", manifest()], ["SKILL.md", skill], ["/etc/cron.d/x", "x"]]),
      /absolute path/,
    ],
    [
      "drive",
      craft([["plugin.json", manifest()], ["SKILL.md", skill], ["C:/x", "x"]]),
      /absolute path/,
    ],
    [
      "symlink",
      craft([["plugin.json", manifest()], ["SKILL.md", "/etc/passwd", 0o120777]]),
      /symbolic link/,
    ],
    [
      "unknown kind",
      craft([["plugin.json", manifest({ kind: "native" })], ["SKILL.md", skill]]),
      /kind/,
    ],
    ["no manifest", craft([["SKILL.md", skill]]), /no plugin.json/],
    ["missing entry", craft([["plugin.json", manifest()]]), /entry "SKILL.md" is not in it/],
    ["not a zip", new TextEncoder().encode("hello"), /not a zip/],
    ["bad manifest", craft([["plugin.json", "{"], ["SKILL.md", skill]]), /not valid JSON/],
  ];
  for (const [label, bytes, expected] of cases) {
    await assert.rejects(readHmap(bytes), expected, label);
  }
  const big = craft([["plugin.json", manifest()], ["SKILL.md", skill], ["blob", "z".repeat(5000)]]);
  const two = craft([["plugin.json", manifest()], ["SKILL.md", skill], ["a", "z".repeat(3000)], [
    "b",
    "z".repeat(3000),
  ]]);
  await assert.rejects(readHmap(two, { maxTotalBytes: 5000 }), /exceed 5000 bytes/);
  await assert.rejects(
    readHmap(big, { maxEntryBytes: 1000 }),
    /"blob" is 5000 bytes, over the 1000 limit/,
  );
});

Deno.test("The committed echo.hmap is the reproducible build of the echo fixture", async () => {
  const committed = await Deno.readFile(new URL("../../fixtures/echo.hmap", import.meta.url));
  assert.deepEqual(committed, await echoHmap());
  const pkg = await readHmap(committed);
  assert.equal(pkg.manifest.name, "echo");
  assert.deepEqual([...pkg.files.keys()].sort(), ["main.ts", "plugin.json"]);
  assert.match(pkg.sha256, /^[0-9a-f]{64}$/);
});

Deno.test("Registry.install activates a package without a restart, upgrades keeping data/, and uninstall removes it all", async () => {
  await using h = await createHarness([]);
  const info = await h.registry.install(await echoHmap());
  assert.equal(info.state, "running");
  assert.deepEqual(await h.call("echo_say", { text: "hi" }), { content: "echo: hi" });
  const record = JSON.parse(await Deno.readTextFile(`${h.pluginsDir}/echo/.install.json`));
  assert.equal(record.sha256, info.sha256);
  await Deno.writeTextFile(`${h.pluginsDir}/echo/data/keep.txt`, "kept");
  const again = await h.registry.install(await echoHmap());
  assert.equal(again.state, "running");
  assert.equal(await Deno.readTextFile(`${h.pluginsDir}/echo/data/keep.txt`), "kept");
  await h.registry.uninstall("echo");
  await assert.rejects(Deno.stat(`${h.pluginsDir}/echo`), Deno.errors.NotFound);
  assert.equal((await h.call("echo_say", { text: "x" })).content, "no tool echo_say");
  assert.equal(h.registry.list().some((p) => p.name === "echo"), false);
  const reserved = await buildHmap({
    "plugin.json": manifest({ name: "skills" }),
    "SKILL.md": skill,
  });
  await assert.rejects(h.registry.install(reserved), /built-in plugin's/);
  const leftovers = [];
  for await (const e of Deno.readDir(h.pluginsDir)) leftovers.push(e.name);
  assert.deepEqual(leftovers, []);
});

Deno.test("A packaged SKILL plugin joins the prompt index and skill_load", async () => {
  await using h = await createHarness([]);
  await h.registry.install(await buildHmap({ "plugin.json": manifest(), "SKILL.md": skill }));
  assert.match(h.registry.skills.index(), /- pkg: a packaged skill/);
  assert.match((await h.call("skill_load", { name: "pkg" })).content, /1. Do it./);
});
