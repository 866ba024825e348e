import assert from "node:assert/strict";
import {
  type Dispatch,
  effectiveLevel,
  type Input,
  type PriorityLevel,
  Scheduler,
  type Task,
} from "../../../core/mod.ts";
import { ManualClock } from "../../fakes/clock.ts";

let ids = 0;
function input(source = "test", text = "hi"): Input {
  const id = `in${ids++}`;
  return {
    id,
    text,
    source,
    channel: source,
    priority: 0,
    interrupt: false,
    receivedAt: 0,
    meta: {},
  };
}

function scheduler(options: { capacity?: number; cooldownMs?: number } = {}) {
  const clock = new ManualClock();
  return { clock, s: new Scheduler({ clock, ...options }) };
}

function taskOf(dispatch: Dispatch): Task | undefined {
  return dispatch.type === "idle" ? undefined : dispatch.task;
}

const LEVELS: PriorityLevel[] = [0, 1, 2, 3, 4];

Deno.test("Scheduler preempts iff the incoming level is strictly higher, for every level pair", () => {
  for (const running of LEVELS) {
    for (const incoming of LEVELS) {
      const { s } = scheduler();
      const a = s.submit(input(), running)!;
      assert.equal(s.next().type, "start");
      const b = s.submit(input(), incoming)!;
      const p = s.preempt();
      const label = `running L${running}, incoming L${incoming}`;
      if (incoming > running) {
        assert.deepEqual(p, { suspended: a, task: b }, label);
        assert.deepEqual(s.stack, [a], label);
        assert.equal(s.running, b, label);
      } else {
        assert.equal(p, undefined, label);
        assert.equal(s.running, a, label);
        assert.equal(s.waiting, 1, label);
      }
    }
  }
});

Deno.test("Scheduler orders waiting tasks by level, FIFO within a level", () => {
  const { s } = scheduler();
  const tasks = ([0, 2, 0, 1, 2, 4, 0] as PriorityLevel[]).map((l) => s.submit(input(), l)!);
  const order: number[] = [];
  for (let d = s.next(); d.type !== "idle"; d = s.next()) {
    order.push(tasks.indexOf(d.task));
    s.finish(d.task);
  }
  assert.deepEqual(order, [5, 1, 4, 3, 0, 2, 6]);
});

Deno.test("Scheduler resumes the interrupt stack LIFO and never re-sorts it", () => {
  const { s } = scheduler();
  const l0 = s.submit(input(), 0)!;
  s.next();
  const chain = [l0];
  for (const level of [1, 2, 3, 4] as PriorityLevel[]) {
    const t = s.submit(input(), level)!;
    assert.equal(s.preempt()?.task, t);
    chain.push(t);
  }
  assert.deepEqual(s.stack, chain.slice(0, 4), "bottom first, depth bounded by the levels");
  assert.equal(s.stack.length, 4);
  // An L4 cannot be preempted by anything.
  s.submit(input(), 4);
  assert.equal(s.preempt(), undefined);
  const resumed: string[] = [];
  s.finish(chain[4]!);
  // The waiting L4 does not outrank the suspended L3 (promoted to 4 by its preemption).
  for (let d = s.next(); d.type !== "idle"; d = s.next()) {
    resumed.push(`${d.type}:L${d.task.level}`);
    s.finish(d.task);
  }
  assert.deepEqual(resumed, ["resume:L3", "start:L4", "resume:L2", "resume:L1", "resume:L0"]);
});

Deno.test("Scheduler starts a waiting task over the stack top only when it outranks it", () => {
  const { s } = scheduler();
  const a = s.submit(input(), 0)!;
  s.next();
  const b = s.submit(input(), 3)!;
  s.preempt(); // a (eff 1) suspended under b
  const c = s.submit(input(), 2)!; // cannot preempt b
  const d = s.submit(input(), 0)!;
  assert.equal(s.preempt(), undefined);
  s.finish(b);
  assert.deepEqual(s.next(), { type: "start", task: c }, "L2 outranks suspended a (eff 1)");
  s.finish(c);
  assert.deepEqual(s.next(), { type: "resume", task: a }, "a plain input never jumps the stack");
  s.finish(a);
  assert.deepEqual(s.next(), { type: "start", task: d });
});

