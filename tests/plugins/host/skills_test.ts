/** Skills as others write them: <home>/skills without plugin.json, and npm skill packages. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { systemClock } from "../../../adapters/mod.ts";
import {
  createSkillInstaller,
  HomeSkills,
  parseSkill,
  referencedFiles,
  type SkillInstaller,
} from "../../../plugins/mod.ts";
import { buildTarGz, integrityOf, startFakeNpm, type TarEntry } from "../../fixtures/fake_npm.ts";
import { createHarness, type PluginHarness } from "./_support.ts";

const SKILL = `---
name: brew
description: Brew pour-over coffee
metadata: {"openclaw": {"emoji": "☕"}}
---
# Brew

## When to use
The owner wants coffee.

## Steps
1. Read \`references/ratios.md\` and [the grind chart](references/grind.md).

\`\`\`sh
# not a heading: inside a code block
\`\`\`
`;

/** A harness whose registry also has a HomeSkills over a temp <home>/skills. */
async function withSkills(): Promise<
  PluginHarness & { skills: HomeSkills; dir: string; installer(registry: string): SkillInstaller }
> {
  const h = await createHarness([]);
  const dir = await Deno.makeTempDir({ prefix: "homeagent_skills_" });
  const skills = new HomeSkills({
    dir,
    library: h.registry.skills,
    logger: h.kernel.logger,
    clock: systemClock,
  });
  const dispose = h[Symbol.asyncDispose];
  return Object.assign(h, {
    skills,
    dir,
    installer: (registry: string) =>
      createSkillInstaller({
        skills,
        sources: { npmRegistry: () => registry, clawhubDownloadUrl: () => `${registry}/download` },
      }),
    async [Symbol.asyncDispose]() {
      await dispose();
      await Deno.remove(dir, { recursive: true });
    },
  });
}

async function dropSkill(
  dir: string,
  name: string,
  text: string,
  files: Record<string, string> = {},
) {
  await Deno.mkdir(join(dir, name, "references"), { recursive: true });
  await Deno.writeTextFile(join(dir, name, "SKILL.md"), text);
  for (const [path, content] of Object.entries(files)) {
    await Deno.writeTextFile(join(dir, name, path), content);
  }
}

