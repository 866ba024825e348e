/**
 * createDaemonClock: the daemon's clock, whose timers of its first seconds run on
 * AbortSignal.timeout rather than Deno's Node setTimeout (node:timers costs the start ~25-35 ms
 * of CPU). Timers fire in order and once, a cancelled one never runs, one that outlives the
 * start window still fires on time, and during the window the global setTimeout is not touched;
 * it is touched (loaded) once the window ends.
 */
import assert from "node:assert/strict";
import { createDaemonClock } from "../../adapters/system_clock.ts";

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("the daemon clock's start timers fire in order, once, and not after cancel", async () => {
  const clock = createDaemonClock({ startMs: 150 });
  const fired: string[] = [];
  clock.setTimer(30, () => fired.push("30"));
  clock.setTimer(10, () => fired.push("10"));
  const cancelled = clock.setTimer(20, () => fired.push("cancelled"));
  cancelled.cancel();
  clock.defer!(() => fired.push("defer"));
  await wait(60);
  assert.deepEqual(fired, ["defer", "10", "30"]);
  await wait(150); // the window's end passes; nothing fires again
  assert.deepEqual(fired, ["defer", "10", "30"]);
});

Deno.test("a daemon clock timer longer than the start window fires on time, and can be cancelled after it", async () => {
  const clock = createDaemonClock({ startMs: 40 });
  const started = performance.now();
  let at = 0;
  clock.setTimer(120, () => at = performance.now() - started);
  let ran = false;
  const later = clock.setTimer(150, () => ran = true);
  await wait(80); // past the window: both are on setTimeout now
  later.cancel();
  await wait(120);
  assert.ok(at >= 119 && at < 400, `fired after ${at} ms`);
  assert.equal(ran, false);
  // After the window the clock is systemClock's setTimeout.
  let after = false;
  clock.setTimer(5, () => after = true);
  await wait(40);
  assert.equal(after, true);
});

Deno.test("the daemon clock leaves the global setTimeout untouched during its start window", async () => {
  // A fresh process: the test runner has loaded node:timers long ago.
  const script = `
    const d = Object.getOwnPropertyDescriptor(globalThis, "setTimeout");
    const touched = [];
    Object.defineProperty(globalThis, "setTimeout", {
      configurable: true,
      get() { touched.push(Math.round(performance.now() - t0)); return d.get.call(globalThis); },
    });
    const t0 = performance.now();
    const { createDaemonClock } = await import(${JSON.stringify(clockUrl())});
    const clock = createDaemonClock({ startMs: 300 });
    const fired = [];
    clock.setTimer(20, () => fired.push("timer"));
    clock.setTimer(50, () => fired.push("cancelled")).cancel();
    clock.defer(() => fired.push("defer"));
    await new Promise((r) => clock.setTimer(100, r));
    const during = touched.length;
    await new Promise((r) => AbortSignal.timeout(400).onabort = r);
    console.log(JSON.stringify({ fired, during, after: touched.length }));
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const result = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.deepEqual(result.fired, ["defer", "timer"]);
  assert.equal(result.during, 0, "setTimeout touched during the start window");
  assert.ok(result.after > 0, "setTimeout loaded once the window ended");
});

function clockUrl(): string {
  return new URL("../../adapters/system_clock.ts", import.meta.url).href;
}
