/** The eight adapter scripts shipped inside the program, by name. */
import anthropic from "./scripts/anthropic.lua" with { type: "text" };
import deepseek from "./scripts/deepseek.lua" with { type: "text" };
import gemini from "./scripts/gemini.lua" with { type: "text" };
import github from "./scripts/github.lua" with { type: "text" };
import groq from "./scripts/groq.lua" with { type: "text" };
import mistral from "./scripts/mistral.lua" with { type: "text" };
import ollama from "./scripts/ollama.lua" with { type: "text" };
import openai from "./scripts/openai.lua" with { type: "text" };

/** Script text of each bundled adapter. */
export const bundledAdapters: ReadonlyMap<string, string> = new Map([
  ["openai", openai],
  ["deepseek", deepseek],
  ["anthropic", anthropic],
  ["gemini", gemini],
  ["mistral", mistral],
  ["groq", groq],
  ["github", github],
  ["ollama", ollama],
]);