Deno.test("A SKILL.md dropped in <home>/skills/<name>/ works with no plugin.json", async () => {
  await using h = await withSkills();
  await dropSkill(h.dir, "brew", SKILL, {
    "references/ratios.md": "1:16",
    "references/grind.md": "medium",
    "references/unused.md": "never mentioned",
  });
  await dropSkill(h.dir, "broken", "no front matter");
  await h.skills.load();
  assert.match(h.registry.skills.index(), /\n- brew: Brew pour-over coffee$/);
  assert.equal(h.kernel.logger.find("Skill not loaded").length, 1);
  const loaded = await h.call("skill_load", { name: "brew" });
  assert.match(loaded.content, /^# Skill brew\n# Brew/);
  assert.match(
    loaded.content,
    /\[Bundled files: references\/ratios.md, references\/grind.md — read one/,
  );
  assert.deepEqual(await h.call("skill_load", { name: "brew", file: "references/ratios.md" }), {
    content: "1:16",
  });
  const escape = await h.call("skill_load", { name: "brew", file: "../../etc/passwd" });
  assert.equal(escape.isError, true);
  assert.match(escape.content, /bundles no file/);
  const skill = h.registry.skills.get("brew")!;
  assert.deepEqual([...skill.sections.keys()], ["brew", "when to use", "steps"]);
  assert.deepEqual(skill.metadata, { metadata: { openclaw: { emoji: "☕" } } });
  assert.equal(skill.source, "home");
});

Deno.test("Chinese section headings read as their English twins; a description can come from them", async () => {
  const zh = await parseSkill(
    "---\nname: tea\n---\n# 泡茶\n## 使用场景\n主人想喝绿茶。\n## 步骤\n1. 80 度的水。\n",
  );
  assert.equal(zh.description, "主人想喝绿茶。");
  assert.equal(zh.sections.get("when to use"), "主人想喝绿茶。");
  assert.equal(zh.sections.get("steps"), "1. 80 度的水。");
  const trigger = await parseSkill(
    "---\nname: db\ndescription: x\n---\n## 触发条件：\n查询数据库\n",
  );
  assert.equal(trigger.sections.get("when to use"), "查询数据库");
  assert.deepEqual(referencedFiles("see `docs/a.md` and docs/b.md", ["docs/a.md", "docs/b.md"]), [
    "docs/a.md",
    "docs/b.md",
  ]);
  assert.deepEqual(referencedFiles("all of [refs](refs/)", ["refs/x.md", "refs/y.md", "z.md"]), [
    "refs/x.md",
    "refs/y.md",
  ]);
});

const pkg = (files: Record<string, string>): TarEntry[] =>
  Object.entries(files).map(([path, data]) => ({ path: `package/${path}`, data }));

Deno.test("plugin install npm:<package> verifies the sha512 integrity and installs the skill", async () => {
  await using npm = startFakeNpm();
  await using h = await withSkills();
  const tarball = await buildTarGz(pkg({
    "package.json": '{"name":"@acme/brew-skill","version":"1.2.0"}',
    "SKILL.md": SKILL,
    "references/ratios.md": "1:16",
  }));
  await npm.publish("@acme/brew-skill", [{ version: "1.2.0", tarball }]);
  const [installed] = await h.installer(npm.url).install("npm:@acme/brew-skill");
  assert.equal(installed!.name, "brew");
  assert.equal(installed!.source, "npm:@acme/brew-skill@1.2.0");
  assert.match(installed!.integrity!, /^sha512-/);
  assert.deepEqual(installed!.files, ["package.json", "references/ratios.md"]);
  assert.match(h.registry.skills.index(), /- brew: Brew pour-over coffee/);
  assert.ok(npm.requests.includes("/@acme/brew-skill"));
  const mode = (await Deno.stat(join(h.dir, "brew", "references", "ratios.md"))).mode! & 0o777;
  assert.equal(mode, 0o600);
  // A reinstall replaces the folder in one rename, and nothing is left aside.
  await h.installer(npm.url).install("npm:@acme/brew-skill@1.2.0");
  assert.deepEqual((await Array.fromAsync(Deno.readDir(h.dir))).map((e) => e.name), ["brew"]);
  await h.skills.remove("brew");
  assert.equal(h.registry.skills.get("brew"), undefined);
});

Deno.test("A package of several skills installs each; one without any is refused", async () => {
  await using npm = startFakeNpm();
  await using h = await withSkills();
  const two = pkg({
    "skills/one/SKILL.md": "---\nname: one\ndescription: First\n---\nbody",
    "skills/two/SKILL.md": "---\nname: two\ndescription: Second\n---\nbody",
    "skills/shared/notes.md": "shared",
  });
  await npm.publish("multi", [{ version: "1.0.0", tarball: await buildTarGz(two) }]);
  const names = (await h.installer(npm.url).install("npm:multi")).map((s) => s.name);
  assert.deepEqual(names, ["one", "two"]);
  await npm.publish("empty", [{
    version: "1.0.0",
    tarball: await buildTarGz(pkg({ "a.md": "x" })),
  }]);
  await assert.rejects(h.installer(npm.url).install("npm:empty"), /holds no SKILL.md/);
});

Deno.test("npm installs refuse a bad integrity, none, a foreign tarball, links and traversal", async () => {
  await using npm = startFakeNpm();
  await using h = await withSkills();
  const good = await buildTarGz(pkg({ "SKILL.md": SKILL }));
  const other = await buildTarGz(pkg({ "SKILL.md": SKILL.replace("pour-over", "evil") }));
  const cases: [string, Parameters<typeof npm.publish>[1], RegExp][] = [
    [
      "tampered",
      [{ version: "1.0.0", tarball: other, integrity: await integrityOf(good) }],
      /does not match its integrity/,
    ],
    [
      "nohash",
      [{ version: "1.0.0", tarball: good, integrity: null }],
      /publishes no sha512 integrity/,
    ],
    [
      "sha1only",
      [{ version: "1.0.0", tarball: good, integrity: "sha1-abc=" }],
      /no sha512 integrity/,
    ],
    [
      "elsewhere",
      [{ version: "1.0.0", tarball: good, tarballUrl: "http://127.0.0.2:9/x.tgz" }],
      /not served by the registry/,
    ],
    ["linked", [{
      version: "1.0.0",
      tarball: await buildTarGz([{ path: "package/SKILL.md", data: SKILL }, {
        path: "package/x",
        type: "2",
        link: "/etc/passwd",
      }]),
    }], /not a regular file/],
    ["climbs", [{
      version: "1.0.0",
      tarball: await buildTarGz([{ path: "package/../../x", data: "x" }]),
    }], /path traversal/],
  ];
  for (const [name, versions, error] of cases) {
    await npm.publish(name, versions);
    await assert.rejects(h.installer(npm.url).install(`npm:${name}`), error, name);
  }
  await assert.rejects(h.installer(npm.url).install("npm:missing"), /not found/);
  await assert.rejects(h.installer(npm.url).install("npm:../etc"), /Invalid skill name/);
  await assert.rejects(
    h.installer(npm.url).install("npm:nohash@9.9.9"),
    /no version or tag "9.9.9"/,
  );
  assert.deepEqual([...Deno.readDirSync(h.dir)], [], "nothing was written");
});
