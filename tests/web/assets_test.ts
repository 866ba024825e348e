/** The page's static files and the page itself as the server hands them out. */
import assert from "node:assert/strict";
import { createApp } from "../../web/mod.ts";
import { BUNDLES } from "../../web/ui/dist/bundles.js";
import { fakeWeb, TOKEN } from "./_deps.ts";

Deno.test("web assets: every bundle, the icon and manifest without a token; gzip when asked", async () => {
  const app = createApp(fakeWeb().deps);
  const paths = [
    ...Object.keys(BUNDLES).map((name) => `/assets/${name}`),
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
  const refused = await app.request("/assets/views.js", {
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

Deno.test("web page carries its script and stylesheet; the later bundles read the page's modules and import only hashed chunks", async () => {
  const app = createApp(fakeWeb().deps);
  const page = await (await app.request("/")).text();
  assert.doesNotMatch(page, /<link rel="stylesheet"|<script[^>]* src=/);
  assert.match(page, /<style>:root\{/);
  const script = page.match(/<script type="module">(.*?)<\/script>/s)?.[1] ?? "";
  const listed = [...(script.match(/"homeagent\.modules"\)\]=Object\.freeze\(\{(.*?)\}\)/)?.[1] ??
    "").matchAll(/"([^"]+)":/g)].map((m) => m[1]!);
  assert.ok(listed.includes("preact/dist/preact.mjs") && listed.includes("_api.ts"), `${listed}`);
  const importsOf = (js: string) => [...js.matchAll(/from"\.\/([\w-]+\.js)"/g)].map((m) => m[1]!);
  for (const name of ["views.js", "markdown.js", "graph.js"]) {
    const bundle = await app.request(`/assets/${name}`);
    assert.equal(bundle.headers.get("cache-control"), "no-cache", "the URL stays: revalidate");
    const text = await bundle.text();
    // Every page module a bundle reads is one the page lists: one preact, one set of signals.
    for (const [, key] of text.matchAll(/the page lists no ([^"]+)"/g)) {
      assert.ok(listed.includes(key!), `${name} reads ${key}, which the page does not list`);
    }
    for (const chunk of importsOf(text)) {
      const shared = await app.request(`/assets/${chunk}`);
      assert.equal(shared.status, 200, chunk);
      assert.equal(shared.headers.get("cache-control"), "public, max-age=31536000, immutable");
      await shared.body?.cancel();
    }
  }
  assert.match(await (await app.request("/assets/views.js")).text(), /the page lists no _api\.ts/);
  const missing = await app.request("/assets/nothing-ABCDEFGH.js");
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
});
