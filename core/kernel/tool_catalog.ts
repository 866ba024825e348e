/**
 * Tools by need (issue 16): a request carries the schemas of a small always-present set — the
 * `core.tools.always` names, the owner's `core.tools.pinned`, tools a plugin marked `always`,
 * the reply channel's send tool — plus what the model loaded; every other tool is found with
 * `tool_search` and made part of the request with `tool_load`, for the rest of the turn and the
 * next `core.tools.load_turns` turns. A source whose window reaches
 * `core.tools.all_schemas_window` gets every schema, as before. A call to a registered tool that
 * was not sent still runs (its arguments are checked) and loads it: the model may know the name.
 */
import type { Input } from "../input.ts";
import { inferPlugin, type RegisteredTool, type ToolResult } from "./tools.ts";
import { lexicalRanker, type TextRanker } from "../memory/ranker.ts";
import { errorMessage } from "../errors.ts";
import type { Logger } from "../ports.ts";

/** The settings the catalog reads at every turn. */
export interface ToolCatalogSettings {
  /** Tool names whose schemas every request carries. */
  always: readonly string[];
  /** The owner's additions to `always`. */
  pinned: readonly string[];
  /** Turns after the loading one that a loaded tool stays. */
  loadTurns: number;
  /** A source with a window of at least this many tokens gets every schema; 0: never. */
  allSchemasWindow: number;
  /** Most tools one tool_search lists. */
  searchLimit: number;
}

/** The least score a tool_search result needs (both rankers score a shared word above it). */
const MIN_SCORE = 0.1;

/** The names of the catalog's own tools. */
export const TOOL_SEARCH = "tool_search";
export const TOOL_LOAD = "tool_load";

/** Options of a ToolCatalog. */
export interface ToolCatalogOptions {
  /** Where the agent's tools come from (registered, channels, kernel sources), re-read each use. */
  sources: readonly (() => RegisteredTool[])[];
  /** Read at every use: `core.tools.*`. */
  config: { get<T = unknown>(key: string): T };
  /** How tool_search matches; the memory's hybrid search in the daemon. */
  ranker?: TextRanker;
  logger: Logger;
}

/** What one turn sees of the catalog. */
export interface TurnTools {
  /** The tools a request to a source with `window` tokens carries, from `all`. */
  visible(all: readonly RegisteredTool[], window: number): RegisteredTool[];
  /** The model called these: they stay loaded for the rest of the turn. */
  called(names: Iterable<string>): void;
  /** The turn is over: what it loaded stays for the next turns. */
  close(): void;
}

interface TurnState {
  input: Input;
  /** Read once when the turn starts: a request is built several times a round. */
  settings: ToolCatalogSettings;
  loaded: Set<string>;
}

/** The agent's catalog: the tools' visibility per turn and tool_search / tool_load. */
export class ToolCatalog {
  #options: ToolCatalogOptions;
  #turns = new Map<string, TurnState>();
  /** Tools loaded by earlier turns, with the turns they have left. */
  #kept = new Map<string, number>();

  constructor(options: ToolCatalogOptions) {
    this.#options = options;
  }

  /** The view of the turn answering `input`; close it when the turn ends. */
  forTurn(input: Input): TurnTools {
    const state: TurnState = { input, settings: this.#settings(), loaded: new Set() };
    this.#turns.set(input.id, state);
    return {
      visible: (all, window) => this.#visible(state, all, window),
      called: (names) => {
        for (const name of names) state.loaded.add(name);
      },
      close: () => this.#close(state),
    };
  }

  /** Names loaded by earlier turns and still kept (for status and tests). */
  kept(): string[] {
    return [...this.#kept.keys()];
  }

  /** Every tool of the agent: its sources' and, when there are any, tool_search and tool_load. */
  all(): RegisteredTool[] {
    const own = this.#own();
    return own.length > 0 ? [...own, this.#searchTool(own), this.#loadTool()] : [];
  }

  /** The sources' tools, without the catalog's own. */
  #own(): RegisteredTool[] {
    return this.#options.sources.flatMap((source) => source());
  }

  #settings(): ToolCatalogSettings {
    const { config } = this.#options;
    const names = (key: string) =>
      config.get<string>(key).split(",").map((n) => n.trim()).filter((n) => n !== "");
    return {
      always: names("core.tools.always"),
      pinned: names("core.tools.pinned"),
      loadTurns: config.get<number>("core.tools.load_turns"),
      allSchemasWindow: config.get<number>("core.tools.all_schemas_window"),
      searchLimit: config.get<number>("core.tools.search_limit"),
    };
  }

  #visible(state: TurnState, all: readonly RegisteredTool[], window: number): RegisteredTool[] {
    const settings = state.settings;
    if (settings.allSchemasWindow > 0 && window >= settings.allSchemasWindow) {
      return all.filter((t) => t.name !== TOOL_SEARCH && t.name !== TOOL_LOAD);
    }
    const wanted = this.#wanted(state, settings);
    return all.filter((t) => t.always === true || wanted.has(t.name));
  }

