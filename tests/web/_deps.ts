/** Fake ports for the web app's route tests. */
import {
  ConfigError,
  type GraphEntity,
  type GraphRelation,
  HomeAgentError,
  type KernelEvent,
  PluginError,
  type Reply,
} from "../../core/mod.ts";
import type { ChatInjectRequest, PluginView, WebDeps } from "../../web/mod.ts";
import { ManualClock } from "../fakes/clock.ts";

/** The token the fakes use. */
export const TOKEN = "0123456789abcdef0123456789abcdef";
/** Bearer header of TOKEN. */
export const bearer = { authorization: `Bearer ${TOKEN}` };

/** Fakes with what they recorded. */
export interface FakeWeb {
  deps: WebDeps;
  clock: ManualClock;
  chats: ChatInjectRequest[];
  stops: number;
  publish(event: KernelEvent): void;
  settings: Map<string, unknown>;
  relations: GraphRelation[];
  plugins: PluginView[];
  installed: Uint8Array[];
}

const entity = (id: number, name: string): GraphEntity => ({
  id,
  name,
  type: "person",
  mentions: 1,
  createdAt: 0,
  updatedAt: 0,
});

/** Build fake deps; `reply` decides each chat reply (default: echo). */
export function fakeWeb(options: { reply?: (text: string) => Reply | undefined } = {}): FakeWeb {
  const clock = new ManualClock();
  const handlers = new Set<(event: KernelEvent) => void>();
  const settings = new Map<string, unknown>([["core.agent.max_tool_turns", 8], [
    "core.web.host",
    "127.0.0.1",
  ]]);
  const relations: GraphRelation[] = [{
    id: 1,
    source: "Alice",
    target: "Paris",
    type: "lives_in",
    confidence: 1,
    status: "active",
    validFrom: 0,
    sentence: "Alice lives in Paris.",
    turnIds: [],
    createdAt: 0,
  }];
  const plugins: PluginView[] = [{ name: "timer", kind: "builtin", state: "running" }];
  const fake: FakeWeb = {
    clock,
    chats: [],
    stops: 0,
    settings,
    relations,
    plugins,
    installed: [],
    publish: (event) => handlers.forEach((h) => h(event)),
    deps: {
      token: TOKEN,
      clock,
      status: () => ({ ok: true, kernel: { state: "idle" } }),
      chat: {
        inject(request) {
          fake.chats.push(request);
          const reply = options.reply ? options.reply(request.text) : {
            inputId: "i1",
            channel: request.channel,
            text: `echo ${request.text}`,
            status: "ok",
          } as Reply;
          if (reply) queueMicrotask(() => request.onReply(reply));
          return { accepted: true, inputId: "i1" };
        },
        stop() {
          fake.stops++;
          return { wasRunning: true };
        },
      },
      events(handler) {
        handlers.add(handler);
        return () => handlers.delete(handler);
      },
      settings: {
        list: (prefix = "") =>
          [...settings].filter(([k]) => k.startsWith(prefix)).map(([key, value]) => ({
            key,
            value,
            default: key === "core.web.host" ? "127.0.0.1" : 8,
            description: "d",
            secret: false,
            restart: false,
            isDefault: false,
            source: "stored" as const,
          })),
        set(key, value) {
          if (!settings.has(key)) throw new ConfigError(key, `Unknown setting "${key}"`);
          if (key === "core.agent.max_tool_turns" && (typeof value !== "number" || value < 1)) {
            throw new ConfigError(key, `Cannot set "${key}": expected a number ≥ 1`);
          }
          settings.set(key, value);
        },
        setFromText(key, text) {
          this.set(key, key === "core.agent.max_tool_turns" ? Number(text) : text);
        },
        unset: (key) => void settings.set(key, key === "core.web.host" ? "127.0.0.1" : 8),
      },
      memory: {
        graph: {
          recall: () =>
            Promise.resolve({
              entities: [entity(1, "Alice")],
              relations: relations.filter((r) => r.status === "active"),
            }),
          entity: (name) => Promise.resolve(name === "Alice" ? entity(1, "Alice") : undefined),
          history: () => Promise.resolve(relations),
          editRelation(id, patch) {
            const r = relations.find((x) => x.id === id);
            if (!r) {
              return Promise.reject(new HomeAgentError("graph_not_found", `No relation #${id}`));
            }
            Object.assign(
              r,
              patch.type ? { type: patch.type } : {},
              patch.target ? { target: patch.target } : {},
              patch.status ? { status: patch.status } : {},
            );
            return Promise.resolve(r);
          },
          deleteEntity: () => Promise.resolve({ relations: 1 }),
          browse: () => Promise.resolve({ entities: [entity(1, "Alice")], relations }),
          versions(id) {
            const r = relations.find((x) => x.id === id);
            if (!r) return Promise.reject(new HomeAgentError("graph_not_found", `No fact ${id}`));
            return Promise.resolve(
              relations.filter((x) => x.source === r.source && x.type === r.type),
            );
          },
          entityTypes: () => Promise.resolve([{ type: "person", entities: 1 }]),
        },
        documents: ({ query }) =>
          Promise.resolve([{ id: "d1", summary: `doc ${query ?? "all"}`, createdAt: 0 }]),
        context: (query) =>
          Promise.resolve({
            query: query ?? "hello",
            events: [{
              id: "e1",
              role: "user",
              source: "web",
              channel: "web",
              text: "hello",
              timestamp: 0,
              score: 0.5,
            }],
          }),
      },
      plugins: {
        list: () => plugins,
        enable: (name) => Promise.resolve({ name, state: "running" }),
        disable(name) {
          if (name === "nope") return Promise.reject(new PluginError(name, `No plugin "${name}"`));
          return Promise.resolve({ name, state: "disabled" });
        },
        reload: (name) => Promise.resolve({ name, state: "running" }),
        install(bytes) {
          fake.installed.push(bytes);
          return Promise.resolve({ name: "uploaded", state: "running" });
        },
        review: () =>
          Promise.resolve({
            name: "uploaded",
            sha256: "f".repeat(64),
            lines: ['Plugin "uploaded" 1.0.0'],
          }),
      },
      llm: {
        sources: () => [{
          name: "env",
          adapter: "openai",
          model: "m",
          state: "ok",
          calls: 2,
          failures: 0,
        }],
        usage: () => [{
          source: "env",
          day: "2026-01-01",
          promptTokens: 10,
          completionTokens: 5,
          calls: 2,
        }],
      },
      agents: { list: () => [] },
      sse: { ringSize: 5, clientBuffer: 4, heartbeatMs: 15_000 },
    },
  };
  return fake;
}
