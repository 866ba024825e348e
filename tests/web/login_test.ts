import assert from "node:assert/strict";
import { clientKey, createApp, LoginThrottle } from "../../web/mod.ts";
import { ManualClock } from "../fakes/clock.ts";
import { bearer, fakeWeb, TOKEN } from "./_deps.ts";

const from = (hostname: string, port = 40_000) => ({ remoteAddr: { hostname, port } });
const loopback = from("127.0.0.1");
const cookie = { cookie: `homeagent_token=${TOKEN}` };
/** What a browser sends for an `<img src="http://127.0.0.1:7800/?token=…">` on another site. */
const imgFromElsewhere = { "sec-fetch-site": "cross-site", "sec-fetch-dest": "image" };

Deno.test("login: cross-site token guesses are not judged and cannot lock the owner out", async () => {
  const app = createApp(fakeWeb().deps);
  for (let i = 0; i < 20; i++) {
    const img = await app.request(`/?token=guess${i}`, { headers: imgFromElsewhere }, loopback);
    assert.equal(img.status, 403);
    assert.equal(img.headers.get("set-cookie"), null);
  }
  // Older browsers without Sec-Fetch-Site still send Origin or Referer.
  const referred = await app.request(
    "/?token=guess",
    { headers: { referer: "https://evil.example/page" } },
    loopback,
  );
  assert.equal(referred.status, 403);
  const form = await app.request("/login", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: "https://evil.example",
    },
    body: `token=${TOKEN}`,
  }, loopback);
  assert.equal(form.status, 403, "a cross-site form cannot log in either");

  // The owner's Bearer token, cookie and login link all still work …
  assert.equal((await app.request("/api/v1/status", { headers: bearer }, loopback)).status, 200);
  assert.equal((await app.request("/api/v1/status", { headers: cookie }, loopback)).status, 200);
  const link = await app.request(`/?token=${TOKEN}`, {}, loopback);
  assert.equal(link.status, 200);
  assert.match(link.headers.get("set-cookie") ?? "", /homeagent_token=/);
  // … and nothing was counted: a typo is still just a wrong token.
  const typo = await app.request("/login", {
    method: "POST",
    headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
    body: JSON.stringify({ token: "typo" }),
  }, loopback);
  assert.equal(typo.status, 401);
});

Deno.test("login: a throttled client is refused for wrong tokens only; the right one always passes", async () => {
  const fake = fakeWeb();
  const app = createApp(fake.deps);
  const attacker = (port: number) => from("10.0.0.9", port);
  const login = (token: string, port: number) =>
    app.request("/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
    }, attacker(port));
  // A new port per connection: the port is not part of the key.
  for (let i = 0; i < 5; i++) assert.equal((await login(`bad${i}`, 40_000 + i)).status, 401);
  const blocked = await login("bad5", 41_000);
  assert.equal(blocked.status, 429);
  const body = await blocked.json();
  assert.equal(body.error.code, "too_many_attempts");
  assert.match(body.error.message, /right token still works/);
  assert.equal(blocked.headers.get("retry-after"), "600");
  const wrongBearer = await app.request("/api/v1/status", {
    headers: { authorization: "Bearer nope" },
  }, attacker(41_001));
  assert.equal(wrongBearer.status, 429);

  // The right token is never throttled, through any door.
  assert.equal((await login(TOKEN, 41_002)).status, 200);
  assert.equal((await app.request("/api/v1/status", { headers: bearer }, attacker(1))).status, 200);
  assert.equal((await app.request("/api/v1/status", { headers: cookie }, attacker(2))).status, 200);
  assert.equal((await app.request(`/?token=${TOKEN}`, {}, attacker(3))).status, 200);
  // Another address is not affected.
  assert.equal((await login("bad", 1)).status, 429);
  const other = await app.request("/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: "bad" }),
  }, from("10.0.0.2"));
  assert.equal(other.status, 401);

  fake.clock.advance(10 * 60_000 + 1);
  assert.equal((await login("bad again", 5)).status, 401, "the window has passed");
});

