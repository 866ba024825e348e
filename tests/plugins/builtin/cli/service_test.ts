import assert from "node:assert/strict";
import { join } from "node:path";
import {
  BUNDLE_FLAGS,
  DAEMON_PERMISSIONS,
  installService,
  type LaunchFacts,
  serviceCommand,
  type ServiceTarget,
  serviceTarget,
  systemdVersion,
  uninstallService,
  unitText,
} from "../../../../plugins/mod.ts";
import denoJson from "../../../../deno.json" with { type: "json" };

const facts = (over: Partial<LaunchFacts> = {}): LaunchFacts => ({
  execPath: "/opt/deno/bin/deno",
  repo: "/src/homeagent",
  cwd: "/",
  path: "/usr/bin",
  isExecutable: () => false,
  ...over,
});

const userTarget = (dir: string, home = join(dir, "home")): ServiceTarget => ({
  scope: "user",
  unitDir: join(dir, "systemd", "user"),
  envFile: join(home, "service.env"),
  home,
});

Deno.test("unitText writes a user unit that restarts with a backoff and keeps keys out of the unit", () => {
  const target = userTarget("/home/ann/.config", "/home/ann/.homeagent");
  const text = unitText(target, {
    command: ["/usr/local/bin/homeagent", "serve"],
    port: 7800,
    systemd: 256,
  });
  assert.equal(
    text,
    `# Written by \`homeagent service install\`; \`homeagent service uninstall\` removes it.
[Unit]
Description=HomeAgent, a personal AI agent daemon
After=network-online.target
Wants=network-online.target
StartLimitIntervalSec=0

[Service]
Type=simple
WorkingDirectory=/home/ann/.homeagent
ExecStart=/usr/local/bin/homeagent serve --home /home/ann/.homeagent --port 7800
EnvironmentFile=-/home/ann/.homeagent/service.env
Environment=NO_COLOR=1
UMask=0077
Restart=on-failure
RestartSec=5s
RestartSteps=10
RestartMaxDelaySec=5min
KillSignal=SIGTERM
KillMode=mixed
TimeoutStopSec=30s

[Install]
WantedBy=default.target
`,
  );
});

Deno.test("unitText: a system unit runs as its account; old systemd gets a fixed delay; odd paths are quoted", () => {
  const text = unitText({
    scope: "system",
    unitDir: "/etc/systemd/system",
    envFile: "/etc/homeagent/service.env",
    user: "ann",
    home: "/srv/agent 100%",
  }, { command: ["/opt/ha/homeagent", "serve"], port: 8080, host: "0.0.0.0", systemd: 252 });
  const lines = text.split("\n");
  assert.ok(lines.includes("User=ann"));
  assert.ok(lines.includes("NoNewPrivileges=yes"));
  assert.ok(lines.includes("WantedBy=multi-user.target"));
  assert.ok(lines.includes("RestartSec=10s"));
  assert.ok(!text.includes("RestartSteps"), "systemd 252 would warn about RestartSteps");
  assert.ok(lines.includes("WorkingDirectory=/srv/agent 100%%"));
  assert.ok(
    lines.includes(
      'ExecStart=/opt/ha/homeagent serve --home "/srv/agent 100%%" --port 8080 --host 0.0.0.0',
    ),
  );
  assert.ok(lines.includes("EnvironmentFile=-/etc/homeagent/service.env"));
});

Deno.test("serviceCommand runs what is installed: the binary, the bundle without config, the checkout with its deno.json", () => {
  assert.deepEqual(serviceCommand(facts({ execPath: "/opt/ha/homeagent" })), [
    "/opt/ha/homeagent",
    "serve",
  ]);
  assert.deepEqual(serviceCommand(facts({ bundle: "/opt/ha/homeagent.js" })), [
    "/opt/deno/bin/deno",
    "run",
    "--no-config",
    "--unstable-no-legacy-abort",
    ...DAEMON_PERMISSIONS,
    "/opt/ha/homeagent.js",
    "serve",
  ]);
  assert.deepEqual(serviceCommand(facts()), [
    "/opt/deno/bin/deno",
    "run",
    "--config=/src/homeagent/deno.json",
    ...DAEMON_PERMISSIONS,
    "/src/homeagent/main.ts",
    "serve",
  ]);
});

Deno.test("The service runs the daemon with the permissions of `deno task start`", () => {
  // The task's last command is serve (the first brings the agent build cache up to date).
  const start = denoJson.tasks.start.split("; ").at(-1)!.split(" ");
  assert.equal(start.at(-1), "serve");
  assert.deepEqual(start.filter((word) => word.startsWith("--allow-")), DAEMON_PERMISSIONS);
});

Deno.test("A bundle runs with deno.json's unstable features as flags (raw imports are inlined)", () => {
  const wanted = denoJson.unstable.filter((f) => f !== "raw-imports").map((f) => `--unstable-${f}`);
  assert.deepEqual(BUNDLE_FLAGS.filter((flag) => flag.startsWith("--unstable-")), wanted);
});

