/** The kernel's public entry. Everything outside core/ imports from here. */
export * from "./errors.ts";
export * from "./ports.ts";
export * from "./provider.ts";
export * from "./llm_sources.ts";
export * from "./events.ts";
export * from "./input.ts";
export * from "./tools.ts";
export * from "./stages.ts";
export * from "./output.ts";
export * from "./budget.ts";
export * from "./context.ts";
export * from "./prompt.ts";
export * from "./inbox.ts";
export * from "./turn.ts";
export * from "./agent.ts";
export * from "./sdk.ts";
