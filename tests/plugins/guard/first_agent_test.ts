import assert from "node:assert/strict";
import { agentArgs, firstLaunchFacts, planFirstAgent } from "../../../plugins/guard/first_agent.ts";
import { processLaunchFacts, serviceCommand } from "../../../plugins/guard/mod.ts";
import { resolveHome } from "../../../memory/home.ts";

Deno.test("planFirstAgent reads a plain serve as the full parser does", () => {
  const env = { HOME: "/home/ann" };
  assert.deepEqual(planFirstAgent(["serve", "--home", "/h", "--port", "0"], env), {
    home: "/h",
    host: undefined,
    port: "0",
  });
  // The default home: ~/.homeagent, with HOME as node:os reads it.
  assert.deepEqual(planFirstAgent(["--host=0.0.0.0", "serve"], { HOME: Deno.env.get("HOME") }), {
    home: resolveHome(undefined, {}),
    host: "0.0.0.0",
    port: undefined,
  });
  assert.equal(planFirstAgent(["serve"], { HOMEAGENT_HOME: "/srv/ha" })?.home, "/srv/ha");
});

Deno.test("planFirstAgent leaves every other command line to the guard's usual path", () => {
  const env = { HOME: "/home/ann" };
  for (
    const args of [
      [],
      ["chat", "hi"],
      ["serve", "--agent"],
      ["serve", "--help"],
      ["serve", "-h"],
      ["serve", "--version"],
      ["serve", "extra"],
      ["serve", "serve"],
      ["serve", "--port"],
      ["serve", "--port", "--home", "/h"],
      ["serve", "--port", "1", "--port", "2"],
      ["serve", "--home", "relative"],
      ["serve", "--home", "/a/../b"],
      ["serve", "--home", "/a/"],
      ["serve", "--home", ""],
      ["serve", "--", "--home", "/h"],
    ]
  ) assert.equal(planFirstAgent(args, env), undefined, args.join(" "));
  assert.equal(planFirstAgent(["serve"], {}), undefined, "no home to name");
});

Deno.test("The first agent's command line is the one the guard would have run", () => {
  const facts = processLaunchFacts();
  const early = firstLaunchFacts();
  assert.deepEqual(early, { execPath: facts.execPath, repo: facts.repo, bundle: facts.bundle });
  const options = { home: "/h", port: "0" };
  assert.deepEqual(
    agentArgs({ boot: "normal" }, { ...options, command: serviceCommand(early) }),
    agentArgs({ boot: "normal" }, { ...options, command: serviceCommand(facts) }),
  );
});
