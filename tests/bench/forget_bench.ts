/**
 * Forget figures: how fast the keyed-hash matcher reads text for forgotten names
 * (`forget_match_ms_per_mb`: one megabyte of mixed Chinese and English notes, eight names
 * forgotten, a few mentions), the same tombstones without their quick hash as homes made them
 * before it (`forget_match_slow_ms_per_mb`: every window hashed), and the ratio of the two in the
 * same run (`forget_match_speedup`). A forget reads every document, the context window and the
 * text log with it, and every write after a forget goes through it.
 */
import { ForgottenNames, type Tombstone } from "../../memory/forget/matcher.ts";
import type { Figure } from "./_figure.ts";
import { quantile, round } from "./_figure.ts";

const NAMES = ["Mirelle Okafor", "Bo", "Jean-Luc", "Rex", "张小凤", "周小川", "李娜", "Ünal"];
const WORDS =
  ("the cat sat on a warm mat while rain fell over oslo and my sister called 我们 今天 " +
    "去 公园 散步 然后 吃 火锅 和 烧烤 天气 很好 周末 见").split(" ");

function text(bytes: number): string {
  let s = 0x2545f491;
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const word = next() < 0.002
      ? NAMES[Math.floor(next() * NAMES.length)]!
      : WORDS[Math.floor(next() * WORDS.length)]!;
    parts.push(word);
    size += new TextEncoder().encode(word).length + 1;
  }
  return parts.join(" ");
}

function msPerMb(matcher: ForgottenNames, sample: string, runs: number): number {
  const mb = new TextEncoder().encode(sample).length / 2 ** 20;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    matcher.spans(sample);
    times.push((performance.now() - t0) / mb);
  }
  return quantile(times, 0.5);
}

async function forgetFigures(): Promise<Record<string, Figure>> {
  await Promise.resolve();
  const key = crypto.getRandomValues(new Uint8Array(32));
  const fast = new ForgottenNames([[1, key]]);
  const slow = new ForgottenNames([[1, key]]);
  for (const name of NAMES) {
    const t = fast.tombstone(name, 1);
    fast.add(t);
    const { quick: _, ...old }: Tombstone = t;
    slow.add(old);
  }
  const sample = text(2 ** 20);
  fast.spans(sample.slice(0, 10_000));
  const fastMs = msPerMb(fast, sample, 5);
  const slowMs = msPerMb(slow, sample.slice(0, 2 ** 17), 3);
  return {
    forget_match_ms_per_mb: { value: round(fastMs), unit: "ms/MB" },
    forget_match_slow_ms_per_mb: { value: round(slowMs), unit: "ms/MB" },
    forget_match_speedup: { value: round(slowMs / fastMs, 1), unit: "x" },
  };
}

export const figures = {
  "forget_match_ms_per_mb": forgetFigures,
  "forget_match_slow_ms_per_mb": forgetFigures,
  "forget_match_speedup": forgetFigures,
};
