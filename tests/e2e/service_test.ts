import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain } from "../fakes/daemon.ts";

Deno.test("service install --user writes the unit for this home and port and prints how to start it; uninstall removes it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-service-" });
  try {
    const home = join(dir, "home");
    const env = { XDG_CONFIG_HOME: join(dir, "config") };
    const unit = join(dir, "config/systemd/user/homeagent.service");
    const set = await runMain(["config", "set", "core.web.port", "7811", "--home", home]);
    assert.equal(set.code, 0, set.stderr);

    const installed = await runMain(["service", "install", "--user", "--home", home], { env });
    assert.equal(installed.code, 0, installed.stderr);
    assert.equal(
      installed.stdout,
      `Wrote ${unit}\n` +
        `API keys go in ${home}/service.env (created, mode 0600)\n` +
        "Start it now and at every boot:\n" +
        "  systemctl --user daemon-reload && systemctl --user enable --now homeagent\n" +
        "  loginctl enable-linger $USER\n",
    );
    const text = await Deno.readTextFile(unit);
    const main = new URL("../../main.ts", import.meta.url).pathname;
    assert.match(
      text,
      new RegExp(
        `\nExecStart=${Deno.execPath()} run --config=\\S+/deno.json --allow-read .* ${main} serve --home ${home} --port 7811\n`,
      ),
    );
    assert.equal((await Deno.stat(join(home, "service.env"))).mode! & 0o777, 0o600);

    const removed = await runMain(["service", "uninstall", "--user", "--home", home], { env });
    assert.equal(removed.code, 0, removed.stderr);
    await assert.rejects(Deno.stat(unit), Deno.errors.NotFound);

    const usage = await runMain(["service", "start", "--home", home], { env });
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /^error: Usage: .* service install \[--user\]/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
