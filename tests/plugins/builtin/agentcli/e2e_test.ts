import assert from "node:assert/strict";
import { runMain } from "../../../fakes/daemon.ts";
import { type PluginDaemon, startPluginDaemon } from "../_daemon.ts";

const read = (id: string, until?: string) => ({
  name: "terminal_read",
  arguments: until ? { id, until, wait: 20 } : { id, wait: 2 },
});
const write = (id: string, args: Record<string, unknown>) => ({
  name: "terminal_write",
  arguments: { id, ...args },
});

/** Live (not zombie) processes of session `sid`, as "pid command". */
async function sessionAlive(sid: number): Promise<string[]> {
  const ps = await new Deno.Command("ps", { args: ["-eo", "sid=,stat=,pid=,comm="] }).output();
  return new TextDecoder().decode(ps.stdout).split("\n").map((l) => l.trim().split(/\s+/))
    .filter(([s, stat]) => Number(s) === sid && !stat!.startsWith("Z"))
    .map(([, , p, comm]) => `${p} ${comm}`);
}

const allow = { config: { "plugin.agentcli.policy": "allow" } };

function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

Deno.test("agentcli drives python3 -i on a real pseudo-terminal through the daemon's model", async () => {
  await using d = await startPluginDaemon(allow);
  const [created, typed, answer, quit, ended, list] = await d.toolRun([
    { name: "terminal_create", arguments: { command: "python3 -i -q" } },
    write("t1", { input: "import os; print(6 * 7, os.isatty(0))\n" }),
    read("t1", "42 True\n>>> "),
    write("t1", { key: "ctrl-d" }),
    read("t1", "never printed"),
    { name: "terminal_list", arguments: {} },
  ]);
  assert.match(created!, /^Terminal t1 started: python3 -i -q \(pid \d+, 24x100, in .*agentfs\)/);
  assert.match(typed!, /^Sent to t1/);
  assert.match(answer!, />>> import os; print\(6 \* 7, os\.isatty\(0\)\)\n42 True\n>>> /);
  assert.equal(answer!.includes("\x1b"), false, "no escape codes reach the model");
  assert.match(quit!, /^Sent to t1/);
  assert.match(ended!, /\[exited with code 0\]$/);
  assert.match(list!, /^t1: python3 -i -q 24x100, exited \(code 0\)/);
});

