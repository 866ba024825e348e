/**
 * The daemon (`main.ts serve`) against a plugin that stops reading stdin and floods stderr and
 * stdout (tests/fixtures/plugins/flood): it is disconnected, restarted on the schedule and given
 * up on, while the daemon's memory and its log stay bounded. Counts, not times, are asserted.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain, startServe } from "../../fakes/daemon.ts";
import { copyFixture } from "./_support.ts";

/** A field of /proc/PID/status in MB (VmRSS, VmHWM = peak RSS). */
async function procMb(pid: number, field: "VmRSS" | "VmHWM"): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1]);
  return kb / 1024;
}

async function pluginState(home: string, name: string) {
  const status = await runMain(["status", "--home", home]);
  if (status.code !== 0) return undefined;
  const plugins = JSON.parse(status.stdout).plugins as { name: string; state: string }[];
  return plugins.find((p) => p.name === name);
}

Deno.test({
  name:
    "Daemon: a flooding plugin that stops reading is cut and given up on; RSS and log stay bounded",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const home = await Deno.makeTempDir({ prefix: "homeagent-flood-" });
    try {
      await copyFixture(join(home, "plugins"), "flood");
      await using daemon = await startServe(home);
      let state: { state: string; error?: string } | undefined;
      for (let i = 0; i < 120 && state?.state !== "failed"; i++) {
        state = await pluginState(home, "flood");
        if (state?.state !== "failed") await new Promise((r) => setTimeout(r, 500));
      }
      assert.equal(state?.state, "failed", JSON.stringify(state));
      assert.match(state!.error!, /^Gave up after 4 crashes in 5 minutes \(last: disconnected: /);
      const peakMb = await procMb(await daemon.agentPid(), "VmHWM");
      const { stderr, code } = await daemon.stop();
      assert.equal(code, 0);

      const lines = stderr.trim().split("\n").map((l) => JSON.parse(l));
      const flood = lines.filter((l) => l.plugin === "flood");
      const relogged = flood.filter((l) => l.stream === "stderr");
      const summaries = flood.filter((l) =>
        /more (stderr lines|protocol errors) suppressed/.test(l.msg)
      );
      const cut = flood.filter((l) => l.msg === "Plugin disconnected");
      // Four starts, each cut after 1,001 bad frames: at most 100 stderr lines and 20 protocol
      // errors logged per start, and the rest counted.
      assert.equal(cut.length, 4);
      assert.ok(relogged.length <= 400, `${relogged.length} stderr lines re-logged`);
      assert.ok(summaries.length >= 4 && summaries.length <= 8, `${summaries.length} summaries`);
      assert.ok(
        summaries.some((l) => l.suppressed >= 10_000),
        "a flood is one line with its count",
      );
      assert.ok(lines.length < 1000, `the daemon logged ${lines.length} lines`);
      assert.ok(stderr.length < 1024 * 1024, `the daemon logged ${stderr.length} bytes`);
      // The plugin wrote 100,000 stderr lines and 1,000,000 garbage frames per start; answered
      // and buffered, that grew the daemon past 1 GB.
      assert.ok(peakMb < 300, `peak RSS ${peakMb.toFixed(0)} MB`);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});
