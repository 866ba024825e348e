import assert from "node:assert/strict";
import { type Finding, runChecks } from "../../../../plugins/builtin/healthcheck/checks.ts";
import { Watcher } from "../../../../plugins/builtin/healthcheck/mod.ts";

const limits = { warnMb: 0, failMb: 0 };

Deno.test("runChecks fails a plugin that gave up and the only LLM source that refused its key", async () => {
  const findings = await runChecks({
    kernel: () => ({ state: "idle", pending: 0, capacity: 256, stack: 0 }),
    plugins: () => [
      { name: "cli", state: "running" },
      { name: "qq", state: "failed", error: "Gave up after 4 crashes", crashes: 4 },
    ],
    llm: () => [{ name: "main", model: "m", state: "unusable", lastError: "401" }],
    memory: () => {
      throw new Error("disk on fire");
    },
    disk: Deno.cwd(),
  }, limits);
  const by = (check: string) => findings.filter((f) => f.check === check);
  assert.deepEqual(by("kernel").map((f) => f.status), ["ok"]);
  assert.deepEqual(by("plugins").map((f) => [f.subject, f.status]), [["cli", "ok"], [
    "qq",
    "fail",
  ]]);
  assert.equal(by("llm")[0]!.status, "fail", "no usable source left");
  assert.deepEqual(by("memory"), [{
    check: "memory",
    status: "fail",
    detail: "check failed: disk on fire",
  }]);
  assert.equal(by("tools")[0]!.status, "skip");
  assert.match(by("disk")[0]!.detail, /free of .* at /);
});

Deno.test("runChecks warns and fails on disk space by the configured limits", async () => {
  const disk = async (warnMb: number, failMb: number) =>
    (await runChecks({ disk: Deno.cwd() }, { warnMb, failMb })).find((f) => f.check === "disk")!;
  assert.equal((await disk(1, 0)).status, "ok");
  assert.equal((await disk(1e9, 0)).status, "warn");
  assert.equal((await disk(1e9, 1e9)).status, "fail");
});

Deno.test("Watcher speaks when the problems change and once when all is well again, never else", () => {
  const watch = new Watcher();
  const disk = (free: string, status: Finding["status"] = "warn"): Finding => ({
    check: "disk",
    status,
    detail: `${free} free`,
  });
  const ok: Finding = { check: "kernel", status: "ok", detail: "idle" };
  assert.equal(watch.notice([ok]), undefined, "all well from the start: silence");
  assert.match(
    watch.notice([ok, disk("900 MB")])!,
    /^\[healthcheck\] 1 problem\(s\).*\nwarn disk: 900 MB free$/s,
  );
  assert.equal(watch.notice([ok, disk("850 MB")]), undefined, "the same problem, other numbers");
  const worse = watch.notice([disk("90 MB", "fail")]);
  assert.match(worse!, /fail disk: 90 MB free/);
  assert.equal(watch.notice([disk("80 MB", "fail")]), undefined);
  assert.equal(watch.notice([ok, disk("5 GB", "ok")]), "[healthcheck] All checks pass again.");
  assert.equal(watch.notice([ok]), undefined);
});
