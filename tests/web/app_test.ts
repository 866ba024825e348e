import assert from "node:assert/strict";
import type { KnowledgeBase } from "../../core/mod.ts";
import { bindRefusal, createApp, isLoopbackHost, knowledgeBasePort } from "../../web/mod.ts";
import { bearer, fakeWeb, TOKEN } from "./_deps.ts";

const json = (body: unknown, headers: Record<string, string> = bearer) => ({
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

Deno.test("web app serves /healthz without auth and refuses /api without a token", async () => {
  const app = createApp(fakeWeb().deps);
  assert.deepEqual(await (await app.request("/healthz")).json(), { ok: true });
  const denied = await app.request("/api/v1/status");
  assert.equal(denied.status, 401);
  assert.deepEqual(await denied.json(), {
    error: { code: "unauthorized", message: "Missing token" },
  });
  assert.equal((await app.request("/v1/models")).status, 401);
  const ok = await app.request("/api/v1/status", { headers: bearer });
  assert.deepEqual(await ok.json(), { ok: true, kernel: { state: "idle" } });
  const missing = await app.request("/api/v1/nothing", { headers: bearer });
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).error.code, "not_found");
});

Deno.test("web app logs in through /?token= and the login form with an HttpOnly cookie", async () => {
  const app = createApp(fakeWeb().deps);
  assert.equal((await app.request("/?token=wrong")).status, 401);
  const login = await app.request(`/?token=${TOKEN}`);
  // The page itself, logged in, instead of a redirect; its first script drops the token from
  // the address; the answer is never stored nor its address sent to another site.
  assert.equal(login.status, 200);
  const page = await login.text();
  assert.match(page, /<body data-session="ok">/);
  assert.ok(
    page.indexOf("history.replaceState") < page.indexOf("<link"),
    "the token leaves the address before anything is fetched",
  );
  assert.equal(login.headers.get("cache-control"), "no-store");
  assert.equal(login.headers.get("referrer-policy"), "same-origin");
  const cookie = login.headers.get("set-cookie") ?? "";
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Strict/);
  const status = await app.request("/api/v1/status", {
    headers: { cookie: cookie.split(";")[0]! },
  });
  assert.equal(status.status, 200);
  // The page carries its own script (web/build.ts).
  const script = (await (await app.request("/")).text()).match(
    /<script type="module">(.*?)<\/script>/s,
  );
  assert.match(script?.[1] ?? "", /api\/v1\/chat\/events/);

  const form = await app.request("/login", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `token=${TOKEN}`,
  });
  assert.equal(form.status, 200);
  assert.match(form.headers.get("set-cookie") ?? "", /homeagent_token=.*HttpOnly/);
  const bad = await app.request("/login", { method: "POST", ...json({ token: "nope" }, {}) });
  assert.equal(bad.status, 401);
});

Deno.test("web app refuses cookie-authenticated cross-origin writes", async () => {
  const fake = fakeWeb();
  const app = createApp(fake.deps);
  const cookie = { cookie: `homeagent_token=${TOKEN}`, host: "127.0.0.1:7800" };
  const evil = await app.request("/api/v1/chat", {
    method: "POST",
    ...json({ text: "hi" }, { ...cookie, origin: "https://evil.example" }),
  });
  assert.equal(evil.status, 403);
  assert.equal((await evil.json()).error.code, "forbidden");
  const site = await app.request("/api/v1/chat/stop", {
    method: "POST",
    headers: { ...cookie, "sec-fetch-site": "cross-site" },
  });
  assert.equal(site.status, 403);
  const same = await app.request("/api/v1/chat", {
    method: "POST",
    ...json({ text: "hi" }, { ...cookie, origin: "http://127.0.0.1:7800" }),
  });
  assert.equal(same.status, 202);
  // Bearer requests carry no ambient credential: Origin is not checked.
  const api = await app.request("/api/v1/chat", {
    method: "POST",
    ...json({ text: "hi" }, { ...bearer, origin: "https://elsewhere.example" }),
  });
  assert.equal(api.status, 202);
  assert.equal(fake.chats.length, 2);
});

