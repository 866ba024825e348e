/**
 * Backlog triage (ARCHITECTURE.md "Backlog feedback"): when the main agent has been busy too
 * long with plain inputs piling up, short-lived triage assistants look at each waiting input
 * once. A simple one is taken out of the queue and answered by the assistant (its one
 * terminal reply); any other stays where it is in the main queue and its sender gets a
 * non-terminal "busy, please wait" notice — the main agent's reply comes later, as the only
 * terminal reply. Driven by a Clock timer; docs/scheduler.md has the whole story.
 */
import type { Agent } from "../kernel/agent.ts";
import { Agent as HelperAgent } from "../kernel/agent.ts";
import type { Input } from "../input.ts";
import type { TimerHandle } from "../ports.ts";
import { errorMessage } from "../errors.ts";
import type { HelperDeps } from "./children.ts";

/** What an assistant replies, alone on its first line, when the main agent must answer. */
export const TRIAGE_DEFER = "DEFER";
/** The notice sent to the sender of an input left for the main agent. */
export const BUSY_NOTICE = "I am busy with a longer task right now. Your message is queued and " +
  "I will answer it as soon as I can.";
/** Default ms between two checks of the backlog. */
export const DEFAULT_TRIAGE_INTERVAL_MS = 10_000;

/** The `core.agent.offload_*` settings, read at every check. */
export interface TriageSettings {
  enabled: boolean;
  busyAfterMs: number;
  minPending: number;
  maxResidents: number;
}

/** What one triage round did, by input id. */
export interface TriageRound {
  answered: string[];
  deferred: string[];
  /** Left alone: the main agent started it while the assistant looked, or triage closed. */
  gone: string[];
}

/** Options of a BacklogTriage. */
export interface BacklogTriageOptions extends HelperDeps {
  /** The main agent whose queue is triaged. */
  agent: Agent;
  /** The main persona, so the assistant answers in character; default none. */
  persona?: () => string;
  intervalMs?: number;
}

const INSTRUCTIONS = "You are the triage assistant of a busy main agent. A message from a user " +
  "arrived while the main agent is occupied with a long task. If you can answer it fully and " +
  "correctly in a few sentences on your own (a greeting, a quick fact, a simple question), " +
  `reply with that answer. Otherwise reply with exactly ${TRIAGE_DEFER} and nothing else: the ` +
  "main agent will answer it later, and the user is told to wait.";

/** Watches the main agent's backlog on a Clock timer and triages it. */
export class BacklogTriage {
  readonly #options: BacklogTriageOptions;
  readonly #seen = new Set<string>();
  readonly #assistants = new Set<HelperAgent>();
  #timer?: TimerHandle;
  #round?: Promise<TriageRound>;
  #closed = false;

  constructor(options: BacklogTriageOptions) {
    this.#options = options;
  }

  /** Arm the periodic check (every `intervalMs`; the settings decide whether it acts). */
  start(): void {
    if (this.#closed || this.#timer) return;
    this.#timer = this.#options.clock.setTimer(
      this.#options.intervalMs ?? DEFAULT_TRIAGE_INTERVAL_MS,
      () => {
        this.#timer = undefined;
        this.start(); // re-armed first, so checks keep a fixed period
        void this.check();
      },
    );
  }

  /** Stop checking, cancel the assistants' work and wait for a round in flight to end. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    for (const assistant of this.#assistants) assistant.stop();
    await this.#round;
  }

  /** Resolves once no triage round is in flight. */
  async idle(): Promise<void> {
    await this.#round;
  }

  /** The settings now. */
  settings(): TriageSettings {
    const { config } = this.#options;
    return {
      enabled: config.get<boolean>("core.agent.offload_enabled"),
      busyAfterMs: config.get<number>("core.agent.offload_busy_after"),
      minPending: config.get<number>("core.agent.offload_min_pending"),
      maxResidents: config.get<number>("core.agent.offload_max_residents"),
    };
  }

