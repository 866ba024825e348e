/**
 * The restricted SDK external plugins call (ARCHITECTURE.md "Restricted External Plugin API"):
 * input injection clamped to L3, settings, memory, documents, knowledge, read-only social and
 * asking the owner, each gated by a capability declared in plugin.json. Shared by subprocess and
 * Lua plugins.
 */
import { checkMediaCount, errorMessage, type MediaRef, type PluginSDK } from "../../core/mod.ts";
import { type Capability, ErrorCode, RpcError } from "../sdk/protocol.ts";

/** Kernel services a plugin may reach, wired by the composition root; absent ones answer "not available". */
export interface PluginServices {
  memoryRecall?(query: string, k: number, signal?: AbortSignal): Promise<unknown[]>;
  memoryCommit?(text: string, tags: string[], source: string): Promise<{ id: string }>;
  docQuery?(query: string, k: number): Promise<unknown[]>;
  docCommit?(
    doc: { content: string; summary?: string; tags?: string[]; source: string },
  ): Promise<{ id: string; duplicate: boolean }>;
  knowledgeSearch?(query: string, k: number): Promise<unknown[]>;
  knowledgeCreate?(name: string, content: string): Promise<void>;
  socialGetPerson?(name: string): Promise<unknown>;
  socialListPersons?(): Promise<unknown[]>;
  socialGetRelations?(name: string): Promise<unknown[]>;
}

/** Options of createRestrictedApi. */
export interface RestrictedApiOptions {
  sdk: PluginSDK;
  capabilities: readonly Capability[];
  services?: PluginServices;
  /** Channels the plugin may inject from besides its own name (its input/output channels). */
  channels: Set<string>;
  /** Keys of the plugin's declared settings, for settings.list. */
  settingKeys?: () => string[];
  /**
   * The tool call `callId` names, while the kernel waits for it: its turn, and the signal that
   * aborts when the turn stops (owner.ask asked for it is then cancelled).
   */
  toolCall?: (callId: string) => { turnId: string; signal: AbortSignal } | undefined;
}

/** Calls one restricted SDK method; rejects with RpcError (notCapable, notAvailable, invalidParams). */
export type RestrictedApi = (method: string, params: unknown) => Promise<unknown>;

const CAPABILITY_OF: Record<string, Capability> = {
  "settings.get": "settings",
  "settings.set": "settings",
  "settings.list": "settings",
  "input.inject": "input",
  "input.interrupt": "interrupt",
  "memory.recall": "memory",
  "memory.commit": "memory",
  "doc.query": "docs",
  "doc.commit": "docs",
  "knowledge.search": "knowledge",
  "knowledge.create": "knowledge",
  "social.get_person": "social",
  "social.list_persons": "social",
  "social.get_relations": "social",
  "owner.ask": "ask",
};

/** Whether `method` belongs to the restricted API (as opposed to registration). */
export function isApiMethod(method: string): boolean {
  return method in CAPABILITY_OF;
}

/** Refuse with NotCapable unless `capability` is declared. */
export function requireCapability(
  plugin: string,
  capabilities: readonly Capability[],
  capability: Capability,
  method: string,
): void {
  if (!capabilities.includes(capability)) {
    throw new RpcError(
      ErrorCode.notCapable,
      `Plugin "${plugin}" may not call "${method}": capability "${capability}" is not declared in plugin.json`,
    );
  }
}

/** Build the restricted API of one plugin. */
export function createRestrictedApi(options: RestrictedApiOptions): RestrictedApi {
  const { sdk, services = {} } = options;
  const plugin = sdk.pluginName;
  const need = <T>(fn: T | undefined, method: string): T => {
    if (!fn) {
      throw new RpcError(ErrorCode.notAvailable, `"${method}" is not available in this kernel`);
    }
    return fn;
  };
  return async (method, raw) => {
    const capability = CAPABILITY_OF[method];
    if (!capability) throw new RpcError(ErrorCode.methodNotFound, `Method "${method}" not found`);
    requireCapability(plugin, options.capabilities, capability, method);
    const p = (raw ?? {}) as Record<string, unknown>;
    const str = (key: string) => stringParam(p, key, method);
    const k = clampK(p.k);
    switch (method) {
      case "settings.get":
        return { value: guard(() => sdk.settings.get(str("key"))) };
      case "settings.set":
        guard(() => sdk.settings.set(str("key"), p.value));
        return null;
      case "settings.list":
        return {
          values: Object.fromEntries(
            (options.settingKeys?.() ?? []).map((key) => [key, sdk.settings.get(key)]),
          ),
        };
      case "input.inject":
      case "input.interrupt":
        return await inject(method, p, options);
      case "memory.recall":
        return { items: await need(services.memoryRecall, method)(str("query"), k) };
      case "memory.commit":
        return await need(services.memoryCommit, method)(str("text"), tags(p.tags), plugin);
      case "doc.query":
        return { items: await need(services.docQuery, method)(str("query"), k) };
      case "doc.commit":
        return await need(services.docCommit, method)({
          content: str("content"),
          summary: typeof p.summary === "string" ? p.summary : undefined,
          tags: tags(p.tags),
          source: `plugin:${plugin}`,
        });
      case "knowledge.search":
        return { items: await need(services.knowledgeSearch, method)(str("query"), k) };
      case "knowledge.create":
        await need(services.knowledgeCreate, method)(str("name"), str("content"));
        return null;
      case "social.get_person":
        return { person: await need(services.socialGetPerson, method)(str("name")) };
      case "social.list_persons":
        return { persons: await need(services.socialListPersons, method)() };
      case "owner.ask":
        return { answer: await askOwner(p, options) };
      default:
        return { relations: await need(services.socialGetRelations, method)(str("name")) };
    }
  };
}