Deno.test("web app chat answers with the reply when asked to wait, else 202; stop stops", async () => {
  const fake = fakeWeb();
  const app = createApp(fake.deps);
  const waited = await app.request("/api/v1/chat?wait=1", {
    method: "POST",
    ...json({ text: "hello" }),
  });
  assert.deepEqual(await waited.json(), { turnId: "i1", status: "ok", text: "echo hello" });
  const queued = await app.request("/api/v1/chat", {
    method: "POST",
    ...json({ text: "later", channel: "kitchen" }),
  });
  assert.equal(queued.status, 202);
  assert.deepEqual(fake.chats.map((c) => [c.text, c.channel, c.ephemeral]), [
    ["hello", "web", undefined],
    ["later", "kitchen", undefined],
  ]);
  const bad = await app.request("/api/v1/chat", { method: "POST", ...json({ text: "" }) });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error.code, "bad_request");
  const notJson = await app.request("/api/v1/chat", { method: "POST", headers: bearer, body: "{" });
  assert.deepEqual(await notJson.json(), {
    error: { code: "bad_request", message: "Body must be JSON" },
  });
  const stop = await app.request("/api/v1/chat/stop", { method: "POST", headers: bearer });
  assert.deepEqual(await stop.json(), { wasRunning: true });
  assert.equal(fake.stops, 1);
});

Deno.test("web app refuses bodies over the limit with 413", async () => {
  const app = createApp(fakeWeb().deps);
  const big = await app.request("/api/v1/chat", {
    method: "POST",
    ...json({ text: "x".repeat(1024 * 1024 + 10) }),
  });
  assert.equal(big.status, 413);
  assert.equal((await big.json()).error.code, "too_large");
});

Deno.test("web app settings list with types and refuse invalid values with the registry's message", async () => {
  const fake = fakeWeb();
  const app = createApp(fake.deps);
  const list = await (await app.request("/api/v1/settings", { headers: bearer })).json();
  assert.deepEqual(list.settings.map((s: { key: string; type: string }) => [s.key, s.type]), [
    ["core.agent.max_tool_turns", "number"],
    ["core.web.host", "string"],
  ]);
  const put = (key: string, body: unknown) =>
    app.request(`/api/v1/settings/${key}`, { method: "PUT", ...json(body) });
  const ok = await put("core.agent.max_tool_turns", { text: "12" });
  assert.equal((await ok.json()).setting.value, 12);
  const invalid = await put("core.agent.max_tool_turns", { value: 0 });
  assert.equal(invalid.status, 400);
  assert.deepEqual(await invalid.json(), {
    error: {
      code: "config_invalid",
      message: `Cannot set "core.agent.max_tool_turns": expected a number ≥ 1`,
    },
  });
  assert.equal((await put("core.nope", { value: 1 })).status, 400);
  assert.equal((await put("core.web.host", {})).status, 400);
  await put("core.agent.max_tool_turns", { unset: true });
  assert.equal(fake.settings.get("core.agent.max_tool_turns"), 8);
});

