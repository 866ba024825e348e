import assert from "node:assert/strict";
import type { ContextEvent } from "../../../core/mod.ts";
import { textForVector } from "../../../core/mod.ts";

/** The text of a copy of `event`: an object textForVector has never seen. */
const fresh = (event: ContextEvent) => textForVector(structuredClone(event));

Deno.test("textForVector answers from its memo only while the event's text fields are the same", () => {
  const event: ContextEvent = {
    id: "e1",
    role: "agent",
    source: "cli",
    channel: "cli",
    response: "the  cat\nis fed",
    tools: [{ name: "read", output: "bowl:  full" }],
    timestamp: 1,
  };
  assert.equal(textForVector(event), "the cat is fed bowl: full");
  assert.equal(textForVector(event), fresh(event));
  const changes: ((e: ContextEvent) => void)[] = [
    (e) => e.response = "the dog\tbarks",
    (e) => e.tools![0]!.output = "bowl: empty",
    (e) => e.tools!.push({ name: "walk", output: "park" }),
    (e) => e.tools = undefined,
    (e) => e.tools = [],
    (e) => e.role = "cold_storage",
    (e) => e.input = "a  question",
    (e) => e.role = "user",
    (e) => e.input = undefined,
  ];
  for (const change of changes) {
    change(event);
    assert.equal(textForVector(event), fresh(event), String(change));
    assert.equal(textForVector(event), fresh(event), String(change)); // from the memo
  }
});
