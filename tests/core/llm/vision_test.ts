import assert from "node:assert/strict";
import { forVision, unseenImagesNote, visionPlan } from "../../../core/llm/_vision.ts";
import {
  type ChatRequest,
  estimateTokens,
  type ImagePart,
  type RequestBuilder,
} from "../../../core/mod.ts";

const image = { mime: "image/png", data: "iVBORw0KGgo=" };
const images: ImagePart[] = [image, { ...image, mime: "image/jpeg" }];
const request: ChatRequest = {
  messages: [
    { role: "system", content: "persona" },
    { role: "user", content: "what is this?", images },
  ],
};

Deno.test("forVision keeps images for a vision source and replaces them with a plain note otherwise", () => {
  assert.equal(forVision(request, true), request);
  const plain = forVision(request, false);
  assert.deepEqual(plain.messages[1], {
    role: "user",
    content: `what is this?\n\n${unseenImagesNote(images)}`,
  });
  assert.match(
    plain.messages[1]!.content,
    /2 images \(image\/png, image\/jpeg\) arrived.*cannot see images/,
  );
  assert.ok(!("images" in plain.messages[1]!));
  assert.equal(images.length, 2, "input untouched");
});

Deno.test("visionPlan adapts every request a builder makes", () => {
  const plan: RequestBuilder = visionPlan((() => request) as RequestBuilder, false);
  const built = plan({ source: "a", window: 8192, targetTokens: 6000, count: estimateTokens });
  assert.ok(built.messages.every((m) => !("images" in m)));
});
