/**
 * First run in chromium against a real daemon in a new home: the page opens on Setup; against a
 * fake OpenAI-compatible server on 127.0.0.1 (its real model list and its real 401), a wrong key
 * shows the provider's words, the right one lists models, the test call answers, saving makes
 * the next chat answered by that source; the persona is saved to persona.md, and the memory
 * model installs from a file with its steps shown.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ARTIFACTS, launchChromium } from "./_browser.ts";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { tinyModelJar } from "../fixtures/tiny_onnx.ts";
import { runMain, startServe } from "../fakes/daemon.ts";

/** No source from the environment: the home is new in every way. */
const NO_SOURCE = {
  HOMEAGENT_LLM_BASE_URL: "",
  HOMEAGENT_LLM_MODEL: "",
  HOMEAGENT_LLM_API_KEY: "",
};

Deno.test({
  name: "Setup in chromium: a new home lists models with the right key, saves, and chats",
  sanitizeResources: false, // chromium's pipes belong to playwright's own lifecycle
  sanitizeOps: false,
  async fn() {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const home = await Deno.makeTempDir({ prefix: "homeagent-setup-browser-" });
    await using llm = startFakeOpenAI({ models: ["gpt-4o", "gpt-4o-mini"], apiKey: "sk-right" });
    const daemon = await startServe(home, NO_SOURCE);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1000, height: 1000 } });
      const errors: string[] = [];
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      await page.goto(daemon.url);
      await page.locator("section.setup").waitFor();
      assert.match(page.url(), /#setup$/);
      await page.screenshot({ path: `${ARTIFACTS}setup-new-home.png`, fullPage: true });

      // A chat before any source says where to set one up.
      const origin = new URL(daemon.url).origin;
      const early = await page.request.post(`${origin}/api/v1/chat?wait=1`, {
        data: { text: "hi" },
      });
      assert.match((await early.json()).text, /No LLM source is configured.*opens on Setup/);

      await page.locator("#setup-preset").selectOption("custom");
      await page.locator("#setup-base-url").fill(llm.url);
      await page.locator("#setup-key").fill("sk-wrong-1234");
      await page.locator("#setup-list").click();
      const said = page.locator("#setup-said");
      await said.locator(".error").waitFor();
      assert.match(
        await said.innerText(),
        /answered 401: Incorrect API key provided: sk-\*\*\*1234/,
      );

      await page.locator("#setup-key").fill("sk-right");
      await page.locator("#setup-list").click();
      await said.locator(".ok", { hasText: "2 models found" }).waitFor();
      const options = await page.locator("select#setup-model option").allInnerTexts();
      assert.deepEqual(options, ["gpt-4o", "gpt-4o-mini"]);
      await page.locator("select#setup-model").selectOption("gpt-4o-mini");

      llm.enqueue(reply.text("OK"));
      await page.locator("#setup-test").click();
      await said.locator(".ok", { hasText: "Connected: gpt-4o-mini answered" }).waitFor();
      await page.locator("#setup-save").click();
      await page.locator("#setup-saved", { hasText: "“main”" }).waitFor();
      const key = await runMain(["config", "get", "core.llm.sources.main.model", "--home", home]);
      assert.match(key.stdout, /gpt-4o-mini/);

      // The persona, saved to persona.md.
      const persona = page.locator("#setup-persona");
      await persona.fill("# Persona\n\nYou are Kettle, a brief assistant.");
      await page.locator("#setup-persona-save").click();
      await page.locator(".setup-persona .ok").waitFor();
      assert.match(await Deno.readTextFile(join(home, "persona.md")), /You are Kettle/);

      // The memory model from a file on this machine, its steps shown, then in the list.
      const jar = join(home, "tiny.jar");
      await Deno.writeFile(jar, tinyModelJar());
      assert.match(await page.locator("#setup-space").innerText(), /Not installed/);
      await page.locator("#setup-from").fill(jar);
      await page.locator("#setup-install").click();
      await page.locator(".setup-memory .ok", { hasText: "Installed tiny-kitten-q" }).waitFor();
      await page.locator(".setup-memory li", { hasText: "tiny-kitten-q" }).waitFor();
      // Chosen, not yet in use: the running daemon keeps its space until it restarts.
      await page.locator("#setup-space", { hasText: "Chosen: tiny-kitten-q" }).waitFor();
      await page.screenshot({ path: `${ARTIFACTS}setup-done.png`, fullPage: true });

      // The next chat is answered by the saved source, with its key and model.
      llm.enqueue(reply.text("Hello from the new source"));
      await page.locator("#setup-saved a").click();
      await page.locator("form.composer textarea").fill("Hi there");
      await page.keyboard.press("Enter");
      await page.locator(".msg.agent.done", { hasText: "Hello from the new source" }).waitFor();
      const chat = llm.requests.at(-1)!;
      assert.equal(chat.headers.authorization, "Bearer sk-right");
      assert.equal(chat.body.model, "gpt-4o-mini");
      assert.match(JSON.stringify(chat.body.messages), /You are Kettle/);

      // Reloaded with a source, the page opens on the chat.
      await page.goto(daemon.url.replace(/\?token=.*$/, ""));
      await page.locator("form.composer").waitFor();
      assert.doesNotMatch(page.url(), /#setup/);
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await daemon.stop();
      await Deno.remove(home, { recursive: true });
    }
  },
});
