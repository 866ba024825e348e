import assert from "node:assert/strict";
import { join } from "node:path";
import { logFileSettings, RotatingLog } from "../../../plugins/guard/log_file.ts";

async function logsDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "homeagent-logs-" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

const line = (i: number) => `{"msg":"line ${String(i).padStart(3, "0")}"}`; // 18 bytes + \n

Deno.test("RotatingLog rotates past its size and keeps only the given number of old files", async () => {
  await using dir = await logsDir();
  const path = join(dir.path, "homeagent.log");
  const errors: string[] = [];
  {
    using log = new RotatingLog({ path, maxBytes: 100, keep: 2, onError: (m) => errors.push(m) });
    for (let i = 0; i < 30; i++) log.write(line(i)); // 19 bytes each: 5 per file
  }
  assert.deepEqual(errors, []);
  const names = [...Deno.readDirSync(dir.path)].map((e) => e.name).sort();
  assert.deepEqual(names, ["homeagent.log", "homeagent.log.1", "homeagent.log.2"]);
  const read = (name: string) => Deno.readTextFileSync(join(dir.path, name)).trim().split("\n");
  assert.deepEqual(read("homeagent.log"), [25, 26, 27, 28, 29].map(line));
  assert.deepEqual(read("homeagent.log.1"), [20, 21, 22, 23, 24].map(line));
  assert.deepEqual(read("homeagent.log.2"), [15, 16, 17, 18, 19].map(line));
  for (const name of names) {
    assert.ok(Deno.statSync(join(dir.path, name)).size <= 100);
    assert.equal(Deno.statSync(join(dir.path, name)).mode! & 0o777, 0o600);
  }
});

Deno.test("RotatingLog appends to the file a previous run left, counting its size", async () => {
  await using dir = await logsDir();
  const path = join(dir.path, "homeagent.log");
  await Deno.writeTextFile(path, `${line(0)}\n${line(1)}\n${line(2)}\n${line(3)}\n`);
  {
    using log = new RotatingLog({ path, maxBytes: 100, keep: 1, onError: () => {} });
    log.write(line(4));
    log.write(line(5)); // 6 × 19 > 100: rotates first
  }
  assert.equal(Deno.readTextFileSync(path), `${line(5)}\n`);
  assert.equal(Deno.readTextFileSync(`${path}.1`).trim().split("\n").length, 5);
});

Deno.test("RotatingLog says once that it cannot write, and writes again once it can", async () => {
  await using dir = await logsDir();
  const folder = join(dir.path, "logs");
  const errors: string[] = [];
  using log = new RotatingLog({
    path: join(folder, "homeagent.log"),
    maxBytes: 1000,
    keep: 1,
    onError: (m) => errors.push(m),
  });
  log.write(line(0)); // the folder is missing
  log.write(line(1));
  assert.equal(errors.length, 1);
  assert.match(errors[0]!, /^Cannot write the log file ".*homeagent\.log": /);
  await Deno.mkdir(folder);
  log.write(line(2));
  assert.equal(Deno.readTextFileSync(join(folder, "homeagent.log")), `${line(2)}\n`);
});

Deno.test("logFileSettings reads the size and count from the environment; 0 MB means no file", () => {
  assert.deepEqual(logFileSettings({}), { maxBytes: 10 * 1024 * 1024, keep: 5 });
  assert.deepEqual(
    logFileSettings({ HOMEAGENT_LOG_FILE_MB: "0.5", HOMEAGENT_LOG_FILE_KEEP: "2" }),
    {
      maxBytes: 524_288,
      keep: 2,
    },
  );
  assert.equal(logFileSettings({ HOMEAGENT_LOG_FILE_MB: "0" }), undefined);
  assert.throws(() => logFileSettings({ HOMEAGENT_LOG_FILE_KEEP: "many" }), RangeError);
});
