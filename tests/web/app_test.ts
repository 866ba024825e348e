import assert from "node:assert/strict";
import type { Reply } from "../../core/mod.ts";
import { createApp } from "../../web/mod.ts";

const TOKEN = "0123456789abcdef0123456789abcdef";

function app() {
  const chats: { text: string; channel: string }[] = [];
  const instance = createApp({
    token: TOKEN,
    status: () => ({ ok: true, kernel: { state: "idle" } }),
    chat: (text, channel, onReply) => {
      chats.push({ text, channel });
      queueMicrotask(() =>
        onReply({ inputId: "i1", channel, text: `echo ${text}`, status: "ok" } satisfies Reply)
      );
      return { accepted: true, inputId: "i1" };
    },
  });
  return { app: instance, chats };
}

const bearer = { authorization: `Bearer ${TOKEN}` };

Deno.test("web app serves /healthz without auth and refuses /api without a token", async () => {
  const { app: a } = app();
  assert.deepEqual(await (await a.request("/healthz")).json(), { ok: true });
  const denied = await a.request("/api/v1/status");
  assert.equal(denied.status, 401);
  assert.deepEqual(await denied.json(), {
    error: { code: "unauthorized", message: "Missing or bad token" },
  });
  assert.equal(
    (await a.request("/api/v1/status", { headers: { authorization: "Bearer x" } })).status,
    401,
  );
  const ok = await a.request("/api/v1/status", { headers: bearer });
  assert.deepEqual(await ok.json(), { ok: true, kernel: { state: "idle" } });
});

Deno.test("web app logs in through /?token= with an HttpOnly cookie", async () => {
  const { app: a } = app();
  assert.equal((await a.request("/?token=wrong")).status, 401);
  const login = await a.request(`/?token=${TOKEN}`);
  assert.equal(login.status, 302);
  const cookie = login.headers.get("set-cookie") ?? "";
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Strict/);
  const status = await a.request("/api/v1/status", {
    headers: { cookie: cookie.split(";")[0]! },
  });
  assert.equal(status.status, 200);
  const page = await a.request("/");
  assert.match(await page.text(), /<script type="module" src="\/assets\/app.js">/);
  const js = await a.request("/assets/app.js");
  assert.match(js.headers.get("content-type") ?? "", /javascript/);
  assert.match(await js.text(), /api\/v1\/chat/);
});

Deno.test("web app chat answers with the reply when asked to wait, else 202", async () => {
  const { app: a, chats } = app();
  const post = (query: string, body: unknown, headers: Record<string, string> = bearer) =>
    a.request(`/api/v1/chat${query}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const waited = await post("?wait=1", { text: "hello" });
  assert.deepEqual(await waited.json(), { turnId: "i1", status: "ok", text: "echo hello" });
  const queued = await post("", { text: "later", channel: "kitchen" });
  assert.equal(queued.status, 202);
  assert.deepEqual(chats, [{ text: "hello", channel: "web" }, {
    text: "later",
    channel: "kitchen",
  }]);
  const bad = await post("", { text: "" });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error.code, "bad_request");
});

Deno.test("web app refuses cookie-authenticated writes from another origin", async () => {
  const { app: a, chats } = app();
  const cookie = `homeagent_token=${TOKEN}`;
  const request = (origin: string) =>
    a.request("http://127.0.0.1:7800/api/v1/chat", {
      method: "POST",
      headers: { cookie, origin, host: "127.0.0.1:7800", "content-type": "application/json" },
      body: JSON.stringify({ text: "x" }),
    });
  assert.equal((await request("http://evil.example")).status, 403);
  assert.equal((await request("http://127.0.0.1:7800")).status, 202);
  assert.equal(chats.length, 1);
});
