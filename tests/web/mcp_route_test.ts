import assert from "node:assert/strict";
import { createApp, rebindingRefusal } from "../../web/mod.ts";
import { bearer, fakeWeb } from "./_deps.ts";

/** The app over a fake McpPort that records what reaches it. */
function appWith(localOnly: boolean) {
  const reached: string[] = [];
  const { deps } = fakeWeb();
  const app = createApp({
    ...deps,
    localOnly,
    mcp: {
      handle: (request) => {
        reached.push(request.method);
        return Promise.resolve(Response.json({ ok: true }));
      },
    },
  });
  return { app, reached };
}

Deno.test("/mcp needs the token and refuses a foreign Host or Origin before the MCP server sees it", async () => {
  const { app, reached } = appWith(true);
  const post = (headers: Record<string, string>) =>
    app.request("http://127.0.0.1:7800/mcp", { method: "POST", headers, body: "{}" });
  assert.equal((await post({ host: "127.0.0.1:7800" })).status, 401);
  assert.equal((await post({ ...bearer, host: "evil.example:7800" })).status, 403);
  const origin = await post({ ...bearer, host: "127.0.0.1:7800", origin: "http://evil.example" });
  assert.equal(origin.status, 403);
  assert.deepEqual(reached, []);
  assert.equal((await post({ ...bearer, host: "127.0.0.1:7800" })).status, 200);
  assert.equal(
    (await post({ ...bearer, host: "localhost:7800", origin: "http://[::1]:3000" })).status,
    200,
  );
  assert.deepEqual(reached, ["POST", "POST"]);
});

Deno.test("rebindingRefusal: loopback servers take loopback names; others their own origin only", () => {
  assert.equal(rebindingRefusal("127.0.0.1:7800", undefined, true), undefined);
  assert.match(rebindingRefusal("attacker.example", undefined, true)!, /not a loopback name/);
  assert.equal(rebindingRefusal("home.lan:7800", "http://home.lan:7800", false), undefined);
  assert.equal(rebindingRefusal("home.lan:7800", undefined, false), undefined);
  assert.match(rebindingRefusal("home.lan:7800", "http://localhost:7800", false)!, /Origin/);
  assert.match(rebindingRefusal("127.0.0.1:7800", "null", true)!, /Origin "null"/);
});

Deno.test("/mcp without an MCP server is 404", async () => {
  const app = createApp(fakeWeb().deps);
  const response = await app.request("/mcp", { method: "POST", headers: bearer, body: "{}" });
  assert.equal(response.status, 404);
});
