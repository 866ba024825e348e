import assert from "node:assert/strict";
import { warmUp } from "../../../memory/embed/_onnx_runner.ts";

Deno.test("warmUp runs short queries only while no request waits, one run at a time", async () => {
  const calls: string[][] = [];
  let waiting = false;
  let inFlight = 0;
  await warmUp(
    async (texts) => {
      inFlight++;
      assert.equal(inFlight, 1);
      calls.push(texts);
      if (calls.length === 3) waiting = true; // a request arrives: the next run is skipped
      await Promise.resolve();
      inFlight--;
    },
    () => {
      if (!waiting) return true;
      waiting = false; // served before the next try
      return false;
    },
    6,
  );
  assert.equal(calls.length, 5); // of 6, the one tried while the request waited was skipped
  assert.ok(calls.every((texts) => texts.length === 1 && texts[0]!.length > 0));
});
