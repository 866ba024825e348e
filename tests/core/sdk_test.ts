import assert from "node:assert/strict";
import { Cap, createPluginSdk, type Plugin, type PluginSDK } from "../../core/mod.ts";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { createTestKernel } from "../fakes/kernel.ts";
import { startPlugin } from "../fakes/plugin_host.ts";

Deno.test("PluginSDK registers the four channels and detaches them when the plugin stops", async () => {
  await using server = startFakeOpenAI();
  await using kernel = createTestKernel({ sources: [{ name: "main", server }] });
  const sent: string[] = [];
  const seen: string[] = [];
  let sdk!: PluginSDK;
  const plugin: Plugin = {
    name: "qq",
    start(s) {
      sdk = s;
      s.registerTool({
        name: "qq_lookup",
        description: "look up a contact",
        parameters: { type: "object", properties: {} },
        handler: () => "found",
      });
      s.registerStage("after_output", (c) => void seen.push(c.output ?? ""));
      s.subscribe("output", (e) => void seen.push(`event:${e.text}`));
      s.registerOutputChannel(
        "qq",
        Cap.text | Cap.image,
        "QQ chats",
        (m) => void sent.push(m.payload),
      );
    },
    stop() {},
  };
  const started = await startPlugin(plugin, {
    agent: kernel.agent,
    config: kernel.config.registry,
    logger: kernel.logger,
  });
  const names = kernel.agent.allTools().map((t) => t.name);
  assert.deepEqual(names, [
    "qq_lookup",
    "output_send__qq",
    "output_send__qq_help",
    "tool_search",
    "tool_load",
  ]);

  server.enqueue(
    reply.toolCalls([
      { name: "output_send__qq_help", arguments: {} },
      { name: "output_send__qq", arguments: { payload: "hi from the model", type: "text" } },
    ]),
    reply.text("sent"),
  );
  assert.equal((await kernel.ask("tell qq")).text, "sent");
  assert.deepEqual(sent, ["hi from the model"]);
  const tools = server.requests[1]!.body.messages.filter((m) => m.role === "tool");
  assert.match(String(tools[0]!.content), /Payload types: text, image/);
  assert.deepEqual(seen, ["sent", "event:sent"]);

  // A reply to an input from the qq channel goes to the channel's handler.
  server.enqueue(reply.text("answer for qq"));
  sdk.injectInput("question from qq", { channel: "qq" });
  await kernel.agent.whenIdle();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(sent, ["hi from the model", "answer for qq"]);

  await started.stop();
  assert.deepEqual(kernel.agent.allTools(), []);
  assert.equal(kernel.agent.stages.count("after_output"), 0);
});

Deno.test("PluginSDK restricted surface clamps L4 to L3 and refuses publish", async () => {
  await using kernel = createTestKernel();
  const { sdk } = createPluginSdk("ext", {
    agent: kernel.agent,
    config: kernel.config.registry,
    logger: kernel.logger,
    restricted: true,
  });
  const priorities: number[] = [];
  kernel.agent.stages.register("on_input", (c) => {
    priorities.push(c.input.priority);
    c.response = "noted";
  }, { plugin: "probe" });
  sdk.injectInterrupt("urgent!", { priority: 4 });
  await kernel.agent.whenIdle();
  assert.deepEqual(priorities, [3]);
  assert.throws(() => sdk.publish("x", {}), /may not publish/);
});

Deno.test("PluginSDK injectInputSync returns the reply and settings are namespaced", async () => {
  await using server = startFakeOpenAI({ fallback: reply.text("pong") });
  await using kernel = createTestKernel({ sources: [{ name: "main", server }] });
  const { sdk } = createPluginSdk("timer", {
    agent: kernel.agent,
    config: kernel.config.registry,
    logger: kernel.logger,
  });
  const answer = await sdk.injectInputSync("ping");
  assert.equal(answer.text, "pong");
  assert.equal(answer.channel, "timer");
  assert.throws(() => sdk.settings.get("interval"), /plugin\.timer\.interval/);
});
