import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { QUIET_ENV, startServe } from "../fakes/daemon.ts";
import { hasScript, runInTerminal } from "../fakes/terminal.ts";

async function tempHome(): Promise<string & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-repl-" });
  return Object.assign(dir, {
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  }) as string & AsyncDisposable;
}

/** A daemon in a fresh home whose fake model answers each message with "You said: …". */
async function echoingDaemon() {
  const stack = new AsyncDisposableStack();
  const server = stack.use(startFakeOpenAI({
    fallback: (request) => reply.text(`You said: ${request.body.messages.at(-1)!.content}`),
  }));
  const home = stack.use(await tempHome());
  stack.use(
    await startServe(`${home}`, {
      HOMEAGENT_LLM_BASE_URL: server.url,
      HOMEAGENT_LLM_MODEL: "fake-model",
    }),
  );
  return { server, home: `${home}`, [Symbol.asyncDispose]: () => stack.disposeAsync() };
}

const LONG = "word ".repeat(400);
const slow = () => reply.slowText(LONG, { chunkDelayMs: 20, chunkSize: 5 });

Deno.test({
  name:
    "REPL on a terminal: /stop typed during a reply stands on its own line; Ctrl-C stops; Ctrl-D leaves with a newline",
  ignore: !hasScript,
  async fn() {
    await using server = startFakeOpenAI({ fallback: slow });
    await using home = await tempHome();
    await using _daemon = await startServe(`${home}`, {
      HOMEAGENT_LLM_BASE_URL: server.url,
      HOMEAGENT_LLM_MODEL: "fake-model",
    });
    await using term = runInTerminal(["chat", "--home", `${home}`]);
    let at = await term.waitFor(/leaves\.\n> $/);
    await term.type("talk for a long time\r");
    at = await term.waitFor(/word word word /, { from: at });
    await term.type("/stop\r");
    at = await term.waitFor(/\[stopped\]\n> $/, { from: at });
    await term.type("and again\r");
    at = await term.waitFor(/word word word /, { from: at });
    await term.type("\x03"); // Ctrl-C
    at = await term.waitFor(/\[stopped\]\n> $/, { from: at });
    await term.type("once more\r");
    await term.waitFor(/word word word /, { from: at });
    await term.type("\x04"); // Ctrl-D while the reply streams
    assert.equal(await term.exit(), 0);
    const screen = term.screen();
    assert.match(screen, /\n> \/stop\n/, "the typed /stop has a line of its own");
    assert.doesNotMatch(screen, /word \/stop|word> /, "nothing glued to the reply");
    assert.match(screen, /\n$/, "the shell's prompt will start on a fresh line");
    assert.doesNotMatch(screen, /error|Error|\n\s+at /);
    assert.equal(screen.match(/\[stopped\]/g)?.length, 2);
  },
});

Deno.test("REPL on piped stdin: /stop stops, EOF waits for the reply and ends with exit 0", async () => {
  await using daemon = await echoingDaemon();
  const { server } = daemon;
  server.enqueue(slow());
  const child = spawnRepl(daemon.home);
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("talk for a long time\n"));
  await server.waitForRequests(1, 10_000);
  await writer.write(new TextEncoder().encode("/stop\nhello\n"));
  await writer.close();
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(stdout, /^(word )*\n?\[stopped\]\nYou said: hello\n$/);
  assert.equal(new TextDecoder().decode(out.stderr), "");
});

Deno.test("REPL on piped stdin: an unknown /command is told, not sent; //… sends a line with its /", async () => {
  await using daemon = await echoingDaemon();
  const { server } = daemon;
  const child = spawnRepl(daemon.home);
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("/stpo\n//usr is a folder\n"));
  await writer.close();
  const out = await child.output();
  assert.equal(out.code, 0);
  assert.equal(new TextDecoder().decode(out.stdout), "You said: /usr is a folder\n");
  assert.equal(
    new TextDecoder().decode(out.stderr),
    "Unknown command /stpo; /help lists them (//… sends it as a message)\n",
  );
  assert.equal(server.requests.length, 1, "the typo never reached the model");
});

Deno.test("REPL ends with one error line when the daemon goes away under it", async () => {
  await using home = await tempHome();
  const daemon = await startServe(`${home}`);
  const child = spawnRepl(`${home}`);
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("/help\n"));
  // The help line shows the REPL is connected; only then does the daemon go.
  const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let shown = "";
  while (!shown.includes("\n")) shown += (await stdout.read()).value ?? "";
  assert.match(shown, /^Type a message/);
  await daemon.stop();
  const status = await child.status; // stdin is still open: the REPL must notice on its own
  await writer.close().catch(() => {});
  while (!(await stdout.read()).done);
  assert.equal(status.code, 1);
  assert.equal(
    await new Response(child.stderr).text(),
    "error: The daemon closed the connection (was it stopped?)\n",
  );
});

function spawnRepl(home: string): Deno.ChildProcess {
  const main = new URL("../../main.ts", import.meta.url).pathname;
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", main, "chat", "--home", home],
    env: QUIET_ENV,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}
