/** Subprocess plugins: the sandbox, per-call timeouts, bad frames, crash restarts and hot reload. */
import assert from "node:assert/strict";
import { ManualClock } from "../../fakes/clock.ts";
import { createHarness, waitFor } from "./_support.ts";

Deno.test("Permissions: reading outside, env, undeclared net, run and writing outside are refused; the kernel carries on", async () => {
  await using h = await createHarness(["echo"]);
  const probe = (op: string, target = "") => h.call("echo_probe", { op, target });
  const cases: [string, string, RegExp][] = [
    ["read", "/etc/hostname", /NotCapable: Requires read access to "\/etc\/hostname"/],
    ["read", `${h.pluginsDir}/../`, /NotCapable: Requires read access/],
    ["env", "SECRET_TOKEN", /NotCapable: Requires env access to "SECRET_TOKEN"/],
    ["env", "HOME", /NotCapable: Requires env access to "HOME"/],
    ["net", "http://127.0.0.1:8080/", /NotCapable: Requires net access to "127.0.0.1:8080"/],
    ["run", "/bin/true", /NotCapable: Requires run access to "\/bin\/true"/],
    ["write", `${h.pluginsDir}/echo/main.ts`, /NotCapable: Requires write access/],
  ];
  for (const [op, target, expected] of cases) {
    const result = await probe(op, target);
    assert.equal(result.isError, true, `${op} ${target}: ${result.content}`);
    assert.match(result.content, expected);
  }
  assert.match((await probe("read", `${h.pluginsDir}/echo/plugin.json`)).content, /^allowed/);
  await Deno.writeTextFile(`${h.pluginsDir}/echo/data/note.txt`, "mine");
  assert.equal(
    (await probe("read", `${h.pluginsDir}/echo/data/note.txt`)).content,
    "allowed: mine",
  );
  assert.equal((await probe("write", `${h.pluginsDir}/echo/data/out.txt`)).content, "allowed");
  assert.equal(h.registry.info("echo").state, "running");
  assert.deepEqual(await h.call("echo_say", { text: "still here" }), {
    content: "echo: still here",
  });
});

