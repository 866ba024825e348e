/** Plugins that run code outside the Deno sandbox need the owner's explicit say-so. */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  buildHmap,
  currentPlatform,
  defaultImportMap,
  supportsPlatform,
} from "../../../plugins/mod.ts";
import { copyFixture, createHarness, FIXTURES, type PluginHarness } from "./_support.ts";

/** A native entry (a shell script) that runs the echo fixture: a real protocol speaker. */
async function nativeEcho(h: PluginHarness): Promise<string> {
  const dir = await copyFixture(h.pluginsDir, "echo");
  const script = `#!/bin/sh\nexec "${Deno.execPath()}" run -A --no-config --quiet ` +
    `--import-map="${defaultImportMap()}" "${join(dir, "main.ts")}"\n`;
  await Deno.writeTextFile(join(dir, "plugin.sh"), script, { mode: 0o755 });
  const manifest = JSON.parse(await Deno.readTextFile(join(dir, "plugin.json")));
  manifest.entry = "plugin.sh";
  await Deno.writeTextFile(join(dir, "plugin.json"), JSON.stringify(manifest));
  return dir;
}

const warnings = (h: PluginHarness) =>
  h.kernel.logger.find("Plugin runs outside the sandbox (core.plugins.allow_native is true)");

Deno.test("A native entry is refused unless core.plugins.allow_native is true", async () => {
  await using h = await createHarness([], { load: false });
  await nativeEcho(h);
  await h.registry.load();
  const info = h.registry.info("echo");
  assert.equal(info.state, "failed");
  assert.match(
    info.error!,
    /its entry "plugin.sh" is a native program, which HomeAgent cannot sandbox; set core.plugins.allow_native to true/,
  );
  assert.equal(warnings(h).length, 0);
});

Deno.test("An allowed native plugin starts, and every start says it runs outside the sandbox", async () => {
  await using h = await createHarness([], { load: false });
  await nativeEcho(h);
  h.kernel.config.registry.set("core.plugins.allow_native", true);
  await h.registry.load();
  assert.equal(h.registry.info("echo").state, "running");
  assert.deepEqual(await h.call("echo_say", { text: "hi" }), { content: "echo: hi" });
  await h.registry.reload("echo");
  assert.equal(warnings(h).length, 2);
  assert.match(String(warnings(h)[0]!.fields.why), /native program/);
});

Deno.test("permissions.run counts as native; a write permission over plugin.json is refused", async () => {
  await using h = await createHarness([], { load: false });
  for (
    const [name, permissions] of [["runner", { run: ["helper.sh"] }], ["rewriter", {
      write: ["."],
    }]] as const
  ) {
    const dir = await copyFixture(h.pluginsDir, "echo", name);
    const manifest = JSON.parse(await Deno.readTextFile(join(dir, "plugin.json")));
    await Deno.writeTextFile(
      join(dir, "plugin.json"),
      JSON.stringify({ ...manifest, name, permissions }),
    );
  }
  await h.registry.load();
  assert.match(
    h.registry.info("runner").error!,
    /it starts programs \("helper.sh"\), which HomeAgent cannot sandbox/,
  );
  assert.match(
    h.registry.info("rewriter").error!,
    /write permission "." would cover its own plugin.json/,
  );
});

/** The echo fixture packed as a native .hmap: a shell entry (packed 0755) that runs main.ts. */
async function nativeEchoHmap(platforms?: string[]): Promise<Uint8Array> {
  const fixture = `${FIXTURES}echo`;
  const manifest = JSON.parse(await Deno.readTextFile(`${fixture}/plugin.json`));
  const script = `#!/bin/sh\nexec "${Deno.execPath()}" run -A --no-config --quiet ` +
    `--import-map="${defaultImportMap()}" "$(dirname "$0")/main.ts"\n`;
  return buildHmap({
    "plugin.json": JSON.stringify({ ...manifest, entry: "plugin.sh", platforms }),
    "plugin.sh": script,
    "main.ts": await Deno.readTextFile(`${fixture}/main.ts`),
    "README.md": "not executable",
  }, { executable: ["plugin.sh"] });
}

Deno.test(".hmap native entries keep their executable bit and run; other files stay 0644", async () => {
  await using h = await createHarness([], { load: false });
  h.kernel.config.registry.set("core.plugins.allow_native", true);
  await h.registry.load();
  const info = await h.registry.install(await nativeEchoHmap(["linux", "darwin"]));
  assert.equal(info.state, "running", info.error ?? "");
  const mode = async (file: string) =>
    (await Deno.stat(join(h.pluginsDir, "echo", file))).mode! & 0o777;
  assert.equal(await mode("plugin.sh"), 0o755);
  assert.equal(await mode("README.md"), 0o644);
  assert.deepEqual(await h.call("echo_say", { text: "hi" }), { content: "echo: hi" });
});

Deno.test("A manifest's platforms are checked against this machine, in npm's words or Deno's", async () => {
  assert.equal(currentPlatform({ os: "linux", arch: "x86_64" }), "linux-x64");
  assert.equal(currentPlatform({ os: "darwin", arch: "aarch64" }), "darwin-arm64");
  const here = { os: "linux", arch: "x86_64" };
  assert.equal(supportsPlatform({ platforms: ["linux-x64"] }, here), true);
  assert.equal(supportsPlatform({ platforms: ["linux-x86_64"] }, here), true);
  assert.equal(supportsPlatform({ platforms: ["linux"] }, here), true);
  assert.equal(supportsPlatform({ platforms: ["linux-arm64", "darwin"] }, here), false);
  await using h = await createHarness([], { load: false });
  h.kernel.config.registry.set("core.plugins.allow_native", true);
  await h.registry.load();
  const elsewhere = Deno.build.os === "darwin" ? "linux-x64" : "darwin-arm64";
  await assert.rejects(
    h.registry.install(await nativeEchoHmap([elsewhere, "windows-x64"])),
    new RegExp(
      `Plugin "echo" is built for ${elsewhere}, windows-x64, not for this machine \\(${currentPlatform()}\\)`,
    ),
  );
  await assert.rejects(Deno.stat(join(h.pluginsDir, "echo")), Deno.errors.NotFound);
  const mine = await h.registry.install(await nativeEchoHmap([currentPlatform()]));
  assert.equal(mine.state, "running", mine.error ?? "");
});
