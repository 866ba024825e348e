import assert from "node:assert/strict";
import { CliClient } from "../../plugins/mod.ts";
import { runMain } from "../fakes/daemon.ts";
import { inAgentfs, startToolDaemon, type ToolDaemon } from "./_daemon_chat.ts";

const allow = async (home: string) => {
  const set = await runMain(["config", "--home", home, "set", "plugin.cmd.policy", "allow"]);
  assert.equal(set.code, 0, set.stderr);
};

/** Gone, or a zombie nobody has reaped yet: either way no longer running. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch {
    return false;
  }
}

async function question(d: ToolDaemon): Promise<{ id: string; detail: string; plugin: string }> {
  for (let i = 0; i < 200; i++) {
    const { body } = await d.api("/api/v1/questions");
    if (body.questions.length > 0) return body.questions[0];
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("No question was asked");
}

Deno.test("cmd: runs in agentfs with a clean environment, caps output, records changes", async () => {
  await using d = await startToolDaemon(allow, { HOMEAGENT_LLM_API_KEY: "sekrit" });
  assert.equal(
    await d.call("cmd_run", { command: "pwd; echo err >&2; exit 3" }),
    `status: exit code 3\nstdout:\n${await Deno.realPath(inAgentfs(d.home))}\n\nstderr:\nerr\n`,
  );
  assert.match(await d.call("cmd_run", { command: 'echo "key=$HOMEAGENT_LLM_API_KEY"' }), /key=\n/);
  const big = await d.call("cmd_run", { command: "head -c 100000 /dev/zero | tr '\\0' a" });
  assert.match(big, /\n\[output cut: 68000 more bytes not shown\]/);
  assert.ok(big.length < 33_000);
  assert.match(await d.call("cmd_run", { command: "ls", workdir: "/etc" }), /outside the sandbox/);
  assert.match(await d.call("cmd_run", { command: "echo hi > made.txt" }), /exit code 0/);
  const list = await runMain(["changes", "--home", d.home, "list"]);
  assert.match(list.stdout, /\[cmd_run\] created .*made\.txt/);
  const history = await d.api("/api/v1/plugins/cmd/history");
  assert.equal(history.body.history[0].command, "echo hi > made.txt");
  assert.equal(history.body.history.length, 4, "a refused folder never ran");
});

Deno.test("cmd: a timeout kills the whole process group, background children included", async () => {
  await using d = await startToolDaemon(allow);
  const result = await d.call("cmd_run", {
    command: "sleep 300 & echo $! > child.pid; wait",
    timeout: 1,
  });
  assert.match(
    result,
    /^Error: status: timed out after 1 s; the command and its children were killed/,
  );
  const pid = Number(await Deno.readTextFile(inAgentfs(d.home, "child.pid")));
  assert.ok(pid > 0);
  for (let i = 0; i < 100 && running(pid); i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(running(pid), false, "the shell's child sleep is gone");
  // A background job left by a command that exits ends with it.
  await d.call("cmd_run", { command: "sleep 300 & echo $! > bg.pid" });
  const bg = Number(await Deno.readTextFile(inAgentfs(d.home, "bg.pid")));
  for (let i = 0; i < 100 && running(bg); i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(running(bg), false);
});

Deno.test("cmd: policy ask waits for the owner — approve and deny over HTTP, answer over the CLI socket, stop cancels", async () => {
  await using d = await startToolDaemon();
  const pending = d.call("cmd_run", { command: "echo approved > yes.txt" });
  const q = await question(d);
  assert.equal(q.plugin, "cmd");
  assert.match(q.detail, /^\$ echo approved > yes\.txt\nin \//);
  assert.equal((await d.api(`/api/v1/questions/${q.id}`, { body: { approve: true } })).status, 200);
  assert.match(await pending, /exit code 0/);
  assert.equal(await Deno.readTextFile(inAgentfs(d.home, "yes.txt")), "approved\n");
  assert.equal((await d.api(`/api/v1/questions/${q.id}`, { body: { approve: true } })).status, 404);

  const denied = d.call("cmd_run", { command: "touch no.txt" });
  await d.api(`/api/v1/questions/${(await question(d)).id}`, { body: { approve: false } });
  assert.equal(await denied, "Error: The owner declined to run this command");

  // The CLI socket: the question arrives as a frame and an answer frame settles it.
  const client = await CliClient.connect(d.daemon.socket);
  try {
    d.server.enqueue({
      kind: "message",
      text: "",
      toolCalls: [{ name: "cmd_run", arguments: { command: "touch cli.txt" } }],
    });
    await client.send({ type: "chat", text: "run it" });
    const frame = await client.expect("question");
    await client.send({ type: "answer", id: frame.id, approve: true });
    const reply = await client.expect("reply");
    assert.match(reply.text, /exit code 0/);
  } finally {
    client.close();
  }
  await Deno.stat(inAgentfs(d.home, "cli.txt"));

  const stopped = d.call("cmd_run", { command: "touch stopped.txt" });
  await question(d);
  await d.api("/api/v1/chat/stop", { body: {} });
  assert.match(await stopped, /stopped/i);
  assert.deepEqual((await d.api("/api/v1/questions")).body.questions, []);
  await assert.rejects(Deno.stat(inAgentfs(d.home, "stopped.txt")), Deno.errors.NotFound);
});

Deno.test("cmd: policy deny refuses every command", async () => {
  await using d = await startToolDaemon(async (home) => {
    await runMain(["config", "--home", home, "set", "plugin.cmd.policy", "deny"]);
  });
  assert.match(
    await d.call("cmd_run", { command: "touch x" }),
    /turned off \(plugin\.cmd\.policy is "deny"\)/,
  );
  await assert.rejects(Deno.stat(inAgentfs(d.home, "x")), Deno.errors.NotFound);
});
