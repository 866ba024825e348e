/** The page's static files and the page itself as the server hands them out. */
import assert from "node:assert/strict";
import { createApp } from "../../web/mod.ts";
import { BUNDLES } from "../../web/ui/dist/bundles.js";
import { fakeWeb, TOKEN } from "./_deps.ts";

Deno.test("web assets: every bundle, the stylesheet, icon and manifest without a token; gzip when asked", async () => {
  const app = createApp(fakeWeb().deps);
  const paths = [
    ...Object.keys(BUNDLES).map((name) => `/assets/${name}`),
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

Deno.test("web page preloads every chunk app.js imports; hashed chunks are kept for good", async () => {
  const app = createApp(fakeWeb().deps);
  const page = await (await app.request("/")).text();
  const preloads = [...page.matchAll(/<link rel="modulepreload" href="\/assets\/([\w-]+\.js)">/g)]
    .map((m) => m[1]!);
  const main = await app.request("/assets/app.js");
  assert.equal(main.headers.get("cache-control"), "no-cache", "the entry's URL stays, revalidate");
  const importsOf = (js: string) => [...js.matchAll(/from"\.\/([\w-]+\.js)"/g)].map((m) => m[1]!);
  const imported = new Set(importsOf(await main.text()));
  assert.ok(imported.size > 0);
  for (const name of imported) {
    const chunk = await app.request(`/assets/${name}`);
    assert.equal(chunk.status, 200, name);
    assert.equal(chunk.headers.get("cache-control"), "public, max-age=31536000, immutable");
    for (const further of importsOf(await chunk.text())) imported.add(further);
  }
  assert.deepEqual(preloads.toSorted(), [...imported].sort(), "no chunk waits for another");
  const missing = await app.request("/assets/nothing-ABCDEFGH.js");
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
});
