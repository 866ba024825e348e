/**
 * Settings whose schema is given as a function (most of the daemon's: built on first use,
 * not at every start) behave as built ones: refused values, a default that does not validate
 * (a TypeError, on the key's first use), and every default the daemon defines validates.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { ConfigError } from "../../../core/errors.ts";
import { registerMemoryDefaults } from "../../../memory/mod.ts";
import { registerLuaAdapterDefaults } from "../../../adapters/mod.ts";
import { registerPluginSettings } from "../../../plugins/mod.ts";
import { openTestRegistry } from "../../fakes/config.ts";

Deno.test("a setting's schema given as a function is built on first use, once, and refuses as a built one", () => {
  using t = openTestRegistry({ bare: true });
  let builds = 0;
  t.registry.define({
    key: "core.agent.probe",
    schema: () => {
      builds++;
      return z.int().min(1).max(9);
    },
    default: 3,
    description: "A probe",
  });
  t.registry.define({
    key: "core.agent.built",
    schema: z.int().min(1).max(9),
    default: 3,
    description: "A probe",
  });
  assert.equal(builds, 0, "defining builds nothing");
  assert.equal(t.registry.get("core.agent.probe"), 3);
  for (const key of ["core.agent.probe", "core.agent.built"]) {
    assert.throws(() => t.registry.set(key, 10), ConfigError);
    assert.throws(() => t.registry.setFromText(key, "x"), ConfigError);
    t.registry.set(key, 7);
    assert.equal(t.registry.get(key), 7);
  }
  assert.deepEqual(
    t.registry.describe("core.agent.probe").schema,
    t.registry.describe("core.agent.built").schema,
  );
  assert.equal(builds, 1);
});

Deno.test("a lazily built default that does not validate is a TypeError on first use", () => {
  using t = openTestRegistry({ bare: true });
  const definition = { key: "core.agent.bad", default: 0, description: "Bad" };
  t.registry.define({ ...definition, schema: () => z.int().min(1) });
  assert.throws(() => t.registry.get("core.agent.bad"), TypeError);
  assert.throws(
    () => t.registry.define({ ...definition, key: "core.agent.bad2", schema: z.int().min(1) }),
    TypeError,
  );
});

Deno.test("every default the daemon defines validates against its schema", () => {
  using t = openTestRegistry();
  registerMemoryDefaults(t.registry);
  registerLuaAdapterDefaults(t.registry);
  registerPluginSettings(t.registry);
  const all = t.registry.definitions(); // each description reads its checked default
  assert.ok(all.length > 100, `${all.length} definitions`);
  for (const entry of t.registry.list()) assert.equal(entry.problem, undefined, entry.key);
});
