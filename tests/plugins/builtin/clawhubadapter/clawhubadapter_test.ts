/** The clawhubadapter tools against a loopback ClawHub (search and download endpoints). */
import assert from "node:assert/strict";
import { zipSync } from "fflate";
import { systemClock } from "../../../../adapters/mod.ts";
import {
  createClawhubAdapterPlugin,
  createSkillInstaller,
  HomeSkills,
  SkillLibrary,
} from "../../../../plugins/mod.ts";
import { createTestKernel } from "../../../fakes/kernel.ts";
import { startPlugin } from "../../../fakes/plugin_host.ts";
import { callTool } from "../../host/_support.ts";

/** A fake ClawHub: `/api/v1/search` and `/api/v1/download`, recording what it was asked. */
function startFakeClawHub() {
  const asked: string[] = [];
  const skill = (name: string) =>
    new TextEncoder().encode(
      `---\nname: ${name}\ndescription: The ${name} skill\n---\nDo ${name}.`,
    );
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    asked.push(`${url.pathname}${url.search}`);
    if (url.pathname === "/api/v1/search") {
      return Response.json({
        results: [
          {
            score: 0.9,
            slug: "gifgrep",
            displayName: "GifGrep",
            summary: "Find GIFs",
            version: "1.2.3",
          },
          { score: 0.1, slug: "../evil", displayName: "bad slug, dropped" },
        ],
      });
    }
    const slug = url.searchParams.get("slug");
    if (url.pathname === "/api/v1/download" && slug === "gifgrep") {
      // ClawHub zips hold the skill's folder; here inside one top folder, as some do.
      const zip = zipSync({
        "gifgrep/SKILL.md": skill("gifgrep"),
        "gifgrep/notes.md": new Uint8Array(3),
      });
      return new Response(zip);
    }
    if (url.pathname === "/api/v1/download" && slug === "climber") {
      return new Response(zipSync({ "../../SKILL.md": skill("climber") }));
    }
    return new Response("not found", { status: 404 });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    asked,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("clawhubadapter searches a configured ClawHub and installs, lists and removes skills", async () => {
  await using hub = startFakeClawHub();
  await using kernel = createTestKernel();
  const dir = await Deno.makeTempDir();
  try {
    const library = new SkillLibrary();
    const skills = new HomeSkills({ dir, library, logger: kernel.logger, clock: systemClock });
    const installer = createSkillInstaller({
      skills,
      sources: {
        npmRegistry: () => "http://127.0.0.1:9",
        clawhubDownloadUrl: () => `${hub.url}/api/v1/download`,
      },
    });
    const started = await startPlugin(
      createClawhubAdapterPlugin({
        installer,
        skills,
        searchUrl: () => `${hub.url}/api/v1/search`,
      }),
      { agent: kernel.agent, config: kernel.config.registry, logger: kernel.logger },
    );
    const call = (name: string, args: Record<string, unknown> = {}) => callTool(kernel, name, args);

    const found = await call("clawhubadapter_plugin_search", { query: "gif", limit: 5 });
    assert.equal(found.content, "- gifgrep@1.2.3: GifGrep — Find GIFs");
    assert.equal(hub.asked[0], "/api/v1/search?q=gif&limit=5");

    const installed = await call("clawhubadapter_plugin_install", { source: "gifgrep@1.2.3" });
    assert.equal(
      installed.content,
      'Installed skill "gifgrep" (clawhub:gifgrep@1.2.3): The gifgrep skill',
    );
    assert.equal(hub.asked[1], "/api/v1/download?slug=gifgrep&version=1.2.3");
    assert.equal(library.get("gifgrep")?.files?.join(), "notes.md");
    assert.match(library.get("gifgrep")!.integrity!, /^sha256-[0-9a-f]{64}$/);
    assert.equal(
      (await call("clawhubadapter_plugin_list")).content,
      "- gifgrep (clawhub:gifgrep@1.2.3): The gifgrep skill",
    );

    const climber = await call("clawhubadapter_plugin_install", { source: "climber" });
    assert.equal(climber.isError, true);
    assert.match(climber.content, /path traversal/);
    const missing = await call("clawhubadapter_plugin_install", { source: "nothing" });
    assert.match(missing.content, /Cannot fetch ClawHub skill "nothing" .*: not found/);
    const bad = await call("clawhubadapter_plugin_install", { source: "../x" });
    assert.match(bad.content, /Invalid skill name/);

    assert.equal(
      (await call("clawhubadapter_plugin_uninstall", { name: "gifgrep" })).content,
      'Removed skill "gifgrep"',
    );
    assert.equal((await call("clawhubadapter_plugin_list")).content, "No skills installed");
    const again = await call("clawhubadapter_plugin_uninstall", { name: "gifgrep" });
    assert.equal(again.isError, true);
    await started.stop();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
