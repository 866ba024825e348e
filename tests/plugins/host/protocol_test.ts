/** The protocol test: every method against the example plugins (docs/PLUGIN_PROTOCOL.md). */
import assert from "node:assert/strict";
import { ErrorCode } from "../../../plugins/sdk/protocol.ts";
import { createHarness, stageContext as context, waitFor } from "./_support.ts";
import { openTestMedia } from "../../fakes/media.ts";
import { RED, solidPng } from "../../fixtures/media.ts";
import { toBase64 } from "../../../core/mod.ts";

async function kernelCall(
  h: Awaited<ReturnType<typeof createHarness>>,
  method: string,
  params: Record<string, unknown> = {},
) {
  const out = await h.call("echo_call", { method, params });
  return JSON.parse(out.content) as {
    result?: Record<string, unknown>;
    error?: { code: number; message: string };
  };
}

Deno.test("Protocol: plugin.init/plugin.start register tools, stages, channels and settings; tool.call answers", async () => {
  await using h = await createHarness(["echo", "outbox"]);
  const echo = h.registry.info("echo");
  assert.equal(echo.state, "running");
  assert.ok(echo.pid! > 0);
  assert.deepEqual(echo.tools.slice(0, 2), ["echo_say", "echo_call"]);
  assert.equal(h.kernel.agent.stages.count("pre_action"), 2); // skills index + echo
  assert.deepEqual(await h.call("echo_say", { text: "hi" }), { content: "echo: hi" });
  assert.ok(
    h.kernel.logger.lines.some((l) => l.msg === "echo started" && l.fields.plugin === "echo"),
    "stderr is re-logged with the plugin's name",
  );
});

Deno.test("Protocol: stage.run hands the context over and applies the returned mutations", async () => {
  await using h = await createHarness(["echo"]);
  const pre = context("pre_action", "hello [echo-stage]");
  await h.kernel.agent.stages.run(pre);
  assert.deepEqual(pre.systemMessages, ["echo plugin saw the input"]);
  const input = context("on_input", "echo-short:bye");
  await h.kernel.agent.stages.run(input);
  assert.equal(input.response, "short: bye");
});

Deno.test("Protocol: channel.send routes output_send__{name} to the owning plugin", async () => {
  await using h = await createHarness(["outbox"]);
  const help = await h.call("output_send__outbox_help");
  assert.match(help.content, /text, structured/);
  assert.match(help.content, /recipient name/);
  const sent = await h.call("output_send__outbox", { payload: "hi", meta: { to: "ann" } });
  assert.equal(sent.isError, undefined);
  const file = `${h.pluginsDir}/outbox/data/outbox.jsonl`;
  const line = JSON.parse((await Deno.readTextFile(file)).trim());
  assert.deepEqual(line, { payload: "hi", meta: { to: "ann" }, type: "text" });
  const refused = await h.call("output_send__outbox", { payload: "fail" });
  assert.equal(refused.isError, true);
  assert.match(refused.content, /outbox refused the message/);
  const image = await h.call("output_send__outbox", { payload: "x", type: "image" });
  assert.match(image.content, /cannot send image/);
  const list = await h.call("output_list_channels");
  assert.match(list.content, /outbox \[text\+structured\]/);
});

Deno.test("Protocol: event notifications reach subscribed plugins only for their types", async () => {
  await using h = await createHarness(["echo"]);
  h.kernel.agent.events.publish({ type: "status", state: "idle", pending: 0 });
  h.kernel.agent.events.publish({ type: "plugin_crashed", plugin: "x", reason: "test" });
  await waitFor(() => true, 10);
  let seen: string[] = [];
  for (let i = 0; i < 50 && seen.length === 0; i++) {
    seen = JSON.parse((await h.call("echo_seen")).content);
  }
  assert.deepEqual(seen, ["plugin_crashed"]);
});