Deno.test("agentcli: ctrl-c stops a running sleep in bash and the shell comes back", async () => {
  await using d = await startPluginDaemon(allow);
  const started = Date.now();
  const [created, , prompt, , , back, resized] = await d.toolRun([
    { name: "terminal_create", arguments: { rows: 30, cols: 120 } },
    write("t1", { input: "sleep 300\n" }),
    read("t1", "sleep 300"),
    write("t1", { key: "ctrl-c" }),
    write("t1", { input: "echo back-$((40 + 2))\n" }),
    read("t1", "back-42\n"),
    { name: "terminal_resize", arguments: { id: "t1", rows: 40, cols: 132 } },
  ]);
  assert.match(created!, /^Terminal t1 started: bash \(pid \d+, 30x120/);
  assert.match(prompt!, /sleep 300/);
  assert.match(back!, /\^C/);
  assert.match(back!, /\nback-42\n/, "the shell answers again after ctrl-c");
  assert.ok(Date.now() - started < 60_000, "the sleep did not run out");
  assert.equal(resized, "Terminal t1 is now 40x132");
  const pid = Number(/pid (\d+)/.exec(created!)![1]);

  const [sized, closed, gone] = await d.toolRun([
    write("t1", { input: "stty size; sleep 600 &\n" }),
    read("t1", "40 132\n"),
    { name: "terminal_close", arguments: { id: "t1" } },
    { name: "terminal_read", arguments: { id: "t1" } },
  ]).then((r) => [r[1], r[2], r[3]]);
  assert.match(sized!, /\n40 132\n/);
  assert.match(closed!, /^Closed t1/);
  assert.match(gone!, /^Error: No terminal "t1" \(open: none\)/);
  assert.equal(alive(pid), false, "the shell is gone");
  assert.deepEqual(await sessionAlive(pid), [], "and so is its background job");
});

Deno.test("agentcli tells the model of new output at L3 with a preview, and the daemon stops clean", async () => {
  await using d = await startPluginDaemon(allow);
  const [created] = await d.toolRun([
    { name: "terminal_create", arguments: {} },
    write("t1", { input: "sleep 1; echo notice-$((6 * 7))\n" }),
  ]);
  const pid = Number(/pid (\d+)/.exec(created!)![1]);
  const last = () => String(d.server.requests.at(-1)?.body.messages.at(-1)?.content);
  for (let i = 0; i < 150 && !/notice-42/.test(last()); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const notice = d.server.requests.at(-1)!.body.messages.at(-1)!;
  assert.equal(notice.role, "user");
  assert.match(String(notice.content), /^\[terminal t1 has new output\] .*\bnotice-42\b/);
  assert.ok(String(notice.content).length <= "[terminal t1 has new output] …".length + 100);
  const notices = d.server.requests.filter((r) =>
    String(r.body.messages.at(-1)?.content).startsWith("[terminal t1 has new output]")
  );
  const texts = notices.map((r) => String(r.body.messages.at(-1)!.content));
  assert.equal(new Set(texts).size, texts.length, "no notice repeats one before it");
  assert.ok(texts.length <= 3, `a notice per burst of new output, not ${texts.length}`);

  const status = JSON.parse((await runMain(["status", "--home", d.home])).stdout);
  const agentcli = status.plugins.find((p: { name: string }) => p.name === "agentcli");
  assert.equal(agentcli.state, "running");
  assert.deepEqual(agentcli.tools.sort(), [
    "terminal_close",
    "terminal_create",
    "terminal_list",
    "terminal_read",
    "terminal_resize",
    "terminal_write",
  ]);
  const stopped = await d.daemon.stop();
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.equal(alive(pid), false, "stopping the daemon closes its terminals");
});

async function question(d: PluginDaemon): Promise<{ id: string; detail: string; plugin: string }> {
  for (let i = 0; i < 200; i++) {
    const { body } = await d.api("/api/v1/questions");
    const list = body.questions as { id: string; detail: string; plugin: string }[];
    if (list.length > 0) return list[0]!;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("No question was asked");
}

Deno.test("agentcli asks the owner before a terminal opens, and the web page reads it live", async () => {
  await using d = await startPluginDaemon();
  const denied = d.toolRun([{ name: "terminal_create", arguments: { command: "bash" } }]);
  const q = await question(d);
  assert.equal(q.plugin, "agentcli");
  assert.match(q.detail, /^\$ bash\nin .*agentfs$/);
  assert.equal((await d.api(`/api/v1/questions/${q.id}`, { approve: false })).status, 200);
  assert.deepEqual(await denied, ["Error: The owner declined to open this terminal"]);
  assert.deepEqual((await d.api("/api/v1/plugins/agentcli/terminals")).body, { terminals: [] });

  const approved = d.toolRun([
    { name: "terminal_create", arguments: {} },
    write("t1", { input: "echo live-$((2 * 21))\n" }),
    read("t1", "live-42\n"),
  ]);
  await d.api(`/api/v1/questions/${(await question(d)).id}`, { approve: true });
  const [created, , seen] = await approved;
  assert.match(created!, /^Terminal t1 started: bash/);
  assert.match(seen!, /live-42/);
  const list = (await d.api("/api/v1/plugins/agentcli/terminals")).body.terminals as {
    id: string;
  }[];
  assert.deepEqual(list.map((t) => t.id), ["t1"]);
  const all = (await d.api("/api/v1/plugins/agentcli/terminals/t1?from=0")).body;
  assert.match(String(all.text), /live-42\r\n/, "the page gets the raw output");
  assert.equal(all.from, 0);
  const later = (await d.api(`/api/v1/plugins/agentcli/terminals/t1?from=${all.to}`)).body;
  assert.equal(later.text, "", "from the end there is nothing new");
  const missing = await d.api("/api/v1/plugins/agentcli/terminals/t9");
  assert.equal(missing.status, 404);
});