async function inject(
  method: string,
  p: Record<string, unknown>,
  options: RestrictedApiOptions,
): Promise<unknown> {
  const { sdk } = options;
  const text = stringParam(p, "text", method);
  const channel = typeof p.channel === "string" ? p.channel : sdk.pluginName;
  if (channel !== sdk.pluginName && !options.channels.has(channel)) {
    throw new RpcError(
      ErrorCode.invalidParams,
      `Plugin "${sdk.pluginName}" may inject only on its own channels, not "${channel}"`,
    );
  }
  const priority = typeof p.priority === "number" ? Math.trunc(p.priority) : undefined;
  if (priority !== undefined && (priority < 0 || priority > 4)) {
    throw new RpcError(ErrorCode.invalidParams, `Priority ${priority} is not 0–4`);
  }
  const media = await storeWireMedia(p.media, sdk, method);
  const opts = {
    channel,
    sender: typeof p.sender === "string" ? p.sender : undefined,
    priority: priority as 0 | 1 | 2 | 3 | 4 | undefined,
    meta: isRecord(p.meta) ? p.meta : undefined,
    ...(media.length > 0 ? { media } : {}),
  };
  if (method === "input.interrupt") return sdk.injectInterrupt(text, opts);
  if (p.wait === true) {
    const reply = await sdk.injectInputSync(text, opts);
    return { accepted: reply.status !== "refused", inputId: reply.inputId, reply };
  }
  return sdk.injectInput(text, opts);
}

/** `owner.ask`: the question goes to the owner; a stopped turn of its tool call cancels it. */
function askOwner(p: Record<string, unknown>, options: RestrictedApiOptions) {
  const title = stringParam(p, "title", "owner.ask");
  const text = (key: string) => typeof p[key] === "string" ? p[key] as string : undefined;
  const callId = text("callId");
  const call = callId === undefined ? undefined : options.toolCall?.(callId);
  if (callId !== undefined && !call) {
    throw new RpcError(ErrorCode.invalidParams, `No tool call "${callId}" is running`);
  }
  return options.sdk.askOwner({
    title,
    detail: text("detail"),
    timeoutMs: typeof p.timeoutMs === "number" ? p.timeoutMs : undefined,
    turnId: call?.turnId,
  }, { signal: call?.signal });
}

/**
 * An input's `media` from a plugin, stored: each item base64 (a hint of its type beside it),
 * the count bounded by the store's limit; a refusal is the plugin's invalid-params error.
 */
async function storeWireMedia(value: unknown, sdk: PluginSDK, method: string): Promise<MediaRef[]> {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((m) => isRecord(m) && typeof m.data === "string")) {
    throw new RpcError(ErrorCode.invalidParams, `${method}: media must be a list of {data, mime?}`);
  }
  try {
    if (sdk.mediaLimits) checkMediaCount(value.length, sdk.mediaLimits);
    const refs: MediaRef[] = [];
    for (const item of value as { data: string; mime?: unknown }[]) {
      const bytes = Uint8Array.from(atob(item.data), (ch) => ch.charCodeAt(0));
      const declaredMime = typeof item.mime === "string" ? item.mime : undefined;
      refs.push(await sdk.storeMedia(bytes, { declaredMime }));
    }
    return refs;
  } catch (error) {
    throw new RpcError(ErrorCode.invalidParams, `${method}: ${errorMessage(error)}`);
  }
}

function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw new RpcError(ErrorCode.invalidParams, errorMessage(error));
  }
}

function stringParam(p: Record<string, unknown>, key: string, method: string): string {
  const value = p[key];
  if (typeof value !== "string" || value === "") {
    throw new RpcError(ErrorCode.invalidParams, `"${method}" needs a non-empty string "${key}"`);
  }
  return value;
}

function clampK(value: unknown): number {
  return typeof value === "number" && value >= 1 ? Math.min(Math.trunc(value), 50) : 5;
}

function tags(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((t): t is string => typeof t === "string") : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
