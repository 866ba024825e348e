import assert from "node:assert/strict";
import { createProgressBar } from "../../../memory/cli/_progress.ts";

Deno.test("createProgressBar redraws one terminal line, at most ten times a second", () => {
  let now = 0;
  const out: string[] = [];
  const bar = createProgressBar("model", {
    write: (t) => out.push(t),
    isTerminal: true,
    now: () => now,
  });
  bar.update(0, 4 * 2 ** 20);
  now = 50;
  bar.update(2 ** 20, 4 * 2 ** 20); // too soon: not drawn
  now = 1000;
  bar.update(2 * 2 ** 20, 4 * 2 ** 20);
  bar.done();
  assert.equal(out.length, 4); // two updates, the final draw, the newline
  assert.match(out[1]!, /^\rmodel \[#{15} {15}\] 50% 2\.0\/4\.0 MiB 2\.0 MiB\/s$/);
  assert.equal(out.at(-1), "\n");
  assert.ok(out.slice(0, -1).every((line) => !line.includes("\n")));
});

Deno.test("createProgressBar prints a plain line per tenth when not a terminal", () => {
  const out: string[] = [];
  const bar = createProgressBar("model", { write: (t) => out.push(t), isTerminal: false });
  for (let bytes = 0; bytes <= 1000; bytes += 50) bar.update(bytes, 1000);
  bar.done();
  assert.equal(out.length, 11);
  assert.equal(out[0], "model: 0% (0.0/0.0 MiB)\n");
  assert.match(out.at(-1)!, /^model: 100% /);
});
