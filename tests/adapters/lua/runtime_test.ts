import assert from "node:assert/strict";
import { join } from "node:path";
import {
  bundledAdapters,
  createProviderFactory,
  installBundledAdapters,
  LuaAdapterRuntime,
  systemClock,
} from "../../../adapters/mod.ts";
import { silentLogger } from "../../../core/ports.ts";
import { MemoryLogger } from "../../fakes/logger.ts";
import type { ChatRequest } from "../../../core/llm/provider.ts";
import { ProviderManager } from "../../../core/llm/manager.ts";
import { reply, startFakeOpenAI } from "../../fixtures/fake_llm.ts";
import { collect, lastOf, sourceAt, textOf } from "../_support.ts";
// A full script of the old kind (all five functions its own), as a user's copy may be.
import openai from "../../fixtures/lua/openai_full.lua" with { type: "text" };

const hello: ChatRequest = { messages: [{ role: "user", content: "Hi" }] };

Deno.test("Lua adapter stuck in a loop is cut by its budget and fails as the source's error", async () => {
  await using server = startFakeOpenAI();
  server.enqueue(reply.text("Hello"));
  const loopy = openai.replace(
    "function transform_stream_chunk(line, state)",
    "function transform_stream_chunk(line, state)\n  while true do pcall(function() while true do end end) end",
  );
  const runtime = new LuaAdapterRuntime({
    logger: silentLogger,
    bundled: new Map([["loopy", loopy]]),
    instructionLimit: 200_000,
  });
  const provider = runtime.builder("loopy")(sourceAt(server.url, { adapter: "loopy" }), {});
  const started = performance.now();
  const last = lastOf(await collect(provider.stream(hello)));
  assert.ok(performance.now() - started < 2000);
  assert.equal(last.type, "error");
  if (last.type === "error") {
    assert.equal(last.error.kind, "bad_request");
    assert.match(
      last.error.message,
      /Lua adapter "loopy" failed in transform_stream_chunk: instruction limit of 200000 exceeded at loopy\.lua:\d+/,
    );
  }
});

Deno.test("Lua adapter that fails mid-stream names its line, resets the partial text and falls back", async () => {
  await using a = startFakeOpenAI({ fallback: reply.text("Partial from a then more") });
  await using b = startFakeOpenAI({ fallback: reply.text("Full answer from b") });
  const broken = openai.replace(
    "function transform_stream_chunk(line, state)\n  return line",
    "function transform_stream_chunk(line, state)\n" +
      '  if string.find(line, "more", 1, true) then local t = nil; return t.x end\n  return line',
  );
  const runtime = new LuaAdapterRuntime({
    logger: silentLogger,
    bundled: new Map([["broken", broken]]),
  });
  const manager = new ProviderManager({
    clock: systemClock,
    logger: silentLogger,
    sources: () => [
      sourceAt(a.url, { name: "a", adapter: "broken" }),
      sourceAt(b.url, { name: "b", adapter: "openai" }),
    ],
    factory: createProviderFactory({
      clock: systemClock,
      logger: silentLogger,
      adapters: runtime.adapters(),
    }),
    retryDelayMs: 0,
  });
  const marks: string[] = [];
  let fallback = "";
  const result = await manager.call(hello, {
    listener: {
      onReset: (source) => marks.push(`reset ${source}`),
      onFallback: (from, to, error) => {
        marks.push(`fallback ${from} -> ${to} ${error.kind}`);
        fallback = error.message;
      },
    },
  });
  assert.equal(result.source, "b");
  assert.equal(result.response.text, "Full answer from b");
  assert.deepEqual(marks, ["reset a", "fallback a -> b bad_request"]);
  assert.equal(a.requests.length, 1, "a script error is not retried");
  const line = broken.split("\n").findIndex((l) => l.includes("t.x")) + 1;
  assert.match(
    fallback,
    new RegExp(`Lua adapter "broken" failed in transform_stream_chunk: broken\\.lua:${line}:`),
  );
});

Deno.test("Lua adapter that does not load fails as a source, naming the script line", async () => {
  await using server = startFakeOpenAI();
  const runtime = new LuaAdapterRuntime({
    logger: silentLogger,
    bundled: new Map([["bad", 'name = "bad"\nlocal x = os.getenv("HOME")']]),
  });
  const provider = runtime.builder("bad")(sourceAt(server.url, { adapter: "bad" }), {});
  const last = lastOf(await collect(provider.stream(hello)));
  assert.ok(last.type === "error");
  assert.match(last.error.message, /Lua adapter "bad" failed in load: bad\.lua:2: .*global 'os'/);
  assert.equal(server.requests.length, 0);
});

