/**
 * What the web app needs from the daemon (DESIGN.md §6). main.ts builds these ports from the
 * Agent, the ConfigRegistry, the memory tiers, the plugin registry and the providers; tests pass
 * fakes. An optional port left out makes its routes answer 501 with a clear message.
 */
import type {
  Clock,
  ConfigDescription,
  ConfigEntry,
  ConversationHistory,
  ForgetReport,
  GraphEntity,
  GraphEntityType,
  GraphFilter,
  GraphRecall,
  GraphRelation,
  KernelEvent,
  Logger,
  MediaRef,
  MediaStore,
  OwnerQuestion,
  PluginRoute,
  RelationPatch,
  Reply,
  ResidentSummary,
  SourceConfig,
  UsageReport,
} from "../core/mod.ts";

/** One chat input as the web injects it. */
export interface ChatInjectRequest {
  text: string;
  channel: string;
  /** Keep the input and its reply out of the context window (and so out of memory). */
  ephemeral?: boolean;
  /** Answer without tools (the OpenAI-compatible endpoint). */
  noTools?: boolean;
  /** Images that came with it, already stored. */
  media?: MediaRef[];
  /** Receives the one terminal reply. */
  onReply(reply: Reply): void;
  /** Aborted when the client went away: the input is cancelled (it still gets its reply). */
  signal?: AbortSignal;
}

/** Outcome of an injection. */
export interface ChatInjectResult {
  accepted: boolean;
  inputId: string;
  reason?: string;
}

/** Chat with the kernel. */
export interface ChatPort {
  /** Queue an input; a refused input still gets its reply through `onReply`. */
  inject(request: ChatInjectRequest): ChatInjectResult;
  /** The owner's stop: cancel the running turn; waiting inputs are answered "stopped". */
  stop(): { wasRunning: boolean };
}

/** The conversation across every channel, from the text log: pages go backwards in time. */
export type HistoryPort = ConversationHistory;

/** The kernel's event bus, subscribe-only: returns the unsubscribe function. */
export type EventsPort = (handler: (event: KernelEvent) => void) => () => void;

/** The ConfigRegistry as the settings page uses it. Setters throw ConfigError when refused. */
export interface SettingsPort {
  list(prefix?: string): ConfigEntry[];
  set(key: string, value: unknown): void;
  /** Parse `text` per the key's type (number, true/false, JSON or plain text), then set. */
  setFromText(key: string, text: string): void;
  unset(key: string): void;
  /** The definition behind a key (its pattern, JSON Schema, expected value in words). */
  describe?(key: string): ConfigDescription;
}

/** The part of the graph store the memory view reads and edits (core GraphStore contract). */
export interface GraphPort {
  recall(query: { keywords: readonly string[]; depth?: number; limit?: number }): Promise<
    GraphRecall
  >;
  entity(name: string): Promise<GraphEntity | undefined>;
  history(name: string, options?: { limit?: number }): Promise<GraphRelation[]>;
  editRelation(id: number, patch: RelationPatch): Promise<GraphRelation>;
  deleteEntity(name: string): Promise<{ relations: number }>;
  /** Facts by entity type and time, closed and deleted ones when a time asks for them. */
  browse(filter: GraphFilter): Promise<GraphRecall>;
  /** Every version of one fact, oldest first; rejects `graph_not_found`. */
  versions(id: number): Promise<GraphRelation[]>;
  entityTypes(): Promise<GraphEntityType[]>;
}

/** A document as the memory view lists it. */
export interface DocumentView {
  id: string;
  summary: string;
  content?: string;
  source?: string;
  createdAt: number;
  accessCount?: number;
  score?: number;
}

/** One document read whole: its text is the conversation it archived. */
export interface DocumentText extends DocumentView {
  content: string;
  turnIds: string[];
}

/** A context-window event with its relevance to the query. */
export interface ContextView {
  id: string;
  role: string;
  source: string;
  channel: string;
  text: string;
  timestamp: number;
  score?: number;
}

