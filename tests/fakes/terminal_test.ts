/** The terminal fake itself: a pattern the screen never shows fails the wait, it does not hang. */
import assert from "node:assert/strict";
import { hasScript, runInTerminal } from "./terminal.ts";

Deno.test({
  name: "runInTerminal: a missed pattern rejects at its timeout while the program still runs",
  ignore: !hasScript,
  async fn() {
    // serve keeps running on its terminal; the old wait read the program's stderr, which ends
    // only with the program, before it could reject.
    const home = await Deno.makeTempDir({ prefix: "homeagent-term-" });
    try {
      await using term = runInTerminal(["serve", "--home", home, "--port", "0"]);
      await assert.rejects(term.waitFor(/never shown/, { timeoutMs: 1500 }), /never showed/);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});