Deno.test("web app memory routes read the graph, edit and delete facts, list documents and context", async () => {
  const fake = fakeWeb();
  const app = createApp(fake.deps);
  const get = async (path: string) => await (await app.request(path, { headers: bearer })).json();
  const graph = await get("/api/v1/memory/graph?q=Alice");
  assert.deepEqual(graph.entities.map((e: { name: string }) => e.name), ["Alice", "Paris"]);
  assert.equal(graph.relations[0].type, "lives_in");
  const alice = await get("/api/v1/memory/entities/Alice");
  assert.equal(alice.relations[0].sentence, "Alice lives in Paris.");
  assert.equal((await app.request("/api/v1/memory/entities/Bob", { headers: bearer })).status, 404);
  const patched = await app.request("/api/v1/memory/relations/1", {
    method: "PATCH",
    ...json({ target: "Lyon" }),
  });
  assert.equal((await patched.json()).relation.target, "Lyon");
  assert.equal(
    (await app.request("/api/v1/memory/relations/1", {
      method: "PATCH",
      ...json({ confidence: 3 }),
    }))
      .status,
    400,
  );
  const gone = await app.request("/api/v1/memory/relations/9", {
    method: "DELETE",
    headers: bearer,
  });
  assert.equal(gone.status, 404);
  assert.equal((await gone.json()).error.code, "graph_not_found");
  await app.request("/api/v1/memory/relations/1", { method: "DELETE", headers: bearer });
  assert.equal(fake.relations[0]!.status, "deleted");
  assert.equal((await get("/api/v1/memory/graph")).relations.length, 0);
  assert.deepEqual(
    await (await app.request("/api/v1/memory/entities/Alice", {
      method: "DELETE",
      headers: bearer,
    }))
      .json(),
    { relations: 1 },
  );
  assert.equal((await get("/api/v1/memory/documents?q=tea")).documents[0].summary, "doc tea");
  assert.equal((await get("/api/v1/memory/context")).events[0].score, 0.5);
});

Deno.test("web app answers 501 for parts the daemon did not wire, and serves those it did", async () => {
  const fake = fakeWeb();
  const app = createApp({ ...fake.deps, knowledge: undefined });
  const none = await app.request("/api/v1/knowledge", { headers: bearer });
  assert.equal(none.status, 501);
  assert.deepEqual(await none.json(), {
    error: {
      code: "not_available",
      message: "The knowledge base is not available in this build of the daemon",
    },
  });
  const entries = new Map<string, string>();
  const withKb = createApp({
    ...fake.deps,
    knowledge: {
      list: () => Promise.resolve([...entries.keys()].map((name) => ({ name }))),
      get: (name) =>
        Promise.resolve(entries.has(name) ? { name, content: entries.get(name) } : undefined),
      create: (name, content) => (entries.set(name, content), Promise.resolve({ name, content })),
    },
  });
  const made = await withKb.request("/api/v1/knowledge", {
    method: "POST",
    ...json({ name: "tea", content: "# Tea\nGreen." }),
  });
  assert.equal(made.status, 201);
  assert.equal(
    (await withKb.request("/api/v1/knowledge", {
      method: "POST",
      ...json({ name: "../x", content: "y" }),
    }))
      .status,
    400,
  );
  assert.deepEqual(
    (await (await withKb.request("/api/v1/knowledge", { headers: bearer })).json()).entries,
    [
      { name: "tea" },
    ],
  );
  assert.equal(
    (await (await withKb.request("/api/v1/knowledge/tea", { headers: bearer })).json()).entry
      .content,
    "# Tea\nGreen.",
  );
  assert.equal((await withKb.request("/api/v1/knowledge/nope", { headers: bearer })).status, 404);
});

Deno.test("web app plugin, LLM and resident routes", async () => {
  const fake = fakeWeb();
  const app = createApp(fake.deps);
  const post = (path: string, init: RequestInit = {}) =>
    app.request(path, { method: "POST", ...init, headers: { ...bearer, ...init.headers } });
  assert.equal(
    (await (await app.request("/api/v1/plugins", { headers: bearer })).json()).plugins[0].name,
    "timer",
  );
  assert.equal(
    (await (await post("/api/v1/plugins/timer/disable")).json()).plugin.state,
    "disabled",
  );
  assert.equal((await (await post("/api/v1/plugins/timer/reload")).json()).plugin.state, "running");
  const failed = await post("/api/v1/plugins/nope/disable");
  assert.equal(failed.status, 400);
  assert.equal((await failed.json()).error.code, "plugin_failed");
  assert.equal((await post("/api/v1/plugins/timer/explode")).status, 404);
  const upload = await post(`/api/v1/plugins/upload?confirm=${"f".repeat(64)}`, {
    headers: { "content-type": "application/octet-stream" },
    body: new Uint8Array([0x50, 0x4b, 3, 4]),
  });
  assert.equal(upload.status, 201);
  assert.deepEqual([...fake.installed[0]!], [0x50, 0x4b, 3, 4]);
  const llm = await (await app.request("/api/v1/llm", { headers: bearer })).json();
  assert.equal(llm.sources[0].name, "env");
  assert.equal(llm.usage[0].promptTokens, 10);
  assert.deepEqual(await (await app.request("/api/v1/agents", { headers: bearer })).json(), {
    residents: [],
  });
});

