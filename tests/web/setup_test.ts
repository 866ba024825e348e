/**
 * The setup routes over the real parts: the adapters' probe against a fake OpenAI server, the
 * config registry the daemon reads its sources from, persona.md, and `memory model install`
 * from a hub on a loopback server, its progress streamed as SSE.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../core/mod.ts";
import { createProviderFactory, createSourceProbe, systemClock } from "../../adapters/mod.ts";
import {
  type CatalogModel,
  homePaths,
  modelSetup,
  personaFile,
  registerMemoryDefaults,
} from "../../memory/mod.ts";
import { createApp, registrySettingsPort, type WebDeps } from "../../web/mod.ts";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { TINY_MODEL, TINY_TOKENIZER, tinyCatalogModel } from "../fixtures/tiny_onnx.ts";
import { openTestRegistry } from "../fakes/config.ts";
import { bearer, fakeWeb } from "./_deps.ts";

/** An app over a fresh home: real registry, probe, persona file and model installer. */
async function setupApp(catalog: CatalogModel[] = []) {
  const home = await Deno.makeTempDir({ prefix: "homeagent-setup-" });
  const paths = homePaths(home);
  const config = openTestRegistry();
  registerMemoryDefaults(config.registry);
  const factory = createProviderFactory({ clock: systemClock, logger: silentLogger });
  const probe = createSourceProbe({ factory });
  const deps: WebDeps = {
    ...fakeWeb().deps,
    settings: registrySettingsPort(config.registry),
    llm: {
      sources: () =>
        config.registry.llmSources().map((s) => ({ ...s, state: "ok", calls: 0, failures: 0 })),
      usage: () => [],
    },
    setup: {
      models: probe.models,
      test: probe.test,
      persona: personaFile(paths.persona),
      memoryModel: modelSetup({
        paths,
        config: config.registry,
        clock: systemClock,
        logger: silentLogger,
      }, {
        catalog,
      }),
    },
  };
  const app = createApp(deps);
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await app.request(path, {
      method,
      headers: { ...bearer, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json(), response };
  };
  return {
    app,
    call,
    registry: config.registry,
    paths,
    async [Symbol.asyncDispose]() {
      config[Symbol.dispose]();
      await Deno.remove(home, { recursive: true });
    },
  };
}

Deno.test("Setup: a wrong key shows the provider's 401, a right one lists models, tests and saves", async () => {
  await using llm = startFakeOpenAI({ models: ["gpt-4o-mini", "gpt-4o"], apiKey: "sk-right" });
  await using s = await setupApp();
  const first = await s.call("GET", "/api/v1/setup");
  assert.equal(first.body.needed, true);
  assert.match(first.body.persona, /You are HomeAgent/);

  const draft = { adapter: "openai", baseUrl: llm.url, apiKey: "sk-wrong-1234" };
  const wrong = await s.call("POST", "/api/v1/setup/models", draft);
  assert.equal(wrong.status, 200);
  assert.equal(wrong.body.ok, false);
  assert.equal(wrong.body.error.status, 401);
  assert.match(wrong.body.error.message, /answered 401: Incorrect API key provided: sk-\*\*\*1234/);

  const right = { ...draft, apiKey: "sk-right" };
  const listed = await s.call("POST", "/api/v1/setup/models", right);
  assert.deepEqual(listed.body, { ok: true, models: ["gpt-4o", "gpt-4o-mini"] });

  llm.enqueue(reply.text("OK"));
  const tested = await s.call("POST", "/api/v1/setup/test", { ...right, model: "gpt-4o-mini" });
  assert.equal(tested.body.ok, true);
  assert.equal(tested.body.text, "OK");
  assert.equal(llm.requests.at(-1)!.headers.authorization, "Bearer sk-right");

  const saved = await s.call("POST", "/api/v1/setup/source", { ...right, model: "gpt-4o-mini" });
  assert.equal(saved.status, 201);
  const [source, ...others] = s.registry.llmSources();
  assert.deepEqual(others, []);
  assert.equal(source!.name, "main");
  assert.equal(source!.adapter, "openai");
  assert.equal(source!.baseUrl, llm.url);
  assert.equal(source!.apiKey, "sk-right");
  assert.equal(source!.model, "gpt-4o-mini");
  assert.equal((await s.call("GET", "/api/v1/setup")).body.needed, false);

  // Saved again without a key: the stored one stays.
  await s.call("POST", "/api/v1/setup/source", { ...draft, apiKey: "", model: "gpt-4o" });
  assert.equal(s.registry.llmSources()[0]!.apiKey, "sk-right");
  assert.equal(s.registry.llmSources()[0]!.model, "gpt-4o");
});

Deno.test("Setup: bad drafts are refused naming the field, and nothing is saved", async () => {
  await using s = await setupApp();
  const cases: [unknown, RegExp][] = [
    [{ adapter: "openai", baseUrl: "ftp://x" }, /baseUrl: expected an http/],
    [{ adapter: "../x", baseUrl: "http://127.0.0.1:1" }, /adapter: expected an adapter/],
    [{ name: "env", adapter: "openai", baseUrl: "http://127.0.0.1:1" }, /name: "env"/],
  ];
  for (const [body, message] of cases) {
    const answer = await s.call("POST", "/api/v1/setup/models", body);
    assert.equal(answer.status, 400);
    assert.match(answer.body.error.message, message);
  }
  const noModel = await s.call("POST", "/api/v1/setup/source", {
    adapter: "openai",
    baseUrl: "http://127.0.0.1:1/v1",
  });
  assert.equal(noModel.status, 400);
  assert.match(noModel.body.error.message, /model: choose a model/);
  assert.deepEqual(s.registry.allLlmSources(), []);
  const unreachable = await s.call("POST", "/api/v1/setup/test", {
    adapter: "openai",
    baseUrl: "http://127.0.0.1:1/v1",
    model: "m",
  });
  assert.equal(unreachable.body.ok, false);
  assert.equal(unreachable.body.error.kind, "network");
  assert.match(unreachable.body.error.message, /could not be reached/);
});

Deno.test("Setup: the persona is saved to persona.md and read back", async () => {
  await using s = await setupApp();
  const saved = await s.call("PUT", "/api/v1/setup/persona", { text: "# Persona\n\nBe brief." });
  assert.equal(saved.body.persona, "# Persona\n\nBe brief.\n");
  assert.equal(await Deno.readTextFile(s.paths.persona), "# Persona\n\nBe brief.\n");
  assert.equal((await s.call("PUT", "/api/v1/setup/persona", { text: "  " })).status, 400);
});

/** The SSE events of a response body, in order. */
async function sseEvents(response: Response): Promise<{ event: string; data: unknown }[]> {
  const text = await response.text();
  return text.split("\n\n").filter((frame) => frame.trim() !== "").map((frame) => {
    const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "";
    const data = /^data: (.*)$/m.exec(frame)?.[1] ?? "null";
    return { event, data: JSON.parse(data) };
  });
}

Deno.test("Setup: the memory model installs from its hub with SSE progress and becomes the space", async () => {
  const hub = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    const body = path.endsWith(".onnx") ? TINY_MODEL : path.endsWith(".json") ? TINY_TOKENIZER : 0;
    return body === 0
      ? new Response("no", { status: 404 })
      : new Response(body as Uint8Array<ArrayBuffer>);
  });
  try {
    await using s = await setupApp([
      tinyCatalogModel("tiny-hub", `http://127.0.0.1:${hub.addr.port}/tiny`),
    ]);
    const before = await s.call("GET", "/api/v1/memory/model");
    assert.deepEqual(before.body.installed, []);
    assert.equal(before.body.available[0].name, "tiny-hub");

    const response = await s.app.request("/api/v1/memory/model/install", {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({ name: "tiny-hub" }),
    });
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const events = await sseEvents(response);
    const phases = events.map((e) => `${e.event}:${(e.data as { phase?: string }).phase ?? ""}`);
    assert.ok(phases.includes("progress:download"), phases.join(" "));
    assert.deepEqual(phases.slice(-3), ["progress:probe", "progress:done", "done:"]);
    const done = events.at(-1)!.data as { installed: string; restartNeeded: boolean };
    assert.equal(done.installed, "tiny-hub");
    assert.equal(done.restartNeeded, true);
    const after = await s.call("GET", "/api/v1/memory/model");
    assert.equal(after.body.space, "onnx (tiny-hub)");
    assert.equal(after.body.installed[0].active, true);

    const unknown = await s.app.request("/api/v1/memory/model/install", {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({ name: "nope" }),
    });
    const [failed] = await sseEvents(unknown);
    assert.equal(failed!.event, "error");
    assert.match((failed!.data as { message: string }).message, /Unknown model "nope"/);
  } finally {
    await hub.shutdown();
  }
});
