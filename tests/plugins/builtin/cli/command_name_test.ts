import assert from "node:assert/strict";
import { commandName, type LaunchFacts } from "../../../../plugins/mod.ts";

const facts = (over: Partial<LaunchFacts> & { executables?: string[] } = {}): LaunchFacts => {
  const executables = new Set(over.executables ?? []);
  return {
    execPath: "/opt/deno/bin/deno",
    repo: "/src/homeagent",
    cwd: "/src/homeagent",
    path: "/usr/local/bin:/usr/bin:/home/ann/.deno/bin",
    isExecutable: (file) => executables.has(file),
    ...over,
  };
};

Deno.test("commandName names an installed homeagent wherever the shell finds it", () => {
  const installed = facts({ executables: ["/home/ann/.deno/bin/homeagent"], cwd: "/tmp" });
  assert.equal(commandName(installed), "homeagent");
});

Deno.test("commandName names the deno task inside the checkout, from any folder in it", () => {
  assert.equal(commandName(facts()), "deno task homeagent");
  assert.equal(commandName(facts({ cwd: "/src/homeagent/memory/docs" })), "deno task homeagent");
});

Deno.test("commandName outside the checkout names main.ts by its path, quoted when needed", () => {
  assert.equal(commandName(facts({ cwd: "/home/ann" })), "deno run -A /src/homeagent/main.ts");
  assert.equal(
    commandName(facts({ cwd: "/src/homeagent-old" })),
    "deno run -A /src/homeagent/main.ts",
  );
  assert.equal(
    commandName(facts({ repo: "/home/ann/my agent", cwd: "/" })),
    "deno run -A '/home/ann/my agent/main.ts'",
  );
});

Deno.test("commandName names a compiled binary by its name on PATH, else by its path", () => {
  const binary = { execPath: "/opt/ha/homeagent" };
  assert.equal(commandName(facts({ ...binary, executables: ["/usr/bin/homeagent"] })), "homeagent");
  assert.equal(commandName(facts(binary)), "/opt/ha/homeagent");
  assert.equal(
    commandName(
      facts({ execPath: "/opt/ha/ha-2", path: "/opt/ha", executables: ["/opt/ha/ha-2"] }),
    ),
    "ha-2",
  );
});

Deno.test("commandName names the bundle deno runs, by its path", () => {
  assert.equal(
    commandName(facts({ bundle: "/opt/ha/homeagent.js", executables: ["/usr/bin/homeagent"] })),
    "deno run -A /opt/ha/homeagent.js",
  );
});