Deno.test("Scheduler promotes a repeatedly preempted task (starvation guard, capped at L4)", () => {
  const { s } = scheduler({ cooldownMs: 0 });
  const a = s.submit(input(), 1)!;
  s.next();
  const levels: number[] = [effectiveLevel(a)];
  for (let i = 0; i < 4; i++) {
    const by = s.submit(input(), 4)!;
    s.preempt();
    levels.push(effectiveLevel(a));
    s.finish(by);
    assert.equal(taskOf(s.next()), a);
  }
  assert.deepEqual(levels, [1, 2, 3, 3, 3], "level + min(preemptCount, 2)");
  s.submit(input(), 3);
  assert.equal(s.preempt(), undefined, "an L3 no longer preempts the promoted L1");
  assert.equal(effectiveLevel({ level: 3, preemptCount: 5 }), 4);
});

Deno.test("Scheduler holds back preemption during the cooldown after a resume", () => {
  const { s, clock } = scheduler({ cooldownMs: 2000 });
  const a = s.submit(input(), 0)!;
  s.next();
  const b = s.submit(input(), 2)!;
  s.preempt();
  s.finish(b);
  assert.equal(taskOf(s.next()), a);
  s.submit(input(), 3);
  assert.equal(s.preempt(), undefined, "just resumed: cooling down");
  assert.equal(s.cooldownEndsAt(), clock.monotonic() + 2000);
  clock.advance(1999);
  assert.equal(s.preempt(), undefined);
  clock.advance(1);
  assert.equal(s.cooldownEndsAt(), undefined);
  assert.equal(s.preempt()?.suspended, a);
});

Deno.test("Scheduler refuses beyond its capacity and a first run is never cooling down", () => {
  const { s } = scheduler({ capacity: 2 });
  assert.ok(s.submit(input(), 0));
  assert.ok(s.submit(input(), 0));
  assert.equal(s.submit(input(), 4), undefined);
  s.next();
  assert.ok(s.submit(input(), 1), "running tasks do not count against the queue");
  assert.ok(s.preempt(), "no cooldown before any resume");
});

Deno.test("Scheduler stop marks exactly the queued tasks and reports running and suspended", () => {
  const { s } = scheduler();
  const a = s.submit(input(), 0)!;
  s.next();
  const b = s.submit(input(), 1)!;
  s.preempt();
  const q1 = s.submit(input(), 0)!;
  const q2 = s.submit(input(), 2)!;
  const snapshot = s.stop();
  assert.deepEqual(snapshot, { running: b, suspended: [a], queued: [q2, q1] });
  const after = s.submit(input(), 0)!;
  assert.equal(after.stopped, false);
  assert.deepEqual(s.stop().queued, [after], "a second stop marks only the new ones");
});

Deno.test("Scheduler exposes queued plain inputs to triage and lets it take them", () => {
  const { s, clock } = scheduler();
  assert.equal(s.busySince, undefined);
  const running = s.submit(input("qq"), 0)!;
  clock.advance(5);
  s.next();
  assert.equal(s.busySince, 5);
  const plain = [0, 1, 2].map((i) => s.submit(input("qq", `m${i}`), 0)!);
  s.submit(input("timer"), 3);
  assert.deepEqual(s.pendingPlain(), plain);
  const taken = s.take([plain[2]!.input.id, plain[0]!.input.id, "unknown"]);
  assert.deepEqual(taken, [plain[0], plain[2]]);
  assert.deepEqual(s.pendingPlain(), [plain[1]]);
  assert.equal(s.waiting, 2);
  s.finish(running);
  clock.advance(10);
  assert.equal(s.next().type, "start");
  assert.equal(s.busySince, 5, "busy without a break since the first start");
  assert.throws(() => s.finish(plain[0]!), TypeError);
});
