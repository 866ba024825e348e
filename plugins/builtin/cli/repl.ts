/** The interactive `homeagent chat` REPL: type to talk, `/stop` stops the reply, Ctrl-D leaves. */
import { CliClient } from "./client.ts";
import { readLines } from "./protocol.ts";

const encoder = new TextEncoder();

/** Terminal streams the REPL reads and writes; injectable for tests. */
export interface ReplIo {
  stdin: ReadableStream<Uint8Array>;
  write(text: string): void;
  error(text: string): void;
  isTerminal: boolean;
}

/** The process's own terminal. */
export function processIo(): ReplIo {
  return {
    stdin: Deno.stdin.readable,
    write: (text) => void Deno.stdout.writeSync(encoder.encode(text)),
    error: (text) => void Deno.stderr.writeSync(encoder.encode(text)),
    isTerminal: Deno.stdin.isTerminal(),
  };
}

const HELP =
  "Type a message and press Enter. /stop stops the current reply; /exit or Ctrl-D leaves.\n";

/** Run the REPL until stdin ends; returns the exit code. */
export async function runRepl(client: CliClient, io: ReplIo): Promise<number> {
  let busy = 0;
  let idle: (() => void) | undefined;
  const prompt = () => {
    if (io.isTerminal && busy === 0) io.write("> ");
  };
  const frames = (async () => {
    let streamed = false;
    for (let frame = await client.next(); frame; frame = await client.next()) {
      switch (frame.type) {
        case "delta":
          if (frame.reset && streamed) io.write("\n[source changed; reply restarted]\n");
          if (frame.text) {
            io.write(frame.text);
            streamed = true;
          }
          break;
        case "tool":
          if (frame.phase === "start") io.error(`[tool ${frame.name}]\n`);
          break;
        case "message":
          io.write(`\n${frame.text}\n`);
          break;
        case "reply":
          busy = Math.max(0, busy - 1);
          if (frame.status === "stopped") io.write(streamed ? "\n[stopped]\n" : "[stopped]\n");
          else if (frame.status === "ok" || frame.status === "short_circuit") {
            io.write(streamed ? "\n" : `${frame.text}\n`);
          } else io.error(`${streamed ? "\n" : ""}${frame.text}\n`);
          streamed = false;
          prompt();
          if (busy === 0) idle?.();
          break;
        case "stopped":
          if (!frame.wasRunning && frame.queued + frame.suspended === 0) {
            io.error("Nothing to stop.\n");
          }
          break;
        case "error":
          io.error(`${frame.message}\n`);
          break;
      }
    }
  })();

  if (io.isTerminal) io.write(HELP);
  prompt();
  for await (const raw of readLines(io.stdin)) {
    const line = raw.trim();
    if (line === "/exit" || line === "/quit") break;
    if (line === "/help") {
      io.write(HELP);
      prompt();
    } else if (line === "/stop") await client.send({ type: "stop" });
    else if (line !== "") {
      busy++;
      await client.send({ type: "chat", text: line });
    } else prompt();
  }
  // Stdin ended (piped input or Ctrl-D): let replies still streaming finish first.
  if (busy > 0) await Promise.race([frames, new Promise<void>((resolve) => idle = resolve)]);
  client.close();
  await frames.catch(() => {});
  return 0;
}
