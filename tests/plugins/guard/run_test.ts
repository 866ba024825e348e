import assert from "node:assert/strict";
import { AGENT_V8_FLAGS, agentEnv } from "../../../plugins/guard/run.ts";

Deno.test("agentEnv gives the agent its V8 heap flags unless DENO_V8_FLAGS is the user's", () => {
  assert.deepEqual(agentEnv({}, false), { DENO_V8_FLAGS: AGENT_V8_FLAGS });
  assert.deepEqual(agentEnv({ DENO_V8_FLAGS: "--max-old-space-size=64" }, false), {});
});

Deno.test("agentEnv keeps the guard's V8 flags for an agent of the same file (one code cache)", () => {
  assert.deepEqual(agentEnv({}, true), {});
  assert.deepEqual(agentEnv({ DENO_V8_FLAGS: AGENT_V8_FLAGS }, true), {});
});
