import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { type CommandResult, QUIET_ENV } from "../fakes/daemon.ts";

const REPO = dirname(new URL("../../main.ts", import.meta.url).pathname);
/** A PATH with deno on it and nothing else of this machine's (no homeagent already installed). */
const DENO_ONLY = `${dirname(Deno.execPath())}:/usr/bin:/bin`;
/** What a shell outside `deno task` has: no task caller folder. */
const SHELL_ENV = { ...QUIET_ENV, "npm_config_user_agent": "", PATH: DENO_ONLY };

async function tempDir(prefix: string): Promise<string & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix });
  return Object.assign(dir, {
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  }) as string & AsyncDisposable;
}

async function run(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<CommandResult> {
  const out = await new Deno.Command(command, { args, ...options, stdin: "null" }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

Deno.test("deno task install puts a working homeagent on PATH, and every hint names it", async () => {
  await using root = await tempDir("homeagent-install-");
  await using home = await tempDir("homeagent-install-home-");
  const install = await run(Deno.execPath(), ["task", "install"], {
    cwd: REPO,
    env: { ...SHELL_ENV, DENO_INSTALL_ROOT: `${root}` },
  });
  assert.equal(install.code, 0, install.stderr);
  const env = { ...SHELL_ENV, PATH: `${root}/bin:${DENO_ONLY}` };
  const homeagent = (...args: string[]) => run("homeagent", args, { cwd: `${root}`, env });

  const help = await homeagent("--help");
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Usage: homeagent <command> \[options\]\n/);
  const none = await homeagent("status", "--home", `${home}`);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /^error: No HomeAgent daemon is running for home ".*"/);
  assert.match(none.stderr, /start one with `homeagent serve`/);
  const unknown = await homeagent("config", "set", "core.zzzz.qqqq", "1", "--home", `${home}`);
  assert.match(unknown.stderr, /run "homeagent config list" to see the known keys/);
  const usage = await homeagent("config", "get", "--home", `${home}`);
  assert.equal(usage.stderr, "error: Usage: homeagent config get KEY [--reveal]\n");

  const serve = new Deno.Command("homeagent", {
    args: ["serve", "--home", `${home}`, "--port", "0"],
    cwd: `${root}`,
    env,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    const reader = serve.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const { value } = await reader.read();
    assert.match(value ?? "", /^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    reader.releaseLock();
    const status = await homeagent("status", "--home", `${home}`);
    assert.equal(status.code, 0, status.stderr);
    assert.equal(JSON.parse(status.stdout).home, `${home}`);
    const chat = await homeagent("chat", "--home", `${home}`, "hello");
    assert.equal(chat.code, 1);
    assert.match(chat.stderr, /before `homeagent serve`, or run `homeagent config set core\.llm/);
  } finally {
    serve.kill("SIGTERM");
    await serve.stdout.cancel().catch(() => {});
    await serve.status;
  }
});

Deno.test("Without an installed homeagent, hints name deno task in the checkout and main.ts's path elsewhere", async () => {
  await using home = await tempDir("homeagent-hints-");
  const main = join(REPO, "main.ts");
  const direct = (cwd: string, ...args: string[]) =>
    run(Deno.execPath(), ["run", "-A", "--quiet", main, ...args], { cwd, env: SHELL_ENV });
  const inside = await direct(join(REPO, "memory"), "status", "--home", `${home}`);
  assert.match(inside.stderr, /start one with `deno task homeagent serve`/);
  const outside = await direct(`${home}`, "status", "--home", `${home}`);
  assert.match(outside.stderr, new RegExp(`start one with \`deno run -A ${main} serve\``));
  const usage = await direct(`${home}`, "memory");
  assert.match(usage.stderr, new RegExp(`^error: Usage: deno run -A ${main} memory stats`));

  // `deno task homeagent` from a folder inside the checkout: a relative --home is read from there.
  // A fresh environment, as a shell has it: deno task sets INIT_CWD only when it is not set.
  const fresh: Record<string, string> = { HOME: Deno.env.get("HOME") ?? "/" };
  if (Deno.env.get("DENO_DIR")) fresh.DENO_DIR = Deno.env.get("DENO_DIR")!;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "homeagent", "status", "--home", "nowhere"],
    cwd: join(REPO, "memory"),
    clearEnv: true,
    env: { ...fresh, NO_COLOR: "1", HOMEAGENT_RUNTIME_DIR: "", PATH: DENO_ONLY },
  }).output();
  const task = { stderr: new TextDecoder().decode(out.stderr) };
  assert.match(task.stderr, new RegExp(`for home "${join(REPO, "memory", "nowhere")}"`));
  assert.match(task.stderr, /start one with `deno task homeagent serve`/);
});
