/** The web plugin's public entry. */
export { createApp, type CreateAppOptions, MAX_BODY_BYTES, MAX_UPLOAD_BYTES } from "./app.ts";
export { type LoginNotice, loginPage, type WebEnv } from "./_login.ts";
export {
  bindRefusal,
  clientKey,
  crossOrigin,
  crossSiteRequest,
  isLoopbackHost,
  type LoginCheck,
  LoginGate,
  type LoginGateOptions,
  LoginThrottle,
  type LoginThrottleOptions,
  MIN_REMOTE_TOKEN_LENGTH,
  rebindingRefusal,
  sameToken,
  SESSION_COOKIE,
} from "./auth.ts";
export {
  EventHub,
  type EventHubOptions,
  HubClient,
  type HubEvent,
  type HubMessage,
  type WebMessageEvent,
} from "./event_hub.ts";
export {
  openWebHub,
  WEB_CHANNEL,
  type WebHub,
  webOutputChannel,
  type WebOutputChannelOptions,
} from "./channel.ts";
export {
  inputText,
  mountOpenAI,
  OPENAI_CHANNEL,
  OPENAI_ERRORS,
  openAIError,
  type OpenAIErrorBody,
  type OpenAIErrorKind,
} from "./openai.ts";
export { StreamedText } from "./_openai_turn.ts";
export { settingType, UPLOAD_PATH } from "./_dashboard.ts";
export { HttpError, type HttpErrorOptions } from "./_http.ts";
export type * from "./ports.ts";
export {
  agentChatPort,
  agentEventsPort,
  type DocumentSource,
  documentsPort,
  knowledgeBasePort,
  type MemoryParts,
  memoryPort,
  registrySettingsPort,
} from "./agent_ports.ts";
export {
  serveWeb,
  type ServeWebOptions,
  type WebAddress,
  webAddress,
  type WebServer,
} from "./serve.ts";
