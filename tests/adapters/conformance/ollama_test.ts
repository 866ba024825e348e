import { conformance } from "./_harness.ts";

conformance("ollama");
conformance("lua:ollama");
