/**
 * The graph's walk reaches exactly what the recursive CTE it replaced reached (issue 14,
 * `recall_p95_ms_100k`: the CTE expanded every row it took, ~7 ms at 1M relations): the same
 * (id, depth) rows over active open relations, both directions, typed or not, cut at the same
 * `maxNodes`, on a random graph with closed and retired relations among the open ones.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { GraphDB } from "../../../memory/mod.ts";
import { GraphSql } from "../../../memory/graph/_rows.ts";
import { walk } from "../../../memory/graph/_recall.ts";
import { rng } from "../../fakes/random.ts";

/** The walk as it was: one recursive CTE. */
function cteWalk(
  g: GraphSql,
  seeds: readonly number[],
  depth: number,
  maxNodes: number,
  types?: readonly string[],
): Map<number, number> {
  const join = types
    ? "join entities n on n.id = %s and n.type in (select value from json_each(?3))"
    : "";
  const step = (next: string, via: string) =>
    `select ${next}, b.depth + 1 from bfs b join relations r on r.${via} = b.id
     ${join.replace("%s", `r.${next}`)}
     where b.depth < ?2 and r.status = 'active' and r.valid_to is null`;
  const rows = g.all(
    `with recursive bfs(id, depth) as (
       select value, 0 from json_each(?1)
       union ${step("target_id", "source_id")}
       union ${step("source_id", "target_id")}
       limit ?4
     ) select id, min(depth) as depth from bfs group by id`,
    JSON.stringify(seeds),
    BigInt(depth),
    JSON.stringify(types ?? []),
    BigInt(maxNodes),
  );
  return new Map(rows.map((row) => [Number(row.id), Number(row.depth)]));
}

Deno.test("walk reaches the rows the recursive CTE reached, typed or not, at every cut", async () => {
  const dir = await Deno.makeTempDir({ prefix: "homeagent-walk-" });
  try {
    const path = join(dir, "graph.db");
    const random = rng(5);
    const graph = GraphDB.open({ path, clock: { now: () => 1 } });
    const ids = graph.bulkEntities(
      Array.from({ length: 2000 }, (_, i) => ({ name: `e${i}`, type: i % 3 ? "person" : "place" })),
    );
    const pick = () => ids[Math.floor(random() * ids.length)]!;
    graph.bulkRelations(
      Array.from({ length: 12_000 }, () => ({
        source: pick(),
        target: pick(),
        type: "knows",
        validFrom: 1,
      })),
    );
    graph.close();
    const db = new DatabaseSync(path);
    try {
      // Some facts closed or retired: the walk must not cross them.
      db.exec("update relations set valid_to = 2 where id % 7 = 0");
      db.exec("update relations set status = 'deleted' where id % 11 = 0");
      const g = new GraphSql(db, () => 1);
      for (let round = 0; round < 60; round++) {
        const seeds = Array.from({ length: 1 + (round % 9) }, pick);
        if (round % 5 === 0) seeds.push(seeds[0]!); // a seed named twice
        const depth = 1 + (round % 3);
        const maxNodes = [5, 64, 256, 5000][round % 4]!;
        const types = round % 2 ? ["person"] : undefined;
        const want = cteWalk(g, seeds, depth, maxNodes, types);
        const got = walk(g, seeds, { depth, limit: 50, maxNodes, types });
        assert.deepEqual(
          [...got].sort((a, b) => a[0] - b[0]),
          [...want].sort((a, b) => a[0] - b[0]),
          `round ${round}: seeds ${seeds}, depth ${depth}, max ${maxNodes}, types ${types}`,
        );
      }
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
