/**
 * Cardinality as the owner lives it (issue 14 item 1): realistic statements in Chinese and
 * English, committed one a day through the model's own tools (memory_commit, person_relate,
 * person_set_trait, memory_edit close), then the exact open and closed facts afterwards. A
 * second pet, sister or liked dish is one more fact; only functional predicates and traits
 * close the old value; a relationship added with person_relate never replaces another.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  graphTools,
  parseToolArguments,
  type RegisteredTool,
  socialTools,
} from "../../../core/mod.ts";
import { GraphDB, openDatabase } from "../../../memory/mod.ts";
import { GRAPH_MIGRATIONS } from "../../../memory/graph/schema.ts";
import { type Statement, TABLE } from "./_cardinality_table.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

function setup() {
  const clock = { t: T0, now: () => clock.t };
  const graph = GraphDB.open({ path: ":memory:", clock });
  const tools = new Map<string, RegisteredTool>(
    [...graphTools(graph), ...socialTools(graph)].map((t) => [t.name, t]),
  );
  const call = async (name: string, args: Record<string, unknown>) => {
    const tool = tools.get(name)!;
    const parsed = parseToolArguments(tool, { id: "c1", name, arguments: JSON.stringify(args) });
    assert.ok(parsed.ok, `${name}: ${!parsed.ok && parsed.error}`);
    const out = await tool.handler(parsed.args, {
      signal: new AbortController().signal,
      turnId: `day-${(clock.t - T0) / DAY}`,
      callId: "c1",
    });
    const result = typeof out === "string" ? { content: out } : out;
    assert.ok(!result.isError, `${name}: ${result.content}`);
  };
  return { graph, clock, call, [Symbol.dispose]: () => graph.close() };
}

async function say(t: ReturnType<typeof setup>, statement: Statement): Promise<void> {
  const [kind, said, s, p, o] = statement;
  if (kind === "commit") {
    await t.call("memory_commit", {
      triples: [{ subject: s, predicate: p, object: o }],
      sentence_text: said,
    });
  } else if (kind === "relate") {
    await t.call("person_relate", { person: s, relation: p, other: o });
  } else if (kind === "trait") {
    await t.call("person_set_trait", { person: s, trait: p, value: o });
  } else if (kind === "close") {
    const fact = (await t.graph.history(s)).find((r) =>
      r.type === p && r.target === o && r.validTo === undefined
    );
    assert.ok(fact, `no open fact ${s} ${p} ${o} to close`);
    await t.call("memory_edit", { relation_id: fact.id, close: true });
  } else if (statement[0] === "late") {
    await t.graph.commit([{
      subject: s,
      predicate: p,
      object: o,
      sentence: said,
      validFrom: t.clock.t - statement[5] * DAY,
    }]);
  }
}

const day = (ms: number) => `d${(ms - T0) / DAY}`;

Deno.test("cardinality table: true facts are never silently closed", async (test) => {
  const statements = TABLE.reduce((n, row) => n + row.statements.length, 0);
  assert.ok(statements >= 40, `the table holds ${statements} statements`);
  for (const row of TABLE) {
    await test.step(row.name, async () => {
      using t = setup();
      for (const statement of row.statements) {
        t.clock.t += DAY;
        await say(t, statement);
      }
      const subjects = [...new Set(row.statements.map((s) => s[2]))];
      const seen = new Map<number, string>();
      for (const subject of subjects) {
        for (const r of await t.graph.history(subject)) {
          if (r.source !== subject || r.status !== "active") continue;
          const fact = `${r.source} —${r.type}→ ${r.target}`;
          seen.set(
            r.id,
            r.validTo === undefined ? fact : `${fact} (${day(r.validFrom)}–${day(r.validTo)})`,
          );
        }
      }
      const all = [...seen.values()];
      assert.deepEqual(all.filter((f) => !f.endsWith(")")).sort(), [...row.open].sort(), "open");
      assert.deepEqual(all.filter((f) => f.endsWith(")")).sort(), [...row.closed].sort(), "closed");
    });
  }
});

Deno.test("person_query shows both sisters and both pets", async () => {
  using t = setup();
  await t.call("person_relate", { person: "Ann", relation: "sister_of", other: "Bo" });
  await t.call("person_relate", { person: "Ann", relation: "sister_of", other: "Cy" });
  await t.call("memory_commit", {
    triples: [{ subject: "Ann", predicate: "has_pet", object: "Mimi" }],
  });
  await t.call("memory_commit", {
    triples: [{ subject: "Ann", predicate: "has_pet", object: "Rex" }],
  });
  const tool = socialTools(t.graph).find((x) => x.name === "person_query")!;
  const out = String(
    await tool.handler({ name: "Ann" }, {
      signal: new AbortController().signal,
      turnId: "t",
      callId: "c",
    }),
  );
  for (const fact of ["sister_of→ Bo", "sister_of→ Cy", "has_pet→ Mimi", "has_pet→ Rex"]) {
    assert.match(out, new RegExp(fact), out);
  }
});

Deno.test("GraphDB upgrade reopens facts the old single-valued rule closed, not real supersessions", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-cardinality-" });
  try {
    const path = join(dir, "graph.db");
    const v1 = openDatabase(path, { migrations: GRAPH_MIGRATIONS.slice(0, 1) });
    const day = (n: number) => BigInt(T0 + n * DAY);
    v1.exec(`insert into entities (id, name, norm, created_at, updated_at) values
      (1, 'owner', 'owner', 0, 0), (2, 'Mimi', 'mimi', 0, 0), (3, 'Rex', 'rex', 0, 0),
      (4, 'Oslo', 'oslo', 0, 0), (5, 'Bergen', 'bergen', 0, 0), (6, 'Bo', 'bo', 0, 0)`);
    const insert = v1.prepare(
      `insert into relations (source_id, target_id, type, valid_from, valid_to, created_at,
         updated_at) values (?, ?, ?, ?, ?, 0, 0)`,
    );
    insert.run(1n, 2n, "has_pet", day(1), day(5)); // closed by Rex under the old rule
    insert.run(1n, 3n, "has_pet", day(5), null);
    insert.run(1n, 4n, "lives_in", day(1), day(9)); // a real move
    insert.run(1n, 5n, "lives_in", day(9), null);
    insert.run(1n, 6n, "knows", day(1), day(3)); // closed by hand, nothing started then
    v1.close();
    const graph = GraphDB.open({ path, clock: { now: () => T0 } });
    try {
      const shown = (await graph.history("owner")).map((r) =>
        `${r.type} ${r.target}${r.validTo === undefined ? "" : " closed"}`
      ).sort();
      assert.deepEqual(shown, [
        "has_pet Mimi",
        "has_pet Rex",
        "knows Bo closed",
        "lives_in Bergen",
        "lives_in Oslo closed",
      ]);
    } finally {
      graph.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GraphDB: an old statement of a fact history already holds closed reinforces it, never a second row", async () => {
  using t = setup();
  const { graph, clock } = t;
  await graph.commit([{ subject: "owner", predicate: "居住地", object: "Oslo", validFrom: T0 }]);
  await graph.commit([{
    subject: "owner",
    predicate: "居住地",
    object: "Bergen",
    validFrom: T0 + 40 * DAY,
  }]);
  // The archive distils the exchange of day 2 only now, after the move.
  clock.t = T0 + 50 * DAY;
  const again = await graph.commit([
    { subject: "owner", predicate: "居住地", object: "Oslo", validFrom: T0 + DAY },
  ]);
  assert.deepEqual([again.relations, again.reinforced, again.closed], [0, 1, 0]);
  const rows = (await graph.history("owner")).map((r) =>
    `${r.target} ${(r.validFrom - T0) / DAY}–${
      r.validTo === undefined ? "" : (r.validTo - T0) / DAY
    } ×${r.mentions}`
  );
  assert.deepEqual(rows.sort(), ["Bergen 40– ×1", "Oslo 0–40 ×2"]);
});
