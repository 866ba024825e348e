import assert from "node:assert/strict";
import { silentLogger } from "../../../../core/mod.ts";
import type { PtyProcess, SpawnPty } from "../../../../plugins/builtin/agentcli/pty.ts";
import {
  NOTICE_THROTTLE_MS,
  SWEEP_MS,
  TerminalSet,
} from "../../../../plugins/builtin/agentcli/terminals.ts";
import { ManualClock } from "../../../fakes/clock.ts";

/** A pseudo-terminal the test types output into; a hang-up ends it. Its pid is no process's. */
class FakePty implements PtyProcess {
  readonly pid = 2 ** 30 + 7;
  written: string[] = [];
  #data?: (data: string) => void;
  #exit?: (exit: { code: number }) => void;
  write(data: string) {
    this.written.push(data);
  }
  resize() {}
  kill() {
    this.#exit?.({ code: 129 });
  }
  onData(listener: (data: string) => void) {
    this.#data = listener;
  }
  onExit(listener: (exit: { code: number }) => void) {
    this.#exit = listener;
  }
  print(text: string) {
    this.#data!(text);
  }
}

async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(done(), "waited 5 s");
}

function harness(max = 4) {
  const clock = new ManualClock();
  const ptys: FakePty[] = [];
  const notices: { terminal: string; text: string; id: string }[] = [];
  const spawn: SpawnPty = () => {
    const pty = new FakePty();
    ptys.push(pty);
    return pty;
  };
  const set = new TerminalSet({
    clock,
    logger: silentLogger,
    spawn: () => Promise.resolve(spawn),
    maxTerminals: () => max,
    notify: () => true,
    sendNotice: (terminal, text) => {
      const id = `n${notices.length + 1}`;
      notices.push({ terminal, text, id });
      return id;
    },
  });
  const create = () =>
    set.create({
      file: "bash",
      args: [],
      command: "bash",
      rows: 24,
      cols: 80,
      cwd: "/",
      env: {},
      idleTimeoutMs: 60_000,
    });
  return { clock, ptys, notices, set, create };
}

Deno.test("TerminalSet sends one new-output notice per throttle window, one in flight at a time", async () => {
  const h = harness();
  const t = await h.create();
  h.ptys[0]!.print("line one\r\n");
  h.clock.advance(NOTICE_THROTTLE_MS - 1);
  h.ptys[0]!.print("line two " + "z".repeat(150) + "\r\n");
  assert.equal(h.notices.length, 0, "nothing before the throttle");
  h.clock.advance(1);
  assert.equal(h.notices.length, 1);
  assert.equal(h.notices[0]!.terminal, t.id);
  assert.match(h.notices[0]!.text, /^\[terminal t1 has new output\] …z+$/);
  assert.equal(h.notices[0]!.text.length, "[terminal t1 has new output] …".length + 100);
  h.ptys[0]!.print("more\r\n");
  h.clock.advance(10 * NOTICE_THROTTLE_MS);
  assert.equal(h.notices.length, 1, "the first notice's turn has not ended");
  h.set.turnEnded("n1");
  h.clock.advance(NOTICE_THROTTLE_MS);
  assert.equal(h.notices.length, 2);
  h.set.turnEnded("n2");
  h.clock.advance(10 * NOTICE_THROTTLE_MS);
  assert.equal(h.notices.length, 2, "output told of and left unread is not told again");
  h.ptys[0]!.print("more\r\n");
  h.clock.advance(NOTICE_THROTTLE_MS);
  assert.equal(h.notices.length, 3);
  assert.match(h.notices[2]!.text, /\] …z+ more more$/, "unread output accumulates");
  h.set.turnEnded("n3");
  await h.set.using(t.id, "turn-a", (term) => void term.read(true));
  h.clock.advance(10 * NOTICE_THROTTLE_MS);
  assert.equal(h.notices.length, 3, "read output needs no notice");
  h.ptys[0]!.print("after the read\r\n");
  h.clock.advance(10 * NOTICE_THROTTLE_MS);
  assert.equal(h.notices.length, 3, "turn-a used the terminal and reads it itself");
  h.set.turnEnded("turn-a");
  h.clock.advance(NOTICE_THROTTLE_MS - 1);
  assert.equal(h.notices.length, 3);
  h.clock.advance(1);
  assert.equal(h.notices.length, 4, "output left unread when turn-a ended gets its notice");
  assert.match(h.notices[3]!.text, /\] after the read$/);
  h.set.turnEnded("n4");
  await h.set.using(t.id, "turn-b", (term) => void term.read(true));
  h.set.turnEnded("turn-b");
  h.ptys[0]!.print("\x1b[?2004h\x1b[0m\r\n");
  h.clock.advance(NOTICE_THROTTLE_MS);
  assert.equal(h.notices.length, 4, "escape codes alone are no news");
  await h.set.closeAll();
  assert.equal(h.clock.pending, 0, "no timer left behind");
});

Deno.test("TerminalSet is bounded and closes idle terminals at the sweep", async () => {
  const h = harness(2);
  const a = await h.create();
  const b = await h.create();
  await assert.rejects(h.create(), /2 are open \(plugin\.agentcli\.max_terminals\)/);
  h.clock.advance(SWEEP_MS);
  await Promise.resolve();
  assert.equal(h.set.list().length, 2, "not idle yet");
  h.clock.advance(25_000);
  h.ptys[1]!.print("still busy\r\n");
  h.clock.advance(5_000);
  await waitFor(() => h.set.list().length === 1);
  assert.deepEqual(h.set.list().map((t) => t.id), [b.id], `${a.id} idle 60 s is closed`);
  assert.throws(() => h.set.get(a.id), /No terminal "t1" \(open: t2\)/);
  const c = await h.create();
  assert.equal(c.id, "t3", "ids are not reused");
  await h.set.closeAll();
  assert.equal(h.clock.pending, 0);
});
