import { conformance } from "./_harness.ts";

conformance("openai");
conformance("lua:openai");
