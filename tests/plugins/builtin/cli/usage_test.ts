/**
 * The command line's surface: the agent's own `serve --agent` line, read without parseArgs (its
 * start then loads no node:util), reads as parseArgs reads it; every other line goes to parseArgs.
 */
import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import {
  CLI_OPTIONS,
  isGuard,
  parseCommandLine,
  readAgentArgs,
} from "../../../../plugins/builtin/cli/usage.ts";
import { agentArgs } from "../../../../plugins/guard/first_agent.ts";

const strict = (args: string[]) =>
  parseArgs({ args, allowPositionals: true, options: CLI_OPTIONS });

Deno.test("the agent's command line as the guard writes it reads as parseArgs reads it", () => {
  const launches = [
    { boot: "normal" as const },
    { boot: "failback" as const },
    { boot: "normal" as const, port: 43123 },
    { boot: "failback" as const, port: 7800 },
  ];
  const servings = [{}, { port: "0" }, { host: "0.0.0.0" }, { port: "7800", host: "::1" }];
  for (const launch of launches) {
    for (const serving of servings) {
      const line = agentArgs(launch, {
        command: ["deno", "run", "main.ts", "serve"],
        home: "/srv/home agent",
        ...serving,
      });
      const args = line.slice(line.indexOf("serve"));
      assert.ok(readAgentArgs(args), args.join(" "));
      assert.deepEqual(parseCommandLine(args), strict(args));
      assert.equal(isGuard(args), false);
    }
  }
});

Deno.test("any other command line is left to parseArgs", () => {
  const others = [
    ["serve", "--home", "/h"],
    ["serve", "--home", "/h", "--port", "0", "--agent"],
    ["serve", "--agent", "--home", "/h"],
    ["serve", "--home", "/h", "--agent", "--port"],
    ["serve", "--home", "/h", "--agent", "--port", "--host"],
    ["serve", "--home", "", "--agent"],
    ["serve", "--home", "/h", "--agent", "--help"],
    ["serve", "--home", "/h", "--agent", "--port", "1", "--port", "2"],
    ["serve", "--home", "/h", "--agent", "extra"],
    ["status", "--home", "/h", "--agent"],
  ];
  for (const args of others) assert.equal(readAgentArgs(args), undefined, args.join(" "));
  assert.deepEqual(parseCommandLine(others[1]!), strict(others[1]!));
  assert.throws(() => parseCommandLine(["serve", "--nope"]), TypeError);
  assert.equal(isGuard(["serve", "--home", "/h"]), true);
  assert.equal(isGuard(["serve", "--home", "/h", "--agent", "--help"]), false);
});