  /**
   * Triage now if enabled, busy long enough and enough plain inputs wait; resolves with what
   * the round did, or undefined when it did not run (or one is already running). Never rejects.
   */
  check(): Promise<TriageRound | undefined> {
    if (this.#round) return Promise.resolve(undefined);
    const inputs = this.#due();
    if (!inputs) return Promise.resolve(undefined);
    const round = this.#run(inputs).finally(() => this.#round = undefined);
    this.#round = round;
    return round;
  }

  /** The fresh inputs to triage, or undefined when no round is due. */
  #due(): Input[] | undefined {
    const settings = this.settings();
    if (!settings.enabled || this.#closed) return undefined;
    const { agent, clock } = this.#options;
    const busySince = agent.status().scheduler.busySince;
    if (busySince === undefined || clock.monotonic() - busySince < settings.busyAfterMs) {
      return undefined;
    }
    const pending = agent.pendingPlain();
    const ids = new Set(pending.map((i) => i.id));
    for (const id of this.#seen) if (!ids.has(id)) this.#seen.delete(id);
    const fresh = pending.filter((i) => !this.#seen.has(i.id));
    if (pending.length < settings.minPending || fresh.length === 0) return undefined;
    for (const input of fresh) this.#seen.add(input.id);
    return fresh;
  }

  async #run(inputs: Input[]): Promise<TriageRound> {
    const round: TriageRound = { answered: [], deferred: [], gone: [] };
    const lanes = Math.max(1, Math.min(this.settings().maxResidents, inputs.length));
    this.#options.logger.info("Backlog triage", { inputs: inputs.length, assistants: lanes });
    await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
      const assistant = this.#assistant(lane);
      this.#assistants.add(assistant);
      try {
        for (let i = lane; i < inputs.length; i += lanes) {
          round[await this.#triage(assistant, inputs[i]!)].push(inputs[i]!.id);
        }
      } finally {
        this.#assistants.delete(assistant);
        await assistant.close();
      }
    }));
    this.#options.logger.info("Backlog triage done", {
      answered: round.answered.length,
      deferred: round.deferred.length,
      gone: round.gone.length,
    });
    return round;
  }

  /** A triage assistant: no input channel, every output channel, no tools of its own. */
  #assistant(lane: number): HelperAgent {
    const { agent, persona } = this.#options;
    return new HelperAgent({
      clock: this.#options.clock,
      logger: this.#options.logger.child({ component: "triage", assistant: lane }),
      config: this.#options.config,
      llm: this.#options.llm,
      persona: () => [INSTRUCTIONS, persona?.() ?? ""].filter((s) => s !== "").join("\n\n"),
      cause: "triage",
      outputs: agent.outputs,
    });
  }

  async #triage(assistant: HelperAgent, input: Input): Promise<keyof TriageRound> {
    const { agent, logger } = this.#options;
    const stillQueued = () => !this.#closed && agent.pendingPlain().some((i) => i.id === input.id);
    if (!stillQueued()) return "gone";
    let verdict: { text: string; defer: boolean };
    try {
      const reply = await assistant.injectInputSync(input.source, input.text, {
        channel: "_triage_",
        sender: input.sender,
        meta: { ...input.meta, triageOf: input.id },
      });
      const defer = reply.status !== "ok" || isDefer(reply.text);
      verdict = { text: reply.text, defer };
    } catch (error) {
      logger.error("Triage assistant failed", { inputId: input.id, error: errorMessage(error) });
      verdict = { text: "", defer: true };
    }
    if (!verdict.defer) {
      const [taken] = agent.takePending([input.id]);
      if (!taken) return "gone"; // the main agent got to it first: its reply is the one
      taken.reply({ inputId: input.id, channel: input.channel, text: verdict.text, status: "ok" });
      return "answered";
    }
    if (!stillQueued()) return "gone";
    agent.notify(input, BUSY_NOTICE);
    return "deferred";
  }
}

function isDefer(text: string): boolean {
  const first = text.trim().split("\n", 1)[0]!.trim().replace(/[.!。]$/, "");
  return text.trim() === "" || first.toUpperCase() === TRIAGE_DEFER;
}
