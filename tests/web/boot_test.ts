/**
 * The boot block of the logged-in page (web/_boot.ts): only a page with the right token carries
 * it, it holds what the routes would answer, and no text in it can end its script element.
 */
import assert from "node:assert/strict";
import type { ConversationTurn } from "../../core/mod.ts";
import { createApp } from "../../web/mod.ts";
import { scriptJson } from "../../web/_boot.ts";
import { fakeWeb, TOKEN } from "./_deps.ts";

const turn = (i: number, text: string): ConversationTurn => ({
  turnId: `t${i}`,
  source: "web",
  channel: "web",
  input: text,
  reply: `re: ${text}`,
  inputAt: i,
  replyAt: i + 1,
});

/** The page `app` serves at `path` with `cookie`, and its boot block read back (or undefined). */
async function served(app: ReturnType<typeof createApp>, path = "/", cookie?: string) {
  const response = await app.request(path, cookie ? { headers: { cookie } } : {});
  const html = await response.text();
  const block = html.match(/<script type="application\/json" id="boot">(.*?)<\/script>/s);
  return {
    status: response.status,
    cache: response.headers.get("cache-control"),
    html,
    boot: block ? JSON.parse(block[1]!) : undefined,
  };
}

Deno.test("boot: only the page with the right token carries the history; it holds what the routes answer", async () => {
  const web = fakeWeb();
  const turns = [turn(1, "hello"), turn(2, "tea?")];
  const app = createApp({
    ...web.deps,
    history: { history: (q) => Promise.resolve({ turns: turns.slice(-(q?.limit ?? 30)) }) },
  });
  assert.equal((await served(app)).boot, undefined);
  assert.equal((await served(app, "/", "homeagent_token=wrong")).boot, undefined);
  assert.equal((await served(app, "/?token=wrong")).boot, undefined);
  const link = await served(app, `/?token=${TOKEN}`);
  assert.deepEqual(link.boot.history, { turns });
  assert.equal(link.boot.eventId, 0);
  assert.equal(link.boot.setupNeeded, false, "no setup port: the page keeps to the chat");
  assert.deepEqual(link.boot.questions, []);
  const cookie = `homeagent_token=${TOKEN}`;
  web.publish({ type: "status", state: "idle", pending: 0 } as never);
  const again = await served(app, "/", cookie);
  assert.deepEqual(again.boot.history, { turns });
  assert.equal(again.boot.eventId, 1, "the stream replays what came after the page was read");
  assert.match(again.html, /<body data-session="ok"><script type="application\/json" id="boot">/);
  assert.equal(again.cache, "no-store", "a page with the owner's history is never stored");
  assert.equal(link.cache, "no-store");
});

Deno.test("boot: a history that cannot be read is the route's error, and the page still opens", async () => {
  const bare = await served(createApp(fakeWeb().deps), `/?token=${TOKEN}`);
  assert.equal(bare.status, 200);
  assert.equal(bare.boot.history.error.code, "not_available");
  const broken = await served(
    createApp({
      ...fakeWeb().deps,
      history: { history: () => Promise.reject(new Error("disk gone")) },
    }),
    `/?token=${TOKEN}`,
  );
  assert.equal(broken.status, 200);
  assert.match(broken.boot.history.error.message, /disk gone/);
});

Deno.test("boot: text that would end the script element is escaped and reads back unchanged", () => {
  const hostile = ["</script><script>alert(1)</script>", "<!--", "a & b > c", "\u2028\u2029", "$&"];
  const json = scriptJson({ hostile });
  assert.doesNotMatch(json, /[<>&\u2028\u2029]/);
  assert.deepEqual(JSON.parse(json), { hostile });
});
