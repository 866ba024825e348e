/** The page's static files and the page itself as the server hands them out. */
import assert from "node:assert/strict";
import { createApp } from "../../web/mod.ts";
import { WEB_BUNDLES } from "../../web/build.ts";
import { fakeWeb, TOKEN } from "./_deps.ts";

Deno.test("web assets: every bundle, the stylesheet, icon and manifest without a token; gzip when asked", async () => {
  const app = createApp(fakeWeb().deps);
  const paths = [
    ...Object.values(WEB_BUNDLES).map((name) => `/assets/${name}`),
    "/assets/app.css",
    "/favicon.svg",
    "/manifest.webmanifest",
  ];
  for (const path of paths) {
    const plain = await app.request(path);
    assert.equal(plain.status, 200, path);
    assert.equal(plain.headers.get("content-encoding"), null);
    const text = await plain.text();
    assert.ok(text.length > 100, path);
    const zipped = await app.request(path, { headers: { "accept-encoding": "br, gzip;q=0.8" } });
    assert.equal(zipped.headers.get("content-encoding"), "gzip", path);
    assert.equal(zipped.headers.get("vary"), "accept-encoding");
    const bytes = await zipped.bytes();
    assert.ok(bytes.length < new TextEncoder().encode(text).length, path);
    const unzipped = await new Response(
      new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")),
    ).text();
    assert.equal(unzipped, text, path);
  }
  const refused = await app.request("/assets/app.js", {
    headers: { "accept-encoding": "gzip;q=0" },
  });
  assert.equal(refused.headers.get("content-encoding"), null);
  await refused.body?.cancel();
  const manifest = await (await app.request("/manifest.webmanifest")).json();
  assert.equal(manifest.icons[0].src, "/favicon.svg");
  const ico = await app.request("/favicon.ico");
  assert.equal(ico.headers.get("location"), "/favicon.svg");
});

Deno.test("web page is marked logged in only for the right cookie, so it opens on the chat at once", async () => {
  const app = createApp(fakeWeb().deps);
  const page = async (cookie?: string) =>
    await (await app.request("/", cookie ? { headers: { cookie } } : {})).text();
  assert.doesNotMatch(await page(), /data-session/);
  assert.doesNotMatch(await page("homeagent_token=wrong"), /data-session/);
  const login = await app.request(`/?token=${TOKEN}`);
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
  assert.match(await page(cookie), /<body data-session="ok">/);
});
