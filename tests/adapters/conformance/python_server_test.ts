/**
 * The same fixtures served by an independent server in another language
 * (tests/fixtures/wire_server.py, Python's standard library): its own fixture parser, cuts,
 * PRNG and HTTP framing. Skipped when python3 is not on PATH.
 */
import { fileURLToPath } from "node:url";
import { CLIENTS } from "./_clients.ts";
import { loadFamily, WIRE_DIR } from "./_fixtures.ts";
import { chatted, check, REQUEST, streamed } from "./_harness.ts";

const SERVER = fileURLToPath(new URL("../../fixtures/wire_server.py", import.meta.url));

/** A few framings per fixture: the other server's own random cuts, every transfer encoding. */
const PLANS = [
  { split: "events", transfer: "chunked" },
  { split: "whole", transfer: "close" },
  { split: "random", seed: 1, transfer: "chunked" },
  { split: "random", seed: 2, transfer: "length" },
  { split: "random", seed: 3, transfer: "close" },
  { split: "random", seed: 4, transfer: "chunked" },
];

function hasPython(): boolean {
  try {
    return new Deno.Command("python3", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

/** Start the Python server; resolves with its base URL once it printed its port. */
async function startPythonServer() {
  const child = new Deno.Command("python3", {
    args: [SERVER, WIRE_DIR],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) throw new Error("wire_server.py ended before printing its port");
    first += value;
  }
  const url = `http://127.0.0.1:${Number(first.trim())}`;
  return {
    url,
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await lines.cancel();
      await child.status;
    },
  };
}

Deno.test({
  name: "Wire conformance: every client reads every fixture from an independent Python server",
  ignore: !hasPython(),
  async fn() {
    await using server = await startPythonServer();
    const next = async (plan: Record<string, unknown>) => {
      const response = await fetch(`${server.url}/__next`, {
        method: "POST",
        body: JSON.stringify(plan),
      });
      await response.body?.cancel();
    };
    for (const target of CLIENTS) {
      const provider = target.build(server.url);
      for (const family of target.families) {
        for (const fixture of loadFamily(family)) {
          for (const plan of PLANS) {
            const where = `${target.adapter} ${family}/${fixture.name} python ${
              JSON.stringify(plan)
            }`;
            await next({ family, case: fixture.name, ...plan });
            check(await streamed(provider.stream(REQUEST)), fixture.expected, where);
            if (!fixture.json) continue;
            await next({ family, case: fixture.name, ...plan });
            check(await chatted(() => provider.chat(REQUEST)), fixture.expected, `${where} chat()`);
          }
        }
      }
    }
  },
});
