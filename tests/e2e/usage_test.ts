/** Cost you can see and cap: a priced source, a cause's daily cap, `homeagent usage`. */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { runMain, startServe } from "../fakes/daemon.ts";
import { configureHome, sourceSettings } from "../fakes/home.ts";

Deno.test("usage: calls are priced and attributed, a cause past its cap is refused, homeagent usage shows it", async () => {
  const home = await Deno.makeTempDir({ prefix: "homeagent-usage-" });
  try {
    await using server = startFakeOpenAI({
      fallback: reply.text("Hello!", { usage: { prompt: 40_000, completion: 20_000 } }),
    });
    await configureHome(home, {
      ...sourceSettings("paid", server.url, "gpt-4o-mini", 128_000),
      "core.llm.sources.paid.price_input": 0.15,
      "core.llm.sources.paid.price_output": 0.6,
      "core.llm.causes.web.daily_token_cap": 50_000,
    });
    await using daemon = await startServe(home);
    const url = new URL(daemon.url);
    const chat = async (text: string) => {
      const response = await fetch(`${url.origin}/api/v1/chat?wait=1`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${url.searchParams.get("token")}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ text }),
      });
      return await response.json();
    };
    assert.equal((await chat("hi")).status, "ok");
    const refused = await chat("hi again");
    assert.equal(refused.status, "error");
    assert.match(refused.text, /^LLM calls for "web" are refused until tomorrow: it used 60,000/);
    assert.equal(server.requests.length, 1, "the refused turn sent nothing");
    const status = await (await fetch(`${url.origin}/api/v1/status`, {
      headers: { authorization: `Bearer ${url.searchParams.get("token")}` },
    })).json();
    assert.deepEqual(status.usageReport.causes.map((c: { cause: string }) => c.cause), ["web"]);
    await daemon.stop();

    const text = await runMain(["usage", "--home", home]);
    assert.equal(text.code, 0, text.stderr);
    // 40,000 in at 0.15 and 20,000 out at 0.60 per million: 0.006 + 0.012.
    assert.match(text.stdout, /^ {2}total +40,000 in +20,000 out +1 calls {2}USD 0\.0180$/m);
    assert.match(text.stdout, /By cause:\n {2}web +40,000 in/);
    assert.match(text.stdout, /By source:\n {2}paid +40,000 in/);
    const json = await runMain(["usage", "--days", "30", "--json", "--home", home]);
    const report = JSON.parse(json.stdout);
    assert.equal(report.days.length, 30);
    assert.equal(report.currency, "USD");
    assert.deepEqual([report.total.calls, report.causes[0].cause], [1, "web"]);
    const bad = await runMain(["usage", "--days", "zero", "--home", home]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Invalid --days "zero"/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