/** Memory tiers for the dashboard. */
export interface MemoryPort {
  graph: GraphPort;
  documents(options: { query?: string; limit: number }): Promise<DocumentView[]>;
  /** One document with its text (not counted as an access); undefined when absent. */
  document?(id: string): Promise<DocumentText | undefined>;
  /** The working window, oldest first, scored against `query` (default: the newest event). */
  context(query?: string): Promise<{ query: string; events: ContextView[] }>;
  /** Forget a name in every tier (memory forget); rejects with NameError on a bad name. */
  forget?(name: string): Promise<ForgetReport>;
}

/** One knowledge-base entry. */
export interface KnowledgeEntry {
  name: string;
  title?: string;
  content?: string;
  updatedAt?: number;
}

/** The knowledge base. */
export interface KnowledgePort {
  list(): Promise<KnowledgeEntry[]>;
  /** Undefined when there is no such entry. */
  get(name: string): Promise<KnowledgeEntry | undefined>;
  create(name: string, content: string): Promise<KnowledgeEntry>;
  /** Replace an entry's content (creating it when missing). */
  update?(name: string, content: string): Promise<KnowledgeEntry>;
}

/** A plugin as the dashboard shows it. */
export interface PluginView {
  name: string;
  kind?: string;
  version?: string;
  state: string;
  error?: string;
  /** Crashes in the last 5 minutes. */
  crashes?: number;
  /** Restarts after a crash since HomeAgent started, and the last crash. */
  restarts?: number;
  lastCrash?: { at: number; reason: string };
  /** What it is for (an installed plugin's manifest). */
  description?: string;
  /** What its manifest asks for (installed plugins). */
  permissions?: PluginPermissionsView;
  /** A built-in the owner may turn off (`core.plugins.<name>.enabled`). */
  optional?: boolean;
  tools?: string[];
  channels?: string[];
  /** The plugin's settings, secrets masked. */
  settings?: { key: string; value: unknown }[];
}

/** A manifest's declared permissions and capabilities. */
export interface PluginPermissionsView {
  capabilities: string[];
  read: string[];
  write: string[];
  net: string[];
  env: string[];
  run: string[];
}

/** The plugin registry. Each call may throw PluginError (shown as 400) or HomeAgentError. */
export interface PluginsPort {
  list(): PluginView[];
  enable(name: string): Promise<PluginView>;
  disable(name: string): Promise<PluginView>;
  reload(name: string): Promise<PluginView>;
  /** Stop an installed plugin and delete its folder; a built-in is refused (PluginError). */
  uninstall?(name: string): Promise<void>;
  /** Install a .hmap package (a zip with plugin.json at its root). */
  install(bytes: Uint8Array): Promise<PluginView>;
  /** What a package asks for (verified, not installed): shown before the owner confirms. */
  review(bytes: Uint8Array): Promise<PluginReviewView>;
}

/**
 * A package's permission review (the plugin host's PermissionReview: names, paths, hosts,
 * warnings), passed through as JSON; `sha256` is what the confirming upload repeats.
 */
export interface PluginReviewView {
  name: string;
  sha256: string;
  /** The review in words; "!" lines are warnings. */
  lines: string[];
}
/** Token usage of one source on one day. */
export interface UsageRow {
  source: string;
  day: string;
  promptTokens: number;
  completionTokens: number;
  calls: number;
}

/** One LLM source and its health (a subset of core SourceHealth; extra fields pass through). */
export interface SourceView {
  name: string;
  adapter: string;
  model: string;
  state: string;
  lastError?: string;
  calls: number;
  failures: number;
}

/** LLM sources with their health and token usage. */
export interface LlmPort {
  sources(): SourceView[];
  /** Usage rows, newest day first; empty when no ledger is kept. */
  usage(): UsageRow[];
  /** The last `days` days by day, source and cause, with money where priced (the chart). */
  report?(days: number): UsageReport;
}

/** Resident agents. */
export interface AgentsPort {
  list(): ResidentSummary[];
}

/** A skill in <home>/skills, as the skills panel shows it. */
export interface SkillView {
  name: string;
  description: string;
  version?: string;
  source: string;
  integrity?: string;
  files: string[];
}

