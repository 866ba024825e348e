/** The web plugin's public entry. */
export { createApp } from "./app.ts";
export { bindRefusal, clientKey, isLoopbackHost, LoginThrottle, rebindingRefusal } from "./auth.ts";
export { EventHub, type HubMessage } from "./event_hub.ts";
export { openWebHub, webOutputChannel } from "./channel.ts";
export { openAIError } from "./openai.ts";
export { StreamedText } from "./_openai_turn.ts";
export { HttpError } from "./_http.ts";
export type * from "./ports.ts";
export {
  agentChatPort,
  agentEventsPort,
  knowledgeBasePort,
  memoryPort,
  registrySettingsPort,
} from "./agent_ports.ts";
export { serveWeb, webAddress } from "./serve.ts";
