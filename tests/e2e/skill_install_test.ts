/**
 * `homeagent plugin install npm:<package>` end to end: a loopback registry always, and the
 * real npm registry with real skill packages when it is reachable (skipped with one line when
 * not). The proof is the prompt: the daemon's next chat carries the skill in its index.
 */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { runMain, startServe } from "../fakes/daemon.ts";
import { buildTarGz, startFakeNpm } from "../fixtures/fake_npm.ts";

const REGISTRY = "https://registry.npmjs.org";
const online = await fetch(`${REGISTRY}/@tloncorp%2ftlon-skill`, {
  signal: AbortSignal.timeout(5000),
}).then(async (r) => (await r.body?.cancel(), r.ok), () => false);
if (!online) {
  // deno-lint-ignore no-console
  console.log(`skipped: the real-registry skill installs (${REGISTRY} is not reachable)`);
}

async function tempHome(): Promise<string & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-skill-e2e-" });
  return Object.assign(dir, {
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  }) as string & AsyncDisposable;
}

/** The system text of the last chat request the fake LLM saw. */
function systemText(llm: ReturnType<typeof startFakeOpenAI>): string {
  const messages = llm.requests.at(-1)!.body.messages;
  return messages.filter((m) => m.role === "system").map((m) => String(m.content)).join("\n");
}

/** Install `spec` through the running daemon of `home`, then chat once; returns the system text. */
async function installAndChat(home: string, spec: string, registry?: string): Promise<string> {
  await using llm = startFakeOpenAI({ fallback: () => reply.text("ok") });
  if (registry) {
    const set = await runMain([
      "config",
      "set",
      "core.plugins.npm_registry",
      registry,
      "--home",
      home,
    ]);
    assert.equal(set.code, 0, set.stderr);
  }
  await using _daemon = await startServe(home, {
    HOMEAGENT_LLM_BASE_URL: llm.url,
    HOMEAGENT_LLM_MODEL: "fake-model",
  });
  const installed = await runMain(["plugin", "install", spec, "--yes", "--home", home]);
  assert.equal(installed.code, 0, installed.stderr);
  assert.match(installed.stderr, /a skill is instructions the model reads/);
  const chat = await runMain(["chat", "--home", home, "hello"]);
  assert.equal(chat.code, 0, chat.stderr);
  return systemText(llm);
}

Deno.test("plugin install npm:<package> from a loopback registry: reviewed, installed live, indexed", async () => {
  await using npm = startFakeNpm();
  await npm.publish("@acme/tea-skill", [{
    version: "2.0.0",
    tarball: await buildTarGz([{
      path: "package/SKILL.md",
      data: "---\nname: tea\ndescription: Brew green tea\n---\n## 步骤\n80 度。\n",
    }]),
  }]);
  await using home = await tempHome();
  const system = await installAndChat(`${home}`, "npm:@acme/tea-skill", npm.url);
  assert.match(system, /\[Skills\][^]*\n- tea: Brew green tea/);
  const refused = await runMain(["plugin", "install", "npm:@acme/tea-skill", "--home", `${home}`], {
    stdin: "",
  });
  assert.equal(refused.code, 2, "no terminal, no --yes: refused");
});

Deno.test({
  name:
    "plugin install npm:@tloncorp/tlon-skill (the real registry) puts the tlon skill in the index",
  ignore: !online,
  async fn() {
    await using home = await tempHome();
    const system = await installAndChat(`${home}`, "npm:@tloncorp/tlon-skill");
    assert.match(system, /\n- tlon: Interact with Tlon\/Urbit API/);
    const record = JSON.parse(await Deno.readTextFile(`${home}/skills/tlon/.install.json`));
    assert.match(record.source, /^npm:@tloncorp\/tlon-skill@\d+\.\d+\.\d+/);
    assert.match(record.integrity, /^sha512-/);
    assert.ok((await Deno.stat(`${home}/skills/tlon/references/hooks.md`)).isFile);
  },
});

Deno.test({
  name:
    "Real skill packages with several skills, or one in a folder, install from npm without a daemon",
  ignore: !online,
  async fn() {
    await using home = await tempHome();
    const scrum = await runMain([
      "plugin",
      "install",
      "npm:@houseofwolvesllc/claude-scrum-skill@2.8.1",
      "--yes",
      "--home",
      `${home}`,
    ]);
    assert.equal(scrum.code, 0, scrum.stderr);
    const names = JSON.parse(scrum.stdout).map((s: { name: string }) => s.name);
    assert.ok(names.includes("project-cleanup") && names.includes("sprint-plan"), names.join());
    const architect = await runMain([
      "plugin",
      "install",
      "npm:@ckelsoe/claude-skill-prompt-architect@2.1.4",
      "--yes",
      "--home",
      `${home}`,
    ]);
    assert.equal(architect.code, 0, architect.stderr);
    assert.equal(JSON.parse(architect.stdout)[0].name, "prompt-architect");
  },
});
