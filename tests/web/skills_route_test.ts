import assert from "node:assert/strict";
import { systemClock } from "../../adapters/mod.ts";
import {
  createSkillInstaller,
  HomeSkills,
  reviewSkillPackage,
  SkillLibrary,
} from "../../plugins/mod.ts";
import { createApp, type SkillsPort } from "../../web/mod.ts";
import { buildTarGz, startFakeNpm } from "../fixtures/fake_npm.ts";
import { MemoryLogger } from "../fakes/logger.ts";
import { bearer, fakeWeb } from "./_deps.ts";

Deno.test("/api/v1/skills reviews, installs only the confirmed integrity, lists and removes", async () => {
  await using npm = startFakeNpm();
  const tarball = await buildTarGz([{
    path: "package/SKILL.md",
    data: "---\nname: tea\ndescription: Brew green tea\n---\nsteps",
  }]);
  await npm.publish("tea-skill", [{ version: "1.0.0", tarball }]);
  const dir = await Deno.makeTempDir();
  try {
    const home = new HomeSkills({
      dir,
      library: new SkillLibrary(),
      logger: new MemoryLogger(),
      clock: systemClock,
    });
    const installer = createSkillInstaller({
      skills: home,
      sources: { npmRegistry: () => npm.url, clawhubDownloadUrl: () => `${npm.url}/dl` },
    });
    const skills: SkillsPort = {
      list: () => home.list(),
      review: async (source) => {
        const pkg = await installer.fetch(source);
        return {
          source: pkg.source,
          integrity: pkg.integrity,
          lines: await reviewSkillPackage(pkg),
        };
      },
      install: (source, integrity) => installer.install(source, { integrity }),
      remove: (name) => home.remove(name),
    };
    const app = createApp({ ...fakeWeb().deps, skills });
    const post = (body: unknown) =>
      app.request("/api/v1/skills", {
        method: "POST",
        headers: { ...bearer, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const reviewed = await (await post({ source: "npm:tea-skill" })).json();
    assert.equal(reviewed.installed, false);
    assert.equal(reviewed.review.source, "npm:tea-skill@1.0.0");
    assert.match(reviewed.review.lines.join("\n"), /skill "tea": Brew green tea/);
    assert.deepEqual(home.list(), [], "a review installs nothing");
    const conflict = await post({ source: "npm:tea-skill", confirm: "sha512-other" });
    assert.equal(conflict.status, 409);
    const done = await post({ source: "npm:tea-skill", confirm: reviewed.review.integrity });
    assert.equal(done.status, 201);
    const listed = await (await app.request("/api/v1/skills", { headers: bearer })).json();
    assert.deepEqual(listed.skills.map((s: { name: string }) => s.name), ["tea"]);
    const bad = await post({ source: "npm:../x" });
    assert.equal(bad.status, 400);
    const removed = await app.request("/api/v1/skills/tea", { method: "DELETE", headers: bearer });
    assert.equal(removed.status, 200);
    assert.deepEqual(home.list(), []);
    const gone = await app.request("/api/v1/skills/tea", { method: "DELETE", headers: bearer });
    assert.equal(gone.status, 400);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
