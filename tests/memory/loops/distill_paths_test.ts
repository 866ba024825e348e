/**
 * The distiller on the real memory path (issue 14 item 7): cold documents through the archive
 * loop into the graph, by rules (no LLM, and an LLM that is down) and through a model served
 * by a fake OpenAI server on 127.0.0.1 over the real client; the same facts either way, one
 * per coordinated object.
 */
import assert from "node:assert/strict";
import type { GraphDB } from "../../../memory/mod.ts";
import { type FakeRequest, reply } from "../../fixtures/fake_llm.ts";
import { lastUserText, only, type Rig, withRig } from "./_heartbeat_support.ts";
import { DISTILL_TABLE, shown } from "./_distill_table.ts";

const STATED = DISTILL_TABLE.filter(([, facts]) => facts.length > 0);

/** Every fact of the subjects the table names, open or closed, as the table writes them. */
async function stored(graph: GraphDB, subjects: Iterable<string>): Promise<string[]> {
  const out = new Set<string>();
  for (const subject of subjects) {
    if (!await graph.entity(subject)) continue;
    for (const r of await graph.history(subject)) {
      if (r.source === subject && r.type !== "mentions") {
        out.add(shown([{ subject, predicate: r.type, object: r.target }])[0]!);
      }
    }
  }
  return [...out].sort();
}

function subjectsOf(facts: string[]): Set<string> {
  return new Set(["owner", ...facts.filter((f) => f.includes(" ")).map((f) => f.split(" ")[0]!)]);
}

async function archiveAll(rig: Rig): Promise<void> {
  const heartbeat = await rig.start();
  while (rig.documents.size() > 0) await heartbeat.runNow("archive");
}

async function coldExchanges(rig: Rig, texts: string[]): Promise<void> {
  for (const text of texts) {
    await rig.coldDocument(`[2026-01-01 10:00] web: ${text}\n[2026-01-01 10:00] you: OK.`);
  }
}

for (const llm of [false, "down"] as const) {
  Deno.test(`archive by rules (${llm ? "LLM down" : "no LLM"}): every statement of the table becomes its facts`, async () => {
    await withRig(async (rig) => {
      only(rig, "archive");
      await coldExchanges(rig, STATED.map(([text]) => text));
      await archiveAll(rig);
      const expected = [...new Set(STATED.flatMap(([, facts]) => facts))].sort();
      assert.deepEqual(await stored(rig.graph, subjectsOf(expected)), expected);
    }, { llm });
  });
}

Deno.test("archive through a model: its triples are stored one per object, functional ones whole", async () => {
  await withRig(async (rig) => {
    only(rig, "archive");
    const answers: Record<string, unknown[]> = {
      "DOC-1": [
        { subject: "owner", predicate: "喜好", object: "火锅和烧烤" },
        { subject: "owner", predicate: "居住地", object: "Bosnia and Herzegovina" },
      ],
      "DOC-2": [
        { subject: "owner", predicate: "孩子", object: "Mia and Leo" },
        { subject: "owner", predicate: "宠物", object: "Rex" },
        { subject: "Rex", predicate: "物种", object: "dog" },
        { subject: "owner", predicate: "工作单位", object: "阿里巴巴" },
      ],
    };
    rig.server!.enqueue(
      ...Object.keys(answers).map(() => (request: FakeRequest) => {
        const doc = Object.keys(answers).find((k) => lastUserText(request.body).includes(k))!;
        return reply.text(JSON.stringify({ triples: answers[doc] }));
      }),
    );
    await rig.coldDocument("DOC-1 [2026-01-01 10:00] web: 我喜欢火锅和烧烤，住在萨拉热窝");
    await rig.coldDocument("DOC-2 [2026-01-01 11:00] web: My kids Mia and Leo love Rex");
    await archiveAll(rig);
    assert.deepEqual(
      await stored(rig.graph, ["owner", "Rex"]),
      [
        "Rex 物种:dog",
        "喜好:火锅",
        "喜好:烧烤",
        "孩子:Leo",
        "孩子:Mia",
        "宠物:Rex",
        "居住地:Bosnia and Herzegovina",
        "工作单位:阿里巴巴",
      ].sort(),
    );
    const prompt = lastUserText(rig.server!.requests[0]!.body);
    assert.match(prompt, /^\[Memory consolidation: archive\]/);
    assert.match(prompt, /One triple per object/);
    assert.match(prompt, /工作单位/);
    assert.equal(rig.server!.requests.length, 2, "one model call per document");
  }, { llm: true });
});
