/**
 * The daemon's LLM sources: the bundled Lua adapter scripts copied to `<home>/adapters` (edits
 * there win, docs/adapters.md), the Lua runtime over them, and the ProviderManager that tries
 * the configured sources in order.
 */
import { join } from "node:path";
import {
  type Clock,
  type ConfigRegistry,
  type KernelNoticeKind,
  type Logger,
  ProviderManager,
  type TokenizerFor,
  type UsageLedger,
} from "../core/mod.ts";
import { createProviderFactory } from "./factory.ts";
import { createSourceProbe, type SourceProbe } from "./source_probe.ts";
import {
  bundledAdapters,
  installBundledAdapters,
  luaAdapterLimits,
  LuaAdapterRuntime,
} from "./lua/mod.ts";

/** Options of openProviders. */
export interface OpenProvidersOptions {
  /** The home; its `adapters/` folder holds the Lua scripts the owner may edit. */
  home: string;
  /** wasmoon's wasm as a file (luaGlueFile): a bundle or a compiled binary carries it inside. */
  luaWasmPath: string;
  config: ConfigRegistry;
  clock: Clock;
  logger: Logger;
  /** Token use per source and day; also what daily caps are checked against. */
  usage: UsageLedger;
  /** How the owner runs the command line, named in advice. */
  command: string;
  /** The token counter of a source's model (createTokenizers); default the estimate. */
  tokenizer?: TokenizerFor;
  /** Where a source that became unusable until its settings change is reported (L4). */
  notices: { send(kind: KernelNoticeKind, subject: string, text: string): void };
}

/** The daily token cap of `cause`; 0 for a name no setting can hold. */
function causeCap(config: ConfigRegistry, cause: string): number {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cause)) return 0;
  return config.get<number>(`core.llm.causes.${cause}.daily_token_cap`);
}

/** The daemon's LLM side: the manager over the configured sources, and a probe for new ones. */
export interface OpenedProviders {
  manager: ProviderManager;
  /** Lists models and test-calls a source not yet saved, with the same adapters. */
  probe: SourceProbe;
  /**
   * The bundled adapters' copies in `<home>/adapters`, written while the start goes on (until
   * then the runtime runs the bundled text); rejects as installBundledAdapters does.
   */
  installed: Promise<void>;
}

/**
 * Install the bundled adapters and build the provider manager over the configured sources
 * (with none, it says so in the log: the daemon still starts, and chat answers how to add one).
 */
export function openProviders(options: OpenProvidersOptions): OpenedProviders {
  const { clock, logger, config, command } = options;
  const dir = join(options.home, "adapters");
  // Not awaited here: a new home's nine file creations took ~10 ms of the start, before the
  // socket listened, and nothing before it needs them (serve awaits them before announcing).
  const installed = installBundledAdapters(dir, bundledAdapters, logger).then(() => {});
  installed.catch(() => {}); // a start failing earlier reports its own error instead
  const lua = new LuaAdapterRuntime({
    logger: logger.child({ component: "lua" }),
    dir,
    ...luaAdapterLimits(config),
    wasmPath: options.luaWasmPath,
  });
  const factory = createProviderFactory({
    clock,
    logger,
    adapters: lua.adapters(),
    resolve: (name) => lua.resolve(name),
  });
  const manager = new ProviderManager({
    clock,
    logger: logger.child({ component: "providers" }),
    sources: () => config.llmSources(),
    factory,
    retryDelayMs: config.get<number>("core.llm.retry_delay_ms"),
    usage: options.usage,
    tokenizer: options.tokenizer,
    causeCap: (cause) => causeCap(config, cause),
    command,
    onUnusable: (source, error) =>
      options.notices.send(
        "provider_unusable",
        source,
        `LLM source "${source}" is unusable until its settings change: ${error.message}. ` +
          `Tell the owner to fix core.llm.sources.${source}.* (${command} config set).`,
      ),
  });
  if (!manager.hasSources()) {
    logger.warn("No LLM source configured; chat will answer with how to configure one");
  }
  return { manager, probe: createSourceProbe({ factory, clock, logger }), installed };
}
