import assert from "node:assert/strict";
import { forVision, unseenImagesNote, visionPlan } from "../../../core/llm/_vision.ts";
import type { ChatRequest } from "../../../core/mod.ts";

const image = { mime: "image/png", data: "iVBORw0KGgo=" };
const request: ChatRequest = {
  messages: [
    { role: "system", content: "persona" },
    { role: "user", content: "what is this?", images: [image, { ...image, mime: "image/jpeg" }] },
  ],
};

Deno.test("forVision keeps images for a vision source and replaces them with a plain note otherwise", () => {
  assert.equal(forVision(request, true), request);
  const plain = forVision(request, false);
  assert.deepEqual(plain.messages[1], {
    role: "user",
    content: `what is this?\n\n${
      unseenImagesNote(request.messages[1]!.role === "user" ? request.messages[1].images! : [])
    }`,
  });
  assert.match(
    plain.messages[1]!.content,
    /2 images \(image\/png, image\/jpeg\) arrived.*cannot see images/,
  );
  assert.ok(!("images" in plain.messages[1]!));
  assert.equal(
    request.messages[1]!.role === "user" && request.messages[1].images?.length,
    2,
    "input untouched",
  );
});

Deno.test("visionPlan adapts every request a builder makes", () => {
  const plan = visionPlan(() => request, false);
  const built = plan({ source: "a", window: 8192, targetTokens: 6000 });
  assert.ok(built.messages.every((m) => !("images" in m)));
});
