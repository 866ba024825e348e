/**
 * `deno task soak [--kills N] [--seed S] [--json]`: the kill loop of tests/soak/kill_loop.ts
 * (default 30 kills). Prints a table, or with --json `{"figures": {...}}` as `deno task bench`
 * does; exits 1 when an acknowledged chat was lost or a chat was stored twice.
 */
// deno-lint-ignore-file no-console
import { parseArgs } from "node:util";
import { runKillLoop } from "./kill_loop.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    kills: { type: "string", default: "30" },
    seed: { type: "string" },
    json: { type: "boolean", default: false },
  },
});
const kills = Number(values.kills);
if (!Number.isInteger(kills) || kills < 1) {
  console.error(`--kills must be a whole number of at least 1, not "${values.kills}"`);
  Deno.exit(2);
}
const seed = values.seed === undefined ? Date.now() % 1_000_000 : Number(values.seed);
const result = await runKillLoop({
  kills,
  seed,
  log: values.json ? undefined : (line) => console.error(line),
});
const figures = {
  "crash_kill_loop_lost": { value: result.lost, unit: "chats" },
  "crash_kill_loop_doubled": { value: result.doubled, unit: "chats" },
  "crash_kill_loop_kills": { value: result.kills, unit: "kills" },
  "crash_kill_loop_acknowledged": { value: result.acknowledged, unit: "chats" },
  "crash_kill_loop_archived": { value: result.inDocuments, unit: "chats" },
  "crash_kill_loop_recalls": { value: result.recalls, unit: "calls" },
  "crash_kill_loop_kills_with_loss": { value: result.killsWithLoss, unit: "kills" },
  "crash_kill_loop_duration_s": { value: result.durationS, unit: "s" },
};
if (values.json) {
  console.log(JSON.stringify({ figures, seed, examples: result.examples }, null, 2));
} else {
  for (const [name, figure] of Object.entries(figures)) {
    console.log(`${name.padEnd(34)} ${String(figure.value).padStart(8)} ${figure.unit}`);
  }
  console.log(`seed ${seed}`);
  for (const example of result.examples) console.log(`  ${example}`);
}
Deno.exit(result.lost === 0 && result.doubled === 0 ? 0 : 1);