Deno.test("A user-edited adapter in <home>/adapters wins and is reloaded when it changes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await using server = startFakeOpenAI({ fallback: reply.text("ok") });
    const written = await installBundledAdapters(dir, bundledAdapters, silentLogger);
    assert.equal(written.length, 8);
    const left = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => !n.endsWith(".lua"));
    assert.deepEqual(left, [".bundled.json"], "each copy is renamed into place, none left behind");
    const runtime = new LuaAdapterRuntime({ logger: silentLogger, dir });
    const factory = createProviderFactory({
      clock: systemClock,
      logger: silentLogger,
      adapters: runtime.adapters(),
      resolve: (name) => runtime.resolve(name),
    });
    const provider = factory(sourceAt(server.url, { adapter: "lua:openai", apiKey: "k" }));
    assert.equal(lastOf(await collect(provider.stream(hello))).type, "done");
    assert.equal(server.requests[0]!.headers["x-edited"], undefined);
    const path = join(dir, "openai.lua");
    const edited = openai.replace(
      'return { authorization = "Bearer " .. config.api_key }',
      'return { authorization = "Bearer " .. config.api_key, ["x-edited"] = "yes" }',
    );
    await Deno.writeTextFile(path, edited);
    assert.equal(lastOf(await collect(provider.stream(hello))).type, "done");
    assert.equal(server.requests[1]!.headers["x-edited"], "yes");
    // A new script dropped in after start is found by name.
    await Deno.writeTextFile(join(dir, "mine.lua"), edited);
    const mine = factory(sourceAt(server.url, { adapter: "mine", apiKey: "k" }));
    assert.equal(lastOf(await collect(mine.stream(hello))).type, "done");
    // An edited copy survives the next start; an untouched one is upgraded.
    const upgraded = new Map(bundledAdapters).set("openai", openai + "\n-- v2\n")
      .set("groq", bundledAdapters.get("groq")! + "\n-- v2\n");
    assert.deepEqual(await installBundledAdapters(dir, upgraded, silentLogger), ["groq"]);
    assert.equal(await Deno.readTextFile(path), edited);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("A user's adapter states only what differs from the prelude's OpenAI shape", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await using server = startFakeOpenAI({ fallback: reply.text("quiet words") });
    await Deno.writeTextFile(
      join(dir, "loud.lua"),
      `name = "loud"
function headers(config)
  local h = openai.headers(config)
  h["x-loud"] = "1"
  return h
end
function transform_stream_chunk(line, state)
  return openai.rewrite(line, '"content"', function(chunk)
    local delta = chunk.choices[1].delta
    if type(delta.content) == "string" then delta.content = string.upper(delta.content) end
  end)
end`,
    );
    const runtime = new LuaAdapterRuntime({ logger: silentLogger, dir });
    const build = runtime.builder("loud");
    const events = await collect(build(sourceAt(server.url, { apiKey: "k" }), {}).stream(hello));
    assert.equal(lastOf(events).type, "done");
    assert.equal(textOf(events), "QUIET WORDS");
    assert.equal(server.requests[0]!.path, "/v1/chat/completions");
    assert.equal(server.requests[0]!.headers.authorization, "Bearer k");
    assert.equal(server.requests[0]!.headers["x-loud"], "1");
    assert.equal(server.requests[0]!.body.model, "gpt-4o", "transform_request passes it through");
    // Without a key the default sends no Authorization header, as the native client does.
    assert.equal((await build(sourceAt(server.url), {}).chat(hello)).text, "quiet words");
    assert.equal(server.requests[1]!.headers.authorization, undefined);
    assert.equal(server.requests[1]!.headers["x-loud"], "1");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("installBundledAdapters reads a broken .bundled.json as empty, warns, and keeps every copy", async () => {
  // `null` in the record made every start fail with "Cannot set properties of null".
  for (const record of ["null", '"x"', "[1", '{"openai": 5}']) {
    const dir = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(join(dir, ".bundled.json"), record);
      await Deno.writeTextFile(join(dir, "openai.lua"), "-- my own");
      const logger = new MemoryLogger();
      const written = await installBundledAdapters(dir, bundledAdapters, logger);
      assert.equal(written.length, 7, record);
      assert.equal(await Deno.readTextFile(join(dir, "openai.lua")), "-- my own");
      assert.equal(
        logger.find("Unreadable record of the bundled Lua adapters; keeping every copy as edited")
          .length,
        1,
      );
      const kept = JSON.parse(await Deno.readTextFile(join(dir, ".bundled.json")));
      assert.equal(kept.openai, undefined, "the user's copy is not recorded as ours");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});