Deno.test("Permissions: a plugin importing a file outside its folder is refused at load", async () => {
  await using h = await createHarness([], { load: false });
  const dir = `${h.pluginsDir}/sneaky`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/plugin.json`,
    JSON.stringify({
      name: "sneaky",
      version: "1.0.0",
      entry: "main.ts",
      kind: "subprocess",
    }),
  );
  await Deno.writeTextFile(
    `${dir}/main.ts`,
    'import data from "../../secret.json" with { type: "json" };\n',
  );
  await h.registry.load();
  const info = h.registry.info("sneaky");
  assert.equal(info.state, "failed");
  assert.match(info.error!, /imports "..\/..\/secret.json", outside its folder/);
});

Deno.test("A hanging tool is cut by its timeout and the plugin keeps serving", async () => {
  await using h = await createHarness(["echo"]);
  const started = Date.now();
  const result = await h.call("echo_hang");
  assert.equal(result.isError, true);
  assert.match(result.content, /timed out after 300 ms/);
  assert.ok(Date.now() - started < 3000);
  assert.deepEqual(await h.call("echo_say", { text: "next" }), { content: "echo: next" });
});

Deno.test("Malformed and oversized frames are logged and refused; calls go on", async () => {
  await using h = await createHarness(["echo"], {
    limits: { maxFrameBytes: 4096 },
    callTimeoutMs: 1000,
  });
  assert.deepEqual(await h.call("echo_garbage"), { content: "after garbage" });
  assert.equal(h.kernel.logger.find("Malformed frame; not JSON").length, 1);
  assert.deepEqual(await h.call("echo_garbage", { size: 10_000 }), { content: "after garbage" });
  const big = h.kernel.logger.find("Frame too large; refused");
  assert.equal(big.length, 1);
  assert.equal(big[0]!.fields.plugin, "echo");
  const tooBig = await h.call("echo_say", { text: "y".repeat(5000) });
  assert.equal(tooBig.isError, true, "an oversized answer is dropped and the call times out");
  assert.deepEqual(await h.call("echo_say", { text: "ok" }), { content: "echo: ok" });
});

Deno.test("A tool.call result that is not {content, isError?} is refused as an error result naming plugin and tool", async () => {
  await using h = await createHarness(["hostile"]);
  for (const kind of ["null", "number", "content", "flag"]) {
    const result = await h.call("hostile_result", { kind });
    assert.equal(result.isError, true, kind);
    assert.match(result.content, /Plugin "hostile" answered tool "hostile_result" with /, kind);
    assert.match(result.content, /not \{content: string, isError\?: boolean\}/, kind);
  }
  // the plugin goes on serving
  assert.match((await h.call("hostile_stats")).content, /"echoes"/);
});

Deno.test("A crash detaches registrations, publishes plugin_crashed, restarts after 1 s, 2 s, 3 s and gives up at the 4th", async () => {
  const clock = new ManualClock();
  await using h = await createHarness(["echo"], { clock });
  const crash = async () => {
    const pid = h.registry.info("echo").pid;
    void h.call("echo_crash");
    await waitFor(() => h.registry.info("echo").state !== "running");
    return pid;
  };
  for (const delay of [1000, 2000, 3000]) {
    const before = await crash();
    const info = h.registry.info("echo");
    assert.equal(info.state, "restarting");
    assert.deepEqual(info.tools, [], "registrations are detached");
    clock.advance(delay - 1);
    assert.equal(h.registry.info("echo").state, "restarting");
    clock.advance(1);
    await waitFor(() => h.registry.info("echo").state === "running");
    assert.notEqual(h.registry.info("echo").pid, before);
    assert.deepEqual(await h.call("echo_say", { text: "back" }), { content: "echo: back" });
  }
  await crash();
  const info = h.registry.info("echo");
  assert.equal(info.state, "failed");
  assert.match(info.error!, /Gave up after 4 crashes in 5 minutes/);
  const crashes = h.kernel.events.filter((e) => e.type === "plugin_crashed");
  assert.equal(crashes.length, 4);
  assert.deepEqual(crashes[0], {
    type: "plugin_crashed",
    plugin: "echo",
    reason: "exited with code 3",
  });
  const notices = h.kernel.events.filter((e) => e.type === "kernel_notice");
  assert.equal(notices.length, 1, "only giving up is the owner's business, at L4");
  assert.deepEqual([notices[0]!.kind, notices[0]!.subject], ["plugin_gave_up", "echo"]);
  await waitFor(() => h.kernel.events.some((e) => e.type === "output" && e.channel === "kernel"));
});

Deno.test("Crashes older than 5 minutes are forgotten", async () => {
  const clock = new ManualClock();
  await using h = await createHarness(["echo"], { clock });
  for (let i = 0; i < 5; i++) {
    void h.call("echo_crash");
    await waitFor(() => h.registry.info("echo").state === "restarting");
    clock.advance(5 * 60_000);
    await waitFor(() => h.registry.info("echo").state === "running");
  }
  assert.equal(h.registry.info("echo").crashes, 1);
});

Deno.test("Hot reload swaps the process and re-registers without a kernel restart", async () => {
  await using h = await createHarness(["echo"]);
  const before = h.registry.info("echo").pid;
  const main = `${h.pluginsDir}/echo/main.ts`;
  const source = await Deno.readTextFile(main);
  await Deno.writeTextFile(
    main,
    source.replace("`${greeting}: ${args.text}`", "`v2 ${args.text}`"),
  );
  const reloaded = await h.call("plgreload", { name: "echo" });
  assert.match(reloaded.content, /Reloaded "echo"; tools: echo_say/);
  assert.notEqual(h.registry.info("echo").pid, before);
  assert.deepEqual(await h.call("echo_say", { text: "new" }), { content: "v2 new" });
  const builtin = await h.call("plgreload", { name: "skills" });
  assert.equal(builtin.isError, true);
});

Deno.test("Disable stops a plugin and persists; enable starts it again", async () => {
  await using h = await createHarness(["echo"]);
  const disabled = await h.registry.disable("echo");
  assert.equal(disabled.state, "disabled");
  assert.equal(h.kernel.config.registry.get("core.plugins.echo.enabled"), false);
  assert.equal((await h.call("echo_say", { text: "x" })).content, "no tool echo_say");
  const enabled = await h.registry.enable("echo");
  assert.equal(enabled.state, "running");
  assert.deepEqual(await h.call("echo_say", { text: "x" }), { content: "echo: x" });
});

Deno.test("owner.ask: the question a subprocess plugin asked for a tool call ends when the call times out", async () => {
  const clock = new ManualClock();
  await using h = await createHarness(["asker"], { clock });
  const questions = h.kernel.agent.questions;
  const result = h.call("asker_do", { what: "wait forever" });
  await waitFor(() => questions.pending().length === 1);
  assert.equal(questions.pending()[0]!.turnId, "turn-1", "asked for the call's turn");
  clock.advance(30_000); // asker's timeout_ms: the call gives up, and its question with it
  const answer = await result;
  assert.equal(answer.isError, true);
  assert.match(answer.content, /timed out after 30000 ms/);
  assert.deepEqual(questions.pending(), []);
  const done = h.kernel.agent.routes.match("asker", "GET", "done")!;
  let seen: unknown;
  for (let i = 0; i < 200 && !seen; i++) {
    const body = await done.route.handler({ method: "GET", params: {}, query: {} }) as {
      done: unknown[];
    };
    if (body.done.length > 0) seen = body.done;
    else await new Promise((r) => setTimeout(r, 10));
  }
  assert.deepEqual(seen, [{ what: "wait forever", answer: "cancelled" }]);
});
