import assert from "node:assert/strict";
import { checkForgetName, type ForgetReport } from "../../core/mod.ts";
import { createApp } from "../../web/mod.ts";
import { bearer, fakeWeb } from "./_deps.ts";

const post = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...bearer },
  body: JSON.stringify(body),
});

function report(name: string): ForgetReport {
  return {
    name,
    names: 1,
    graph: { entities: 1, relations: 2, sentences: 1 },
    documents: { redacted: 1, removed: 0 },
    context: { events: 2 },
    textLog: { files: 1, lines: 3 },
    logs: { files: 1, lines: 1 },
    removedCopies: [],
    knowledge: [],
    checkpointed: true,
  };
}

Deno.test("POST /api/v1/memory/forget forgets through the port; a bad name is 400 with the reason", async () => {
  const fake = fakeWeb();
  const asked: string[] = [];
  const memory = fake.deps.memory!;
  const app = createApp({
    ...fake.deps,
    memory: {
      ...memory,
      forget: (name) => {
        const checked = checkForgetName(name);
        asked.push(checked);
        return Promise.resolve(report(checked));
      },
    },
  });
  const ok = await app.request("/api/v1/memory/forget", post({ name: " Mirelle " }));
  assert.equal(ok.status, 200);
  assert.deepEqual(await ok.json(), { report: report("Mirelle") });
  assert.deepEqual(asked, ["Mirelle"]);
  const bad = await app.request("/api/v1/memory/forget", post({ name: "x" }));
  assert.equal(bad.status, 400);
  const error = (await bad.json()).error;
  assert.equal(error.code, "bad_name");
  assert.match(error.message, /single character/);
  assert.equal((await app.request("/api/v1/memory/forget", post({}))).status, 400);
  const unwired = createApp({ ...fake.deps, memory: { ...memory, forget: undefined } });
  assert.equal((await unwired.request("/api/v1/memory/forget", post({ name: "Bo" }))).status, 501);
});
