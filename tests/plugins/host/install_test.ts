/** Installed plugin folders: interrupted installs are finished or undone, deletes stay inside. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { recoverInstalls, removeInstalled } from "../../../plugins/mod.ts";
import { MemoryLogger } from "../../fakes/logger.ts";
import { copyFixture, createHarness, TRAVERSAL_NAMES } from "./_support.ts";

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

Deno.test("recoverInstalls removes staging folders and puts back or finishes a replaced version", async () => {
  const root = await Deno.makeTempDir();
  try {
    // Killed while writing: only a staging folder.
    await Deno.mkdir(join(root, ".install-alpha-1234abcd/sub"), { recursive: true });
    // Killed after the old version was set aside, before the new one was renamed in.
    await Deno.mkdir(join(root, ".replaced-beta-1234abcd/data"), { recursive: true });
    await Deno.writeTextFile(join(root, ".replaced-beta-1234abcd/data/keep.txt"), "beta data");
    // Killed after the new version was in place, before the old data/ moved over.
    await Deno.mkdir(join(root, "gamma"));
    await Deno.mkdir(join(root, ".replaced-gamma-1234abcd/data"), { recursive: true });
    await Deno.writeTextFile(join(root, ".replaced-gamma-1234abcd/data/keep.txt"), "gamma data");
    const logger = new MemoryLogger();
    await recoverInstalls(root, logger);
    const left = (await Array.fromAsync(Deno.readDir(root))).map((e) => e.name).sort();
    assert.deepEqual(left, ["beta", "gamma"]);
    assert.equal(await Deno.readTextFile(join(root, "beta/data/keep.txt")), "beta data");
    assert.equal(await Deno.readTextFile(join(root, "gamma/data/keep.txt")), "gamma data");
    assert.equal(logger.find("Cleaned up after an interrupted plugin install").length, 3);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("PluginRegistry.load cleans what a killed install left before loading", async () => {
  await using h = await createHarness([], { load: false });
  await copyFixture(h.pluginsDir, "echo", ".install-echo-0badf00d");
  await h.registry.load();
  assert.equal(await exists(join(h.pluginsDir, ".install-echo-0badf00d")), false);
  assert.ok(!h.registry.list().some((p) => p.name.startsWith(".")));
});

Deno.test("removeInstalled refuses names that are paths and deletes nothing", async () => {
  const top = await Deno.makeTempDir();
  const root = join(top, "home", "plugins");
  await Deno.mkdir(join(root, "echo"), { recursive: true });
  await Deno.writeTextFile(join(top, "precious.txt"), "keep me");
  try {
    for (const name of TRAVERSAL_NAMES) {
      await assert.rejects(
        removeInstalled(root, name),
        /Invalid plugin name/,
        JSON.stringify(name),
      );
    }
    assert.equal(await Deno.readTextFile(join(top, "precious.txt")), "keep me");
    assert.ok(await exists(join(root, "echo")));
    await assert.rejects(removeInstalled(root, "ghost"), /No plugin named "ghost" is installed/);
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});

Deno.test("removeInstalled removes a symlinked plugin folder as a link, never what it points to", async () => {
  const top = await Deno.makeTempDir();
  const root = join(top, "plugins");
  await Deno.mkdir(join(top, "elsewhere"), { recursive: true });
  await Deno.writeTextFile(join(top, "elsewhere", "precious.txt"), "keep me");
  await Deno.mkdir(root);
  await Deno.symlink(join(top, "elsewhere"), join(root, "linked"));
  try {
    await removeInstalled(root, "linked");
    assert.equal(await exists(join(root, "linked")), false);
    assert.equal(await Deno.readTextFile(join(top, "elsewhere", "precious.txt")), "keep me");
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});

Deno.test("PluginRegistry refuses path-like names on every action", async () => {
  await using h = await createHarness([]);
  for (const name of TRAVERSAL_NAMES) {
    for (const act of ["uninstall", "reload", "enable", "disable"] as const) {
      await assert.rejects(h.registry[act](name), /Invalid plugin name/, `${act} ${name}`);
    }
  }
  assert.ok(await exists(h.pluginsDir));
});
