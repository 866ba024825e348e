import { conformance } from "./_harness.ts";

conformance("deepseek");
conformance("mistral");
conformance("groq");
conformance("github");
