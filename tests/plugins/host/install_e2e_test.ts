import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../../fixtures/fake_llm.ts";
import { CliClient } from "../../../plugins/mod.ts";
import { runMain, startServe } from "../../fakes/daemon.ts";

const HMAP = new URL("../../fixtures/echo.hmap", import.meta.url).pathname;

Deno.test("main.ts plugin install echo.hmap installs a plugin whose tool the model calls, without a restart", async () => {
  await using server = startFakeOpenAI({
    fallback: (request) => {
      const last = request.body.messages.at(-1)!;
      if (last.role === "tool") return reply.text(`Tool said: ${last.content}`);
      return reply.toolCalls([{ name: "echo_say", arguments: { text: "ping" } }]);
    },
  });
  const home = await Deno.makeTempDir({ prefix: "homeagent-plugin-e2e-" });
  try {
    const env = { HOMEAGENT_LLM_BASE_URL: server.url, HOMEAGENT_LLM_MODEL: "fake-model" };
    await using daemon = await startServe(home, env);

    const unconfirmed = await runMain(["plugin", "install", HMAP, "--home", home]);
    assert.equal(unconfirmed.code, 2, unconfirmed.stderr);
    assert.match(unconfirmed.stderr, /Plugin "echo" 1\.0\.0 \(subprocess, entry main\.ts/);
    assert.match(unconfirmed.stderr, /not a terminal; read what it asks for above and pass --yes/);
    await assert.rejects(Deno.stat(join(home, "plugins", "echo")), Deno.errors.NotFound);

    const install = await runMain(["plugin", "install", HMAP, "--yes", "--home", home]);
    assert.equal(install.code, 0, install.stderr);
    const installed = JSON.parse(install.stdout);
    assert.equal(installed.name, "echo");
    assert.equal(installed.state, "running");
    assert.match(installed.sha256, /^[0-9a-f]{64}$/);
    assert.ok(installed.tools.includes("echo_say"));
    assert.ok((await Deno.stat(join(home, "plugins", "echo", "plugin.json"))).isFile);

    const chat = await runMain(["chat", "--home", home, "say ping"]);
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stdout, /Tool said: echo: ping/);

    const status = JSON.parse((await runMain(["status", "--home", home])).stdout);
    const names = status.plugins.map((p: { name: string }) => p.name);
    assert.deepEqual(names.sort(), [
      "agentcli",
      "cfgmgr",
      "changes",
      "clawhubadapter",
      "cli",
      "cmd",
      "echo",
      "files",
      "healthcheck",
      "mcp",
      "pluginmgr",
      "skills",
      "timer",
    ]);

    const reload = await runMain(["plugin", "reload", "echo", "--home", home]);
    assert.equal(reload.code, 0, reload.stderr);
    assert.equal(JSON.parse(reload.stdout).state, "running");

    const disable = await runMain(["plugin", "disable", "echo", "--home", home]);
    assert.equal(JSON.parse(disable.stdout).state, "disabled");
    assert.deepEqual(JSON.parse(disable.stdout).tools, []);
    const enable = await runMain(["plugin", "enable", "echo", "--home", home]);
    assert.equal(JSON.parse(enable.stdout).state, "running");

    const uninstall = await runMain(["plugin", "uninstall", "echo", "--home", home]);
    assert.equal(uninstall.code, 0, uninstall.stderr);
    await assert.rejects(Deno.stat(join(home, "plugins", "echo")), Deno.errors.NotFound);
    const list = JSON.parse((await runMain(["plugin", "list", "--home", home])).stdout);
    assert.equal(list.some((p: { name: string }) => p.name === "echo"), false);

    const bad = await runMain(["plugin", "reload", "nope", "--home", home]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /No plugin named "nope"/);

    const stopped = await daemon.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("main.ts plugin install works without a daemon and the plugin starts with the next serve", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-plugin-offline-" });
  try {
    const install = await runMain(["plugin", "install", HMAP, "-y", "--home", home]);
    assert.equal(install.code, 0, install.stderr);
    const disable = await runMain(["plugin", "disable", "echo", "--home", home]);
    assert.equal(disable.code, 0, disable.stderr);
    const list = JSON.parse((await runMain(["plugin", "list", "--home", home])).stdout);
    assert.deepEqual(list, [{
      name: "echo",
      kind: "subprocess",
      version: "1.0.0",
      state: "disabled",
    }]);
    const reload = await runMain(["plugin", "reload", "echo", "--home", home]);
    assert.equal(reload.code, 1);
    assert.match(reload.stderr, /needs a running daemon/);
    await runMain(["plugin", "enable", "echo", "--home", home]);
    await using daemon = await startServe(home);
    const status = JSON.parse((await runMain(["status", "--home", home])).stdout);
    const echo = status.plugins.find((p: { name: string }) => p.name === "echo");
    assert.equal(echo.state, "running");
    await daemon.stop();
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

/** A home inside a parent folder holding something that must survive every refused name. */
async function nestedHome(): Promise<{ top: string; home: string } & AsyncDisposable> {
  const top = await Deno.makeTempDir({ prefix: "homeagent-names-" });
  const home = join(top, "home");
  await Deno.mkdir(join(home, "plugins"), { recursive: true });
  await Deno.writeTextFile(join(top, "precious.txt"), "the user's files");
  return { top, home, [Symbol.asyncDispose]: () => Deno.remove(top, { recursive: true }) };
}

const PATH_NAMES = ["../..", "..", "/", "/tmp", "plugins/../..", "."];

async function assertRefused(home: string, top: string) {
  const tries = [
    ...PATH_NAMES.map((name) => ["uninstall", name]),
    ...["enable", "disable", "reload"].map((action) => [action, "../.."]),
  ];
  for (const [action, name] of tries) {
    const result = await runMain(["plugin", action!, name!, "--home", home]);
    assert.equal(result.code, 2, `${action} ${name}: ${result.stderr}`);
    assert.match(result.stderr, /^error: Invalid plugin name ".*": /, `${action} ${name}`);
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
  }
  assert.equal(await Deno.readTextFile(join(top, "precious.txt")), "the user's files");
  assert.ok((await Deno.stat(join(home, "plugins"))).isDirectory);
}

Deno.test("main.ts plugin uninstall ../.. without a daemon is refused (exit 2) and deletes nothing", async () => {
  await using t = await nestedHome();
  await assertRefused(t.home, t.top);
});

Deno.test("main.ts plugin uninstall ../.. through a running daemon is refused and deletes nothing", async () => {
  await using t = await nestedHome();
  await using daemon = await startServe(t.home);
  await assertRefused(t.home, t.top);
  // The daemon's socket refuses the names itself, for clients other than ours.
  const client = await CliClient.connect({
    home: t.home,
    socket: daemon.socket,
    command: "homeagent",
  });
  try {
    for (const name of [...PATH_NAMES, "x\0y", ""]) {
      await client.send({ type: "plugin", action: "uninstall", name });
      await assert.rejects(client.expect("plugin"), /Invalid plugin name|needs a plugin name/);
    }
  } finally {
    client.close();
  }
  assert.equal(await Deno.readTextFile(join(t.top, "precious.txt")), "the user's files");
  assert.equal((await daemon.stop()).code, 0);
});
