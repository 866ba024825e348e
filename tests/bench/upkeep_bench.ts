/**
 * Issue 14 item 6: `upkeep_tokens_per_call`, the mean prompt tokens of the LLM calls made by one
 * run of every memory loop (distill, archive, merge, review, rule_distill) in a lived-in home
 * (tests/fakes/upkeep_run.ts: the real kernel and tiers over a fake OpenAI server on
 * 127.0.0.1 that records the requests), counted with gpt-tokenizer (o200k_base) as the token
 * figures of issue 16 are. Target ≤ 800.
 */
import { runEveryLoop } from "../fakes/upkeep_run.ts";
import { wirePromptTokens } from "../fakes/wire_tokens.ts";
import { type Figure, round } from "./_figure.ts";

async function upkeepTokens(): Promise<Figure> {
  const { requests } = await runEveryLoop();
  if (requests.length === 0) throw new Error("No memory loop asked the model");
  let total = 0;
  for (const body of requests) total += (await wirePromptTokens(body)).total;
  return { value: round(total / requests.length), unit: "tokens" };
}

/** The figures of this module. */
export const figures = { "upkeep_tokens_per_call": upkeepTokens };