Deno.test("bindRefusal refuses a non-loopback address without a long token", () => {
  assert.ok(isLoopbackHost("127.0.0.1") && isLoopbackHost("::1") && isLoopbackHost("localhost"));
  assert.ok(!isLoopbackHost("0.0.0.0") && !isLoopbackHost("192.168.1.4"));
  assert.equal(bindRefusal("127.0.0.1", ""), undefined);
  assert.equal(bindRefusal("0.0.0.0", TOKEN), undefined);
  assert.match(bindRefusal("0.0.0.0", "short") ?? "", /Refusing to listen on "0.0.0.0"/);
  assert.match(bindRefusal("::", "") ?? "", /core.web.token/);
});

Deno.test("knowledgeBasePort serves the core KnowledgeBase with path names", async () => {
  const files = new Map<string, string>();
  const entry = (name: string) => ({
    name,
    category: name.split("/").slice(0, -1).join("/"),
    title: files.get(name)!.split("\n")[0]!.replace(/^# /, ""),
    size: files.get(name)!.length,
    updatedAt: 1,
  });
  const kb: KnowledgeBase = {
    search: () => Promise.resolve([]),
    create: (name, content) => (files.set(name, content), Promise.resolve(entry(name))),
    list: () => Promise.resolve([...files.keys()].map(entry)),
    read: (name) => Promise.resolve(files.get(name)!),
  };
  const app = createApp({ ...fakeWeb().deps, knowledge: knowledgeBasePort(kb) });
  const made = await app.request("/api/v1/knowledge", {
    method: "POST",
    ...json({ name: "recipes/tea", content: "# Green tea\n80 °C." }),
  });
  assert.equal((await made.json()).entry.title, "Green tea");
  const one = await app.request(`/api/v1/knowledge/${encodeURIComponent("recipes/tea")}`, {
    headers: bearer,
  });
  assert.equal((await one.json()).entry.content, "# Green tea\n80 °C.");
  // The name as POST made it, slashes and all (only %2F used to work).
  const plain = await app.request("/api/v1/knowledge/recipes/tea", { headers: bearer });
  assert.equal(plain.status, 200);
  assert.equal((await plain.json()).entry.name, "recipes/tea");
  assert.equal(
    (await app.request("/api/v1/knowledge/recipes/none", { headers: bearer })).status,
    404,
  );
  for (
    const bad of ["%2Fetc%2Fpasswd", "recipes%2F..%2F..%2Fsecret", "a%00b", "recipes%2F%2Ftea"]
  ) {
    const refused = await app.request(`/api/v1/knowledge/${bad}`, { headers: bearer });
    assert.equal(refused.status, 400, bad);
    assert.equal((await refused.json()).error.code, "bad_name");
  }
  // PUT replaces an entry's text (the page's editor), and refuses names as GET does.
  const edited = await app.request("/api/v1/knowledge/recipes/tea", {
    method: "PUT",
    ...json({ content: "# Green tea\n75 °C, two minutes." }),
  });
  assert.equal(edited.status, 200);
  assert.equal((await edited.json()).entry.title, "Green tea");
  assert.equal(files.get("recipes/tea"), "# Green tea\n75 °C, two minutes.");
  const sneaky = await app.request("/api/v1/knowledge/recipes%2F..%2Fx", {
    method: "PUT",
    ...json({ content: "x" }),
  });
  assert.equal(sneaky.status, 400);
  await sneaky.body?.cancel();
});
