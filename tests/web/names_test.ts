/**
 * Web routes that take a name refuse path-like names before any port (and so the disk) sees
 * them; the .hmap upload shows what a package asks for and installs only what was confirmed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createApp } from "../../web/mod.ts";
import { createHarness, TRAVERSAL_NAMES } from "../plugins/host/_support.ts";
import { bearer, fakeWeb } from "./_deps.ts";

/** 400 bad_name; "." and ".." segments are resolved by URL parsing first (a 404 elsewhere). */
async function assertRefused(res: Response, name: string, label = name) {
  const body = await res.json();
  if (res.status === 404 && (name === "." || name === "..")) return;
  assert.equal(res.status, 400, label);
  assert.equal(body.error.code, "bad_name", label);
}

const KNOWLEDGE_BAD = [
  "..",
  "../config.db",
  "a/../../x",
  "/etc/passwd",
  "a\\b",
  "x\0y",
  ".git",
  "",
];

Deno.test("Knowledge routes refuse path-like names with 400 before the knowledge base is asked", async () => {
  const asked: string[] = [];
  const app = createApp({
    ...fakeWeb().deps,
    knowledge: {
      list: () => Promise.resolve([]),
      get: (name) => (asked.push(`get ${name}`), Promise.resolve(undefined)),
      create: (name, content) => (asked.push(`create ${name}`), Promise.resolve({ name, content })),
    },
  });
  for (const name of KNOWLEDGE_BAD.filter((n) => n !== "")) {
    const got = await app.request(`/api/v1/knowledge/${encodeURIComponent(name)}`, {
      headers: bearer,
    });
    await assertRefused(got, name);
  }
  for (const name of KNOWLEDGE_BAD) {
    const made = await app.request("/api/v1/knowledge", {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({ name, content: "x" }),
    });
    assert.equal(made.status, 400, name);
    assert.match((await made.json()).error.message, /invalid knowledge name/, name);
  }
  assert.deepEqual(asked, []);
  const ok = await app.request(`/api/v1/knowledge/${encodeURIComponent("recipes/tea")}`, {
    headers: bearer,
  });
  assert.equal(ok.status, 404);
  assert.deepEqual(asked, ["get recipes/tea"]);
});

Deno.test("Plugin routes refuse path-like names with 400 before the registry is asked", async () => {
  const fake = fakeWeb();
  const asked: string[] = [];
  const plugins = fake.deps.plugins!;
  const app = createApp({
    ...fake.deps,
    plugins: {
      ...plugins,
      enable: (name) => (asked.push(name), plugins.enable(name)),
      disable: (name) => (asked.push(name), plugins.disable(name)),
      reload: (name) => (asked.push(name), plugins.reload(name)),
    },
  });
  for (const name of [...TRAVERSAL_NAMES.filter((n) => n !== ""), "a..b", "echo.old"]) {
    for (const action of ["enable", "disable", "reload"]) {
      const res = await app.request(`/api/v1/plugins/${encodeURIComponent(name)}/${action}`, {
        method: "POST",
        headers: bearer,
      });
      await assertRefused(res, name, `${action} ${name}`);
    }
  }
  assert.deepEqual(asked, []);
});

const HMAP = new URL("../fixtures/echo.hmap", import.meta.url).pathname;

Deno.test("The .hmap upload answers the permission review and installs only with the matching confirm", async () => {
  await using h = await createHarness([]);
  const registry = h.registry;
  const app = createApp({
    ...fakeWeb().deps,
    plugins: {
      list: () => registry.list(),
      enable: (n) => registry.enable(n),
      disable: (n) => registry.disable(n),
      reload: (n) => registry.reload(n),
      install: (bytes) => registry.install(bytes),
      review: (bytes) => registry.review(bytes),
    },
  });
  const bytes = await Deno.readFile(HMAP);
  const upload = (query = "") =>
    app.request(`/api/v1/plugins/upload${query}`, {
      method: "POST",
      headers: { ...bearer, "content-type": "application/octet-stream" },
      body: bytes,
    });
  const first = await upload();
  assert.equal(first.status, 200);
  const { installed, review } = await first.json();
  assert.equal(installed, false);
  assert.equal(review.name, "echo");
  assert.match(review.sha256, /^[0-9a-f]{64}$/);
  assert.match(review.lines.join("\n"), /no permissions beyond its own folder/);
  await assert.rejects(Deno.stat(join(h.pluginsDir, "echo")), Deno.errors.NotFound);
  const wrong = await upload(`?confirm=${"0".repeat(64)}`);
  assert.equal(wrong.status, 409);
  assert.equal((await wrong.json()).error.code, "review_conflict");
  await assert.rejects(Deno.stat(join(h.pluginsDir, "echo")), Deno.errors.NotFound);
  const confirmed = await upload(`?confirm=${review.sha256}`);
  assert.equal(confirmed.status, 201);
  assert.equal((await confirmed.json()).plugin.state, "running");
});
