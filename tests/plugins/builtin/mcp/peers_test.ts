/**
 * HomeAgent's MCP server checked by tools others wrote, run as real processes: the official
 * conformance suite (every scenario, against a baseline of known failures) and the MCP
 * inspector CLI.
 */
import assert from "node:assert/strict";
import { peerCommand } from "../../../fixtures/mcp/peers.ts";
import { serveMcp } from "../../../fixtures/mcp/served.ts";

const BASELINE =
  new URL("../../../fixtures/mcp/conformance_baseline.yml", import.meta.url).pathname;
const INSPECTOR = new URL(
  "../../../../node_modules/@modelcontextprotocol/inspector-cli/build/",
  import.meta.url,
).pathname;

async function run(command: string, args: string[], cwd?: string) {
  const out = await new Deno.Command(command, { args, cwd, stdin: "null" }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

Deno.test("The conformance suite passes every scenario but the known, explained failures", async () => {
  await using served = await serveMcp({ bearer: "inject" });
  const output = await Deno.makeTempDir();
  try {
    const { command, args } = peerCommand("conformance", [
      "server",
      "--url",
      served.url,
      "--expected-failures",
      BASELINE,
      "-o",
      output,
    ]);
    const result = await run(command, args);
    const summary = result.stdout.slice(result.stdout.indexOf("=== SUMMARY ==="));
    assert.equal(result.code, 0, `${summary}\n${result.stderr}`);
    assert.match(summary, /✓ server-initialize: 1 passed, 0 failed/);
    assert.match(summary, /✓ tools-list: 1 passed, 0 failed/);
    assert.match(summary, /✓ dns-rebinding-protection: 2 passed, 0 failed/);
    assert.match(summary, /Total: 9 passed, 23 failed/);
  } finally {
    await Deno.remove(output, { recursive: true });
  }
});

/** The inspector CLI against `url` (its build/ folder as the working directory, which it needs). */
function inspect(url: string, args: string[]) {
  const cli = ["run", "-A", "--quiet", "--cached-only", "index.js", url, "--transport", "http"];
  return run(Deno.execPath(), [...cli, ...args], INSPECTOR);
}

Deno.test("The MCP inspector CLI lists and calls HomeAgent's tools over Streamable HTTP", async () => {
  await using served = await serveMcp();
  const auth = ["--header", `Authorization: Bearer ${served.token}`];
  const listed = await inspect(served.url, [...auth, "--method", "tools/list"]);
  assert.equal(listed.code, 0, listed.stderr);
  const chat = JSON.parse(listed.stdout).tools.find((t: { name: string }) => t.name === "chat");
  assert.equal(chat.annotations.readOnlyHint, false);
  const called = await inspect(served.url, [
    ...auth,
    ...["--method", "tools/call", "--tool-name", "chat", "--tool-arg", "text=hello"],
  ]);
  assert.equal(called.code, 0, called.stderr);
  assert.match(JSON.parse(called.stdout).content[0].text, /LLM source|configure/i);
  const refused = await inspect(served.url, ["--method", "tools/list"]);
  assert.notEqual(refused.code, 0, "no token: refused");
});
