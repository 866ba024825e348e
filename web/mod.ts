/** The web plugin's public entry. */
export {
  createApp,
  type CreateAppOptions,
  MAX_BODY_BYTES,
  MAX_UPLOAD_BYTES,
  type WebEnv,
} from "./app.ts";
export {
  bindRefusal,
  crossOrigin,
  isLoopbackHost,
  LoginThrottle,
  type LoginThrottleOptions,
  MIN_REMOTE_TOKEN_LENGTH,
  sameToken,
  SESSION_COOKIE,
} from "./auth.ts";
export { EventHub, type EventHubOptions, HubClient, type HubMessage } from "./event_hub.ts";
export { inputText, mountOpenAI, OPENAI_CHANNEL } from "./openai.ts";
export { settingType, UPLOAD_PATH } from "./_dashboard.ts";
export type * from "./ports.ts";
export {
  agentChatPort,
  agentEventsPort,
  knowledgeBasePort,
  type MemoryParts,
  memoryPort,
  registrySettingsPort,
} from "./agent_ports.ts";
