/** The kernel's public entry. Everything outside core/ imports from here. */
export {
  AbortedError,
  ConfigError,
  EmbeddingError,
  errorMessage,
  HomeAgentError,
  PluginError,
  ProviderError,
  type ProviderFailureKind,
  ResidentError,
  UsageCapError,
  UsageError,
} from "./errors.ts";
export {
  checkName,
  checkNamePath,
  checkPluginName,
  NameError,
  namePathProblem,
  PLUGIN_NAME,
} from "./names.ts";
export { LruMap } from "./lru.ts";
export { type BoundedBody, readBounded } from "./bounded_body.ts";
export {
  type Clock,
  type ConfigRow,
  type ConfigStore,
  type LogFields,
  type Logger,
  silentLogger,
  sleep,
  type TimerHandle,
} from "./ports.ts";
export {
  type CallOptions,
  type ChatMessage,
  type ChatRequest,
  type ChatResponse,
  type FinishReason,
  type ImagePart,
  type JsonSchema,
  type Provider,
  type StreamEvent,
  type ToolCall,
  ToolCallAccumulator,
  type Usage,
} from "./llm/provider.ts";
export { type ProviderFactory, type SourceConfig } from "./llm/sources.ts";
export {
  EventBus,
  type EventOf,
  isStageName,
  type KernelEvent,
  type KernelNoticeKind,
  type StageName,
} from "./events.ts";
export { type InjectOptions, type Input, type PriorityLevel, type Reply } from "./input.ts";
export {
  compactSchema,
  executeTool,
  inferPlugin,
  parseToolArguments,
  type RegisteredTool,
  type ToolContext,
  type ToolDef,
  ToolRegistry,
  type ToolResult,
  toSchema,
} from "./kernel/tools.ts";
export { defineTool } from "./kernel/define_tool.ts";
export { type StageContext, type StageHandler, StageHost } from "./kernel/stages.ts";
export { Cap, type OutputChannel, type OutputMessage } from "./kernel/output.ts";
export {
  computeTokenBudget,
  DEFAULT_SECTION_SHARES,
  MAX_TARGET_TOKENS,
  parseSectionShares,
  type PromptSection,
  type SectionShares,
  type TokenCounter,
  type TokenizerFor,
} from "./prompt/budget.ts";
export { estimateTokens } from "./prompt/estimate.ts";
export { fitLines, fitPersona, personaParagraphs } from "./prompt/sections.ts";
export { lexicalRanker, type TextRanker, type TextRankOptions } from "./memory/ranker.ts";
export {
  type ContextEvent,
  type ContextRecord,
  type ContextSnapshot,
  type ContextStore,
  type ContextWindow,
  RecentContext,
  replayContext,
  type StoredContext,
} from "./prompt/context.ts";
export {
  type Embedder,
  type EmbedOptions,
  type EmbedPriority,
  type ImageInput,
  type Modality,
  type StoredVector,
} from "./memory/embedding.ts";
export {
  checkDigest,
  checkMediaCount,
  DIGEST_PATTERN,
  type MediaBlock,
  MediaError,
  type MediaHit,
  type MediaItem,
  type MediaLimits,
  type MediaOrigin,
  type MediaPutOptions,
  type MediaQuery,
  type MediaRef,
  type MediaStatus,
  type MediaStore,
  ModalityUnsupportedError,
} from "./memory/media.ts";
export { MediaOutbox, toBase64 } from "./kernel/media_turn.ts";
export { mediaTools } from "./memory/media_tools.ts";
export { buildSystemPrompt, type MemorySection, orderSections } from "./prompt/system_prompt.ts";
export { type Dispatch, effectiveLevel, Scheduler, type Task } from "./kernel/scheduler.ts";
export { EventLoop } from "./kernel/event_loop.ts";
export { EPHEMERAL_META, NO_MEMORY_META, NO_TOOLS_META } from "./kernel/turn.ts";
export { UPKEEP_INSTRUCTION } from "./kernel/upkeep_call.ts";
export { INTERRUPT_NOTE_TAG } from "./kernel/turn_control.ts";
export { Agent, type AgentOptions, type KernelConfig } from "./kernel/agent.ts";
export {
  createPluginSdk,
  type Plugin,
  type PluginSDK,
  type PluginSettingDefinition,
} from "./sdk.ts";
export { type OwnerAnswer, type OwnerQuestion } from "./kernel/questions.ts";
export { type PluginRoute } from "./kernel/routes.ts";
export {
  type ConfigDefinition,
  type ConfigDescription,
  type ConfigEntry,
  type ConfigListener,
  SECRET_MASK,
} from "./config/types.ts";
export { ConfigRegistry } from "./config/registry.ts";
export {
  defineFieldTable,
  type FieldSetting,
  fieldTableDefaults,
  readFieldTable,
} from "./config/field_table.ts";
export { registerCoreDefaults } from "./config/core_defaults.ts";
export { ProviderManager, type SourceHealth } from "./llm/manager.ts";
export {
  type LlmCaller,
  type LlmCallListener,
  type LlmCallResult,
  type RequestBuilder,
} from "./llm/call.ts";
export {
  cleanText,
  RelevanceContext,
  type RelevanceContextOptions,
  textForVector,
} from "./prompt/relevance_context.ts";
export {
  documentsSection,
  type DocumentStore,
  documentTools,
  eventsToDocuments,
  type MemoryDocument,
  type NewDocument,
  type ScoredDocument,
  textForScoring,
} from "./memory/documents.ts";
export { InMemoryGraph, OverlayGraph } from "./memory/graph_overlay.ts";
export { runChild, SPAWN_CHILD_TOOL, spawnChildTool } from "./agents/children.ts";
export {
  RESIDENT_CHANNEL,
  ResidentPool,
  type ResidentSummary,
  type ResidentTask,
} from "./agents/residents.ts";
export { residentAgentsTool } from "./agents/resident_tool.ts";
export { BacklogTriage, BUSY_NOTICE } from "./agents/triage.ts";
export {
  type CommitResult,
  type GraphEntity,
  type GraphMemory,
  type GraphQuery,
  type GraphRecall,
  type GraphRelation,
  type Triple,
} from "./memory/graph.ts";
export {
  type EntityPatch,
  formatFact,
  type GraphEntityType,
  type GraphFilter,
  type GraphIntrospection,
  type GraphStore,
  type MergeResult,
  type NeighbourhoodOptions,
  type RelationPatch,
} from "./memory/graph_store.ts";
export {
  Heartbeat,
  type HeartbeatCounts,
  type HeartbeatStats,
  type HeartbeatTask,
} from "./memory/heartbeat.ts";
export {
  agentConsolidator,
  ConsolidationError,
  type Consolidator,
  type Decision,
  type GraphMaintenance,
  readDecision,
} from "./memory/consolidation.ts";
export {
  type KnowledgeBase,
  type KnowledgeEntry,
  KnowledgeError,
  type KnowledgeHit,
  knowledgeSection,
  knowledgeTools,
} from "./memory/knowledge.ts";
export type * from "./memory/conversation.ts";
export { graphMemoryTools, graphTools } from "./memory/graph_tools.ts";
export { socialTools } from "./memory/social_tools.ts";
export {
  type CauseTotals,
  emptyTotals,
  lastWeekOfUsage,
  type RecordedUsage,
  type UsageLedger,
  type UsageRecord,
  type UsageTotals,
} from "./llm/usage.ts";
export {
  formatUsageReport,
  type UsageReport,
  usageReport,
  type UsageSum,
} from "./llm/usage_report.ts";
export { LuaBudget } from "./lua/budget.ts";
export { describeBreach, type LuaBreach, LuaCall, type LuaLimits } from "./lua/call.ts";
export { resumeUnderBudget } from "./lua/resume.ts";
export { configCommand } from "./config/command.ts";
export { KernelNotices } from "./kernel/notices.ts";
export { createKernel } from "./agents/kernel.ts";
export {
  checkForgetName,
  type ForgetReport,
  forgetTool,
  formatForgetReport,
  MAX_FORGET_NAME,
  type MemoryForgetter,
  type TextRedactor,
} from "./memory/forget.ts";