Deno.test("installService writes the unit 0644 and a new environment file 0600; a reinstall keeps the keys", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const target = userTarget(dir);
    const spec = { command: ["/usr/bin/homeagent", "serve"], port: 7800 };
    const first = await installService(target, spec);
    assert.equal(first.unitFile, join(dir, "systemd/user/homeagent.service"));
    assert.equal(first.envCreated, true);
    assert.equal((await Deno.stat(first.unitFile)).mode! & 0o777, 0o644);
    assert.equal((await Deno.stat(target.envFile)).mode! & 0o777, 0o600);
    assert.deepEqual(first.next, [
      "systemctl --user daemon-reload && systemctl --user enable --now homeagent",
      "loginctl enable-linger $USER",
    ]);
    await Deno.writeTextFile(target.envFile, "HOMEAGENT_LLM_API_KEY=sk-1\n");
    await Deno.chmod(target.envFile, 0o644);
    const second = await installService(target, { ...spec, port: 7900 });
    assert.equal(second.envCreated, false);
    assert.equal(await Deno.readTextFile(target.envFile), "HOMEAGENT_LLM_API_KEY=sk-1\n");
    assert.equal((await Deno.stat(target.envFile)).mode! & 0o777, 0o600, "tightened");
    assert.match(await Deno.readTextFile(second.unitFile), /--port 7900\n/);
    assert.deepEqual([...Deno.readDirSync(target.unitDir)].map((e) => e.name), [
      "homeagent.service",
    ]);
    // A program that exists, for the systemd of this machine.
    const real = await installService(target, {
      command: [Deno.execPath(), "serve"],
      port: 7800,
      systemd: await systemdVersion(),
    });
    await verifyWithSystemd(real.unitFile);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** systemd's own parser, where this machine has it (it reads the file; no manager involved). */
async function verifyWithSystemd(unitFile: string): Promise<void> {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command("systemd-analyze", { args: ["verify", unitFile] }).output();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  const errors = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, errors);
  assert.doesNotMatch(errors, /Unknown key|Invalid|Failed/, errors);
}

Deno.test("installService and uninstallService leave a unit they did not write alone", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const target = userTarget(dir);
    await Deno.mkdir(target.unitDir, { recursive: true });
    const foreign = join(target.unitDir, "homeagent.service");
    await Deno.writeTextFile(foreign, "[Service]\nExecStart=/bin/true\n");
    const spec = { command: ["/usr/bin/homeagent", "serve"], port: 7800 };
    await assert.rejects(installService(target, spec), /was not written by homeagent service/);
    await assert.rejects(uninstallService(target), /was not written by homeagent service/);
    assert.equal(await Deno.readTextFile(foreign), "[Service]\nExecStart=/bin/true\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("uninstallService removes the unit and its enablement link and keeps the keys", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const target = userTarget(dir);
    const installed = await installService(target, {
      command: ["/usr/bin/homeagent", "serve"],
      port: 7800,
    });
    // What `systemctl --user enable` makes.
    await Deno.mkdir(join(target.unitDir, "default.target.wants"));
    await Deno.symlink(
      installed.unitFile,
      join(target.unitDir, "default.target.wants/homeagent.service"),
    );
    const removed = await uninstallService(target);
    assert.deepEqual(removed.next, [
      "systemctl --user stop homeagent; systemctl --user daemon-reload",
    ]);
    assert.deepEqual([...Deno.readDirSync(join(target.unitDir, "default.target.wants"))], []);
    await assert.rejects(Deno.stat(installed.unitFile), Deno.errors.NotFound);
    assert.ok((await Deno.stat(target.envFile)).isFile);
    await assert.rejects(uninstallService(target), /No HomeAgent unit at/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serviceTarget: a user unit under XDG_CONFIG_HOME; a system unit only as root, for the account that called sudo", async () => {
  const base = { home: "/home/ann/.homeagent", homeNamed: false, uid: 1000 };
  assert.deepEqual(
    await serviceTarget({ ...base, user: true, env: { XDG_CONFIG_HOME: "/x", HOME: "/home/ann" } }),
    {
      scope: "user",
      unitDir: "/x/systemd/user",
      envFile: "/home/ann/.homeagent/service.env",
      home: "/home/ann/.homeagent",
    },
  );
  assert.equal(
    (await serviceTarget({ ...base, user: true, env: { HOME: "/home/ann" } })).unitDir,
    "/home/ann/.config/systemd/user",
  );
  await assert.rejects(serviceTarget({ ...base, user: false, env: {} }), /needs root/);
  const root = { ...base, uid: 0, home: "/root/.homeagent", user: false };
  await assert.rejects(serviceTarget({ ...root, env: {} }), /never runs as root/);
  await assert.rejects(
    serviceTarget({ ...root, env: { SUDO_USER: "root" } }),
    /never runs as root/,
  );
  const passwd = () =>
    Promise.resolve("root:x:0:0:root:/root:/bin/bash\nann:x:1000:1000:Ann:/home/ann:/bin/bash\n");
  assert.deepEqual(await serviceTarget({ ...root, env: { SUDO_USER: "ann" }, passwd }), {
    scope: "system",
    unitDir: "/etc/systemd/system",
    envFile: "/etc/homeagent/service.env",
    user: "ann",
    home: "/home/ann/.homeagent",
  });
  assert.equal(
    (await serviceTarget({
      ...root,
      home: "/srv/agent",
      homeNamed: true,
      env: { SUDO_USER: "ann" },
      passwd,
    })).home,
    "/srv/agent",
  );
  await assert.rejects(
    serviceTarget({ ...root, env: { SUDO_USER: "bob" }, passwd }),
    /No account "bob"/,
  );
});