Deno.test("Protocol: the restricted SDK answers within capabilities and refuses the rest", async () => {
  const docs: { content: string; source: string }[] = [];
  await using h = await createHarness(["echo"], {
    services: {
      docQuery: (query) => Promise.resolve([{ summary: `about ${query}` }]),
      docCommit: (doc) => {
        docs.push(doc);
        return Promise.resolve({ id: "d1", duplicate: false });
      },
    },
  });
  assert.deepEqual((await kernelCall(h, "settings.get", { key: "greeting" })).result, {
    value: "echo",
  });
  assert.deepEqual(await kernelCall(h, "settings.set", { key: "greeting", value: "hey" }), {
    result: null,
  });
  assert.equal(h.kernel.config.registry.get("plugin.echo.greeting"), "hey");
  assert.deepEqual((await kernelCall(h, "settings.list")).result, { values: { greeting: "hey" } });
  const bad = await kernelCall(h, "settings.set", { key: "greeting", value: 3 });
  assert.equal(bad.error?.code, ErrorCode.invalidParams);

  assert.deepEqual((await kernelCall(h, "doc.query", { query: "tea" })).result, {
    items: [{ summary: "about tea" }],
  });
  assert.deepEqual((await kernelCall(h, "doc.commit", { content: "note" })).result, {
    id: "d1",
    duplicate: false,
  });
  assert.equal(docs[0]!.source, "plugin:echo");
  const memory = await kernelCall(h, "memory.recall", { query: "x" });
  assert.equal(memory.error?.code, ErrorCode.notAvailable);
  for (const method of ["knowledge.search", "social.get_person", "social.list_persons"]) {
    const refused = await kernelCall(h, method, { query: "x", name: "x" });
    assert.equal(refused.error?.code, ErrorCode.notCapable, method);
  }
  const late = await kernelCall(h, "tool.register", {
    name: "late",
    description: "",
    parameters: {},
  });
  assert.equal(late.error?.code, ErrorCode.registrationClosed);
  const unknown = await kernelCall(h, "core.publish", {});
  assert.equal(unknown.error?.code, ErrorCode.methodNotFound);
});

Deno.test("Protocol: input.inject and input.interrupt enter the kernel; L4 is clamped to L3", async () => {
  await using h = await createHarness(["echo"]);
  const injected: { channel: string; priority: number; text: string }[] = [];
  const agent = h.kernel.agent;
  const original = agent.injectInterrupt.bind(agent);
  agent.injectInterrupt = (source, text, options = {}) => {
    injected.push({ channel: options.channel ?? source, priority: options.priority ?? 1, text });
    return original(source, text, options);
  };
  const interrupt = await kernelCall(h, "input.interrupt", {
    text: "urgent",
    priority: 4,
    channel: "echo_in",
  });
  assert.equal(interrupt.result?.accepted, true);
  assert.deepEqual(injected, [{ channel: "echo_in", priority: 3, text: "urgent" }]);
  const other = await kernelCall(h, "input.inject", { text: "x", channel: "cli" });
  assert.equal(other.error?.code, ErrorCode.invalidParams);
  const queued = await kernelCall(h, "input.inject", { text: "hello" });
  assert.equal(queued.result?.accepted, true);
  await agent.whenIdle();
});

Deno.test("Protocol: input.inject carries media, stored by its sniffed type; refusals are invalid params", async () => {
  await using media = await openTestMedia();
  await using h = await createHarness(["echo"], { media: media.tier });
  const agent = h.kernel.agent;
  const seen: unknown[] = [];
  const original = agent.injectInput.bind(agent);
  agent.injectInput = (source, text, options = {}) => {
    seen.push(options.media);
    return original(source, text, options);
  };
  const png = solidPng(RED);
  const ok = await kernelCall(h, "input.inject", {
    text: "a photo",
    media: [{ data: toBase64(png), mime: "image/gif" }],
  });
  assert.equal(ok.result?.accepted, true);
  const [refs] = seen as { digest: string; mime: string }[][];
  assert.equal(refs?.[0]?.mime, "image/png");
  assert.equal(media.tier.status().blocks, 1);
  const svg = await kernelCall(h, "input.inject", {
    text: "x",
    media: [{ data: btoa("<svg xmlns='http://www.w3.org/2000/svg'/>") }],
  });
  assert.equal(svg.error?.code, ErrorCode.invalidParams);
  assert.match(svg.error?.message ?? "", /not a PNG, JPEG, GIF or WebP/);
  const many = await kernelCall(h, "input.inject", {
    text: "x",
    media: Array.from({ length: 9 }, () => ({ data: toBase64(png) })),
  });
  assert.match(many.error?.message ?? "", /at most 8/);
  await agent.whenIdle();
});