/** Skills: list, review a package (fetched and verified, not installed), install, remove. */
export interface SkillsPort {
  list(): SkillView[];
  /** `npm:<package>` or a ClawHub slug: what it holds, and the integrity to confirm. */
  review(source: string): Promise<{ source: string; integrity?: string; lines: string[] }>;
  /** Install exactly the reviewed package; rejects when the source now serves another. */
  install(source: string, integrity?: string): Promise<SkillView[]>;
  remove(name: string): Promise<void>;
}

/** HomeAgent's MCP server over Streamable HTTP; the app checks the token and Origin first. */
export interface McpPort {
  /** Answer one request to /mcp (POST, GET for the session's stream, DELETE to end it). */
  handle(request: Request): Promise<Response>;
}

/** Questions plugins put to the owner (the kernel's OwnerQuestions). */
export interface QuestionsPort {
  pending(): OwnerQuestion[];
  /** False when no such question waits. */
  answer(id: string, approve: boolean, by: string): boolean;
}

/** The routes plugins offer (the kernel's RouteRegistry). */
export interface PluginRoutesPort {
  match(
    plugin: string,
    method: string,
    path: string,
  ): { route: PluginRoute; params: Record<string, string> } | undefined;
}

/** A failed probe of a source, in words (a ProviderError's kind, status and message). */
export interface ProbeFailureView {
  kind: string;
  message: string;
  status?: number;
}

/** A model listing's outcome: the ids, or the source's error. */
export type ModelListView =
  | { ok: true; models: string[] }
  | { ok: false; error: ProbeFailureView };

/** A test call's outcome: the model's answer, or the source's error. */
export type SourceTestView =
  | { ok: true; model: string; text: string; ms: number }
  | { ok: false; error: ProbeFailureView };

/** One step of a model install (memory's InstallProgress, passed through as JSON). */
export interface ModelInstallStep {
  /** "download", "verify", "probe" or "done". */
  phase: string;
  /** The file being downloaded ("model", "tokenizer"), with its bytes so far and total. */
  file?: string;
  bytes?: number;
  total?: number;
  name?: string;
}

/**
 * First run (the setup screen): try a source before it is saved, with the daemon's own
 * adapters, server-side; edit the persona; show and install the semantic memory model.
 */
export interface SetupPort {
  /** The model ids the source's API lists, or its error; never rejects. */
  models(source: SourceConfig, options?: { signal?: AbortSignal }): Promise<ModelListView>;
  /** One short real call; resolves with the error as data, never rejects. */
  test(source: SourceConfig, options?: { signal?: AbortSignal }): Promise<SourceTestView>;
  persona: { read(): string; write(text: string): Promise<void> };
  /** `memory model list` / `install`; absent: those routes answer 501. */
  memoryModel?: {
    status(): Promise<unknown>;
    install(
      request: { name?: string; from?: string },
      options: { onProgress?: (step: ModelInstallStep) => void; signal?: AbortSignal },
    ): Promise<unknown>;
  };
}

/** Everything createApp takes. */
export interface WebDeps {
  /** The access token (core.web.token). */
  token: string;
  clock: Clock;
  logger?: Logger;
  status(): unknown;
  chat: ChatPort;
  events: EventsPort;
  /** The conversation history; absent: 501. */
  history?: HistoryPort;
  settings?: SettingsPort;
  memory?: MemoryPort;
  knowledge?: KnowledgePort;
  plugins?: PluginsPort;
  llm?: LlmPort;
  agents?: AgentsPort;
  skills?: SkillsPort;
  /** The setup screen's probes, persona and memory model; absent: 501. */
  setup?: SetupPort;
  /** The media store (uploads, images in chat and the OpenAI endpoint); absent: images are refused. */
  media?: MediaStore;
  /** The MCP server at /mcp; absent: 404. */
  mcp?: McpPort;
  /** The server listens on loopback only: /mcp refuses a Host that is not a loopback name. */
  localOnly?: boolean;
  questions?: QuestionsPort;
  pluginRoutes?: PluginRoutesPort;
  /** SSE tuning (tests and benchmarks). */
  sse?: { ringSize?: number; clientBuffer?: number; heartbeatMs?: number };
  /** Name reported by GET /v1/models; default "homeagent". */
  modelName?: string;
}
