import assert from "node:assert/strict";
import { cleanOutput, OutputRing } from "../../../../plugins/builtin/agentcli/output.ts";
import { keyBytes } from "../../../../plugins/builtin/agentcli/keys.ts";

Deno.test("OutputRing keeps the newest bytes up to its capacity and says what was dropped", () => {
  const ring = new OutputRing(128 * 1024);
  for (let i = 0; i < 300; i++) ring.push(`${String(i).padStart(4, "0")} ${"x".repeat(1018)}\n`);
  assert.equal(ring.end, 300 * 1024);
  assert.ok(ring.end - ring.start <= 128 * 1024);
  const all = ring.since(0);
  assert.equal(all.dropped, ring.start);
  assert.equal(new TextEncoder().encode(all.text).length, all.to - all.from);
  assert.match(all.text, /^0172 /, "whole chunks go first");
  assert.match(all.text, /0299 x+\n$/);
  const tail = ring.since(ring.end - 1024);
  assert.deepEqual([tail.dropped, tail.text.slice(0, 5)], [0, "0299 "]);
  ring.push("y".repeat(200 * 1024));
  assert.equal(ring.end - ring.start, 128 * 1024, "a chunk past the capacity keeps its tail");
  assert.equal(ring.since(0).text, "y".repeat(128 * 1024));
});

Deno.test("OutputRing counts UTF-8 bytes and cuts inside a chunk at a byte offset", () => {
  const ring = new OutputRing(64);
  ring.push("héllo ");
  ring.push("wörld");
  assert.equal(ring.end, 7 + 6);
  assert.equal(ring.since(7).text, "wörld");
  assert.equal(ring.since(3).text, "llo wörld");
});

Deno.test("cleanOutput strips ANSI and applies carriage returns and backspaces", () => {
  assert.equal(
    cleanOutput("\x1b[?2004hbash-5.2$ ls\r\n\x1b[01;34mdir\x1b[0m  file\r\n"),
    "bash-5.2$ ls\ndir  file\n",
  );
  assert.equal(cleanOutput("progress 10%\rprogress 55%\rprogress 100%\n"), "progress 100%\n");
  assert.equal(cleanOutput("abcdef\rXY\n"), "XYcdef\n", "a return writes over, it does not erase");
  assert.equal(cleanOutput("pythoo\b \bn3\x07\n"), "python3\n");
  assert.equal(cleanOutput("\x1b]0;title\x07prompt> "), "prompt> ");
});

Deno.test("keyBytes knows the named keys and ctrl-letters, and names them when it does not", () => {
  assert.equal(keyBytes("enter"), "\r");
  assert.equal(keyBytes("ctrl-c"), "\x03");
  assert.equal(keyBytes("Ctrl+D"), "\x04");
  assert.equal(keyBytes("^Z"), "\x1a");
  assert.equal(keyBytes("up"), "\x1b[A");
  assert.equal(keyBytes("tab"), "\t");
  assert.equal(keyBytes("esc"), "\x1b");
  assert.equal(keyBytes("backspace"), "\x7f");
  assert.throws(
    () => keyBytes("hyper-x"),
    /Unknown key "hyper-x": use enter, tab, .*ctrl-<letter>/,
  );
});