  #wanted(state: TurnState, settings: ToolCatalogSettings): Set<string> {
    return new Set([
      ...settings.always,
      ...settings.pinned,
      `output_send__${state.input.channel}`,
      ...this.#kept.keys(),
      ...state.loaded,
    ]);
  }

  #close(state: TurnState): void {
    if (this.#turns.get(state.input.id) !== state) return;
    this.#turns.delete(state.input.id);
    const turns = Math.max(0, state.settings.loadTurns);
    for (const [name, left] of this.#kept) {
      if (left <= 1) this.#kept.delete(name);
      else this.#kept.set(name, left - 1);
    }
    if (turns === 0) return;
    for (const name of state.loaded) this.#kept.set(name, turns);
  }

  /** Every tool tool_search may offer: all but the catalog's own and those always sent. */
  #searchable(state: TurnState | undefined): RegisteredTool[] {
    const sent = state ? this.#wanted(state, state.settings) : new Set<string>();
    return this.#own().filter((t) => t.always !== true && !sent.has(t.name));
  }

  #searchTool(own: readonly RegisteredTool[]): RegisteredTool {
    return {
      name: TOOL_SEARCH,
      plugin: "core",
      description: searchDescription(own),
      parameters: {
        type: "object",
        properties: { query: { type: "string", description: "what the tool should do" } },
        required: ["query"],
      },
      parallelSafe: true,
      noMemory: true,
      handler: (args, context) => this.#search(String(args.query ?? ""), context),
    };
  }

  async #search(
    query: string,
    context: { turnId: string; signal: AbortSignal },
  ): Promise<ToolResult> {
    const candidates = this.#searchable(this.#turns.get(context.turnId));
    if (query.trim() === "") {
      return { content: "Give a query: what should the tool do?", isError: true };
    }
    if (candidates.length === 0) return { content: "No other tools are installed." };
    const texts = candidates.map((t) => `${t.name.replaceAll("_", " ")}: ${t.description}`);
    let scores: number[];
    try {
      scores = await (this.#options.ranker ?? lexicalRanker).rank(query, texts, {
        signal: context.signal,
      });
    } catch (error) {
      if (context.signal.aborted) throw error;
      this.#options.logger.warn("Tool search fell back to word matching", {
        error: errorMessage(error),
      });
      scores = await lexicalRanker.rank(query, texts);
    }
    const limit = Math.max(1, this.#turns.get(context.turnId)?.settings.searchLimit ?? 8);
    // Below a tenth, or far below the best, a score is the vectors' noise, not a match.
    const best = Math.max(0, ...scores);
    const floor = Math.max(MIN_SCORE, best * 0.3);
    const ranked = candidates.map((tool, i) => ({ tool, score: scores[i]! }))
      .filter((r) => r.score >= floor).sort((a, b) => b.score - a.score).slice(0, limit);
    if (ranked.length === 0) {
      return {
        content: `No tool matches "${query}". Tools exist for: ` +
          `${[...new Set(candidates.map((t) => t.plugin))].join(", ")}.`,
      };
    }
    const lines = ranked.map((r) => `${r.tool.name}: ${firstSentence(r.tool.description)}`);
    return { content: `${lines.join("\n")}\n(tool_load the ones you need, then call them)` };
  }

  #loadTool(): RegisteredTool {
    return {
      name: TOOL_LOAD,
      plugin: "core",
      description: "Load tools found with tool_search, to call them",
      parameters: {
        type: "object",
        properties: { names: { type: "array", items: { type: "string" }, minItems: 1 } },
        required: ["names"],
      },
      parallelSafe: true,
      noMemory: true,
      handler: (args, context) => this.#load(args.names as string[], context.turnId),
    };
  }

  #load(names: readonly string[], turnId: string): ToolResult {
    const state = this.#turns.get(turnId);
    const known = new Map(this.#own().map((t) => [t.name, t]));
    const found = [...new Set(names)].filter((n) => known.has(n));
    const unknown = names.filter((n) => !known.has(n));
    if (state) { for (const name of found) state.loaded.add(name); }
    if (found.length === 0) {
      return {
        content: `No tool named ${unknown.map((n) => `"${n}"`).join(", ")}; use tool_search`,
        isError: true,
      };
    }
    return {
      content: `Loaded ${found.join(", ")}: call ${found.length === 1 ? "it" : "them"} now.` +
        (unknown.length > 0 ? ` Unknown: ${unknown.join(", ")}.` : ""),
    };
  }
}

/**
 * One line that tells the model what exists: the first words of the names of the tools not
 * sent (config, terminal, files, …), the most common first. A plugin's name ("cfgmgr") says
 * less to a model than its tools' names do.
 */
function searchDescription(own: readonly RegisteredTool[]): string {
  const counts = new Map<string, number>();
  for (const tool of own) {
    if (tool.always) continue; // sent anyway
    const group = inferPlugin(tool.name);
    counts.set(group, (counts.get(group) ?? 0) + 1);
  }
  const groups = [...counts].sort((a, b) => b[1] - a[1]).map(([group]) => group);
  const shown = groups.slice(0, 8).join(", ") + (groups.length > 8 ? ", …" : "");
  return "Find more tools by what they do, then tool_load them" +
    (groups.length > 0 ? `; tools for ${shown}` : "");
}

/** The first sentence of a description, at most 120 characters. */
export function firstSentence(text: string): string {
  const cut = text.search(/[.。!?！？](\s|$)|\n/);
  const first = (cut >= 0 ? text.slice(0, cut + 1) : text).trim();
  return first.length <= 120 ? first : `${first.slice(0, 119)}…`;
}
