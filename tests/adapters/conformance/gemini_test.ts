import { conformance } from "./_harness.ts";

conformance("gemini");