Deno.test("login: a failed login link shows the page with the reason in words, never JSON", async () => {
  const fake = fakeWeb();
  const app = createApp(fake.deps);
  const client = from("192.168.1.20");
  const wrong = await app.request("/?token=stale", {}, client);
  assert.equal(wrong.status, 401);
  assert.match(wrong.headers.get("content-type") ?? "", /text\/html/);
  const html = await wrong.text();
  assert.match(html, /<body data-login="wrong">/);
  assert.match(html, /<script type="module">/);
  for (let i = 0; i < 4; i++) await app.request(`/?token=stale${i}`, {}, client);
  fake.clock.advance(60_000);
  const throttled = await app.request("/?token=stale", {}, client);
  assert.equal(throttled.status, 429);
  assert.match(throttled.headers.get("content-type") ?? "", /text\/html/);
  assert.match(await throttled.text(), /<body data-login="throttled" data-retry-after="540">/);
  const crossSite = await app.request("/?token=x", { headers: imgFromElsewhere }, client);
  assert.match(await crossSite.text(), /<body data-login="cross_site">/);
});

Deno.test("login: on a real port, five cross-site guesses leave the owner's token working", async () => {
  const app = createApp(fakeWeb().deps);
  // As main.ts serves it: the peer address (with its ever-changing port) reaches the app.
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request, info) => app.fetch(request, { remoteAddr: info.remoteAddr }),
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  try {
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${base}/?token=guess${i}`, { headers: imgFromElsewhere });
      await r.body?.cancel();
      assert.equal(r.status, 403);
    }
    const owner = await fetch(`${base}/api/v1/status`, { headers: bearer });
    assert.equal(owner.status, 200);
    await owner.body?.cancel();
    const link = await fetch(`${base}/?token=${TOKEN}`, { redirect: "manual" });
    await link.body?.cancel();
    assert.equal(link.status, 200);
    // Same-origin wrong tokens from this machine are counted across connections.
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${base}/api/v1/status`, {
        headers: { authorization: `Bearer x${i}` },
      });
      await r.body?.cancel();
      assert.equal(r.status, 401);
    }
    const sixth = await fetch(`${base}/api/v1/status`, { headers: { authorization: "Bearer x" } });
    await sixth.body?.cancel();
    assert.equal(sixth.status, 429);
    const still = await fetch(`${base}/api/v1/status`, { headers: bearer });
    await still.body?.cancel();
    assert.equal(still.status, 200);
  } finally {
    await server.shutdown();
  }
});

Deno.test("clientKey drops the port, joins loopback and keys IPv6 by its /64", () => {
  assert.equal(clientKey("127.0.0.1"), "loopback");
  assert.equal(clientKey("127.0.0.2"), "loopback");
  assert.equal(clientKey("::1"), "loopback");
  assert.equal(clientKey("::ffff:10.1.2.3"), "10.1.2.3");
  assert.equal(clientKey("10.1.2.3"), "10.1.2.3");
  assert.equal(clientKey("2001:db8:1:2::5"), "2001:db8:1:2::/64");
  assert.equal(clientKey("2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::/64");
  assert.equal(clientKey("[2001:db8::1]"), "2001:db8:0:0::/64");
  assert.equal(clientKey(undefined), "unknown");
});

Deno.test("LoginThrottle remembers a bounded number of clients and failures", () => {
  const clock = new ManualClock();
  const throttle = new LoginThrottle({ clock, maxFailures: 3, maxClients: 4 });
  for (let i = 0; i < 100; i++) throttle.fail(`10.0.0.${i}`);
  assert.equal(throttle.size, 4, "the oldest clients are forgotten first");
  assert.equal(throttle.blockedFor("10.0.0.0"), 0);
  for (let i = 0; i < 1000; i++) throttle.fail("10.9.9.9");
  clock.advance(1);
  // Only the newest `maxFailures` are kept, so the block ends a window after the last one.
  assert.equal(throttle.blockedFor("10.9.9.9"), 10 * 60_000 - 1);
});
