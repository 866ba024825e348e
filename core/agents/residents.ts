/**
 * Resident sub-agents (ARCHITECTURE.md "Resident sub-agents and timely feedback"): independent
 * lightweight agents with their own scheduler, persona and overlay graph memory, sharing the
 * parent's LLM caller and output channels. Each task's result reaches the parent as an L3
 * interrupt; on reclaim/destroy the parent decides the fate of unfinished tasks.
 */
import type { Agent } from "../kernel/agent.ts";
import { ResidentError } from "../errors.ts";
import type { GraphMemory } from "../memory/graph.ts";
import type { Reply } from "../input.ts";
import type { RegisteredTool } from "../kernel/tools.ts";
import type { HelperDeps } from "./children.ts";
import { compressContext, type CompressResult } from "./_resident_compress.ts";
import {
  buildResident,
  clip,
  note,
  type Resident,
  type ResidentSummary,
  type ResidentTask,
  summarize,
} from "./_resident.ts";

export type { CompressResult, ResidentSummary, ResidentTask };

/** Source name of everything residents inject into the parent. */
export const RESIDENT_SOURCE = "resident";
/** Channel of resident reports and handed-back tasks (their replies go to the pool's log). */
export const RESIDENT_CHANNEL = "_resident_";
/** Level of a resident's report in the parent: L3 Interactive. */
export const RESIDENT_REPORT_LEVEL = 3;
/** Default most residents alive at once. */
export const DEFAULT_MAX_RESIDENTS = 8;

/** What happens to a resident's unfinished tasks when it ends. */
export type ResidualPolicy = "keep" | "drop";

/** What reclaim/destroy did. */
export interface EndResult {
  name: string;
  residual: ResidualPolicy;
  handedBack: string[];
  dropped: string[];
  /** Relations the main graph took from the resident's temp graph (reclaim only). */
  committed: number;
}

/** Options of a ResidentPool. */
export interface ResidentPoolOptions extends HelperDeps {
  /** The parent: reports and handed-back tasks enter its input path; residents share its channels. */
  parent: Agent;
  /** The main graph memory residents read through and reclaim into. */
  graph: GraphMemory;
  /** Parent tools a resident may borrow (spawning and channel tools are removed). Default none. */
  parentTools?: () => RegisteredTool[];
  maxResidents?: number;
  /** Called once per task when its one terminal outcome is settled. */
  onTaskSettled?: (task: ResidentTask) => void;
}

const NAME = /^[a-z0-9_-]{1,32}$/;

/** The parent's residents: create, task, inspect, compress and end them. */
export class ResidentPool {
  readonly #options: ResidentPoolOptions;
  readonly #residents = new Map<string, Resident>();

  constructor(options: ResidentPoolOptions) {
    this.#options = options;
  }

  /** Every resident, in creation order. */
  list(): ResidentSummary[] {
    return [...this.#residents.values()].map((r) => summarize(r));
  }

  /** Create resident `name` with its own persona; throws ResidentError when refused. */
  create(name: string, instructions: string): ResidentSummary {
    if (!NAME.test(name)) {
      throw new ResidentError(
        name,
        "invalid",
        `Invalid resident name "${name}": use ${NAME.source}`,
      );
    }
    if (instructions.trim() === "") {
      throw new ResidentError(
        name,
        "invalid",
        `Cannot create resident "${name}": empty instructions`,
      );
    }
    if (this.#residents.has(name)) {
      throw new ResidentError(name, "exists", `Resident "${name}" already exists`);
    }
    const max = this.#options.maxResidents ?? DEFAULT_MAX_RESIDENTS;
    if (this.#residents.size >= max) {
      throw new ResidentError(
        name,
        "limit",
        `Cannot create resident "${name}": ${max} already run`,
      );
    }
    const resident = buildResident(name, instructions, {
      ...this.#options,
      outputs: this.#options.parent.outputs,
      report: (text) => {
        const live = this.#residents.get(name);
        if (live) this.#report(live, text, {});
        return live !== undefined;
      },
    });
    this.#residents.set(name, resident);
    this.#options.logger.info("Resident created", { resident: name });
    return summarize(resident);
  }

  /** Queue `text` as a task of resident `name`; its result will reach the parent as a report. */
  send(name: string, text: string): ResidentTask {
    const r = this.#get(name);
    const result = r.agent.injectInput("parent", text, {
      channel: RESIDENT_CHANNEL,
      onReply: (reply) => this.#answered(r, reply),
    });
    if (!result.accepted) {
      throw new ResidentError(
        name,
        "refused",
        `Resident "${name}" refused the task: ${result.reason}`,
      );
    }
    const task: ResidentTask = { id: result.inputId, resident: name, text };
    r.open.set(task.id, task);
    note(r, `task ${task.id} queued: ${clip(text)}`);
    return task;
  }

  /** Detailed state of resident `name`. */
  inspect(name: string): Record<string, unknown> {
    const r = this.#get(name);
    const status = r.agent.status();
    return {
      ...summarize(r),
      instructions: r.instructions,
      running: status.currentTurn,
      tasks: [...r.open.values()].map((t) => ({
        id: t.id,
        text: clip(t.text),
        state: t.id === status.currentTurn ? "running" : "queued",
      })),
      context: r.context.events().slice(-5).map((e) => clip(e.response ?? e.input ?? "")),
      memory: r.graph.pending().slice(0, 10),
      log: r.log.slice(-20),
    };
  }

  /** Summarise resident `name`'s older context into one event, keeping the newest `keep`. */
  async compress(
    name: string,
    options: { keep?: number; signal?: AbortSignal } = {},
  ): Promise<CompressResult> {
    const r = this.#get(name);
    const result = await compressContext(r.context, { ...this.#options, ...options, name });
    note(r, `compressed context ${result.before} → ${result.after} events`);
    return result;
  }

  /** End resident `name`, committing its temp graph into the main graph. */
  reclaim(name: string, residual: ResidualPolicy = "keep"): Promise<EndResult> {
    return this.#end(this.#get(name), residual, true);
  }

  /** End resident `name`, discarding its temp graph. */
  destroy(name: string, residual: ResidualPolicy = "keep"): Promise<EndResult> {
    return this.#end(this.#get(name), residual, false);
  }

  /** End every resident (shutdown): unfinished tasks are dropped, one log line each. */
  async close(): Promise<void> {
    for (const r of [...this.#residents.values()]) await this.#end(r, "drop", false);
  }

  #get(name: string): Resident {
    const r = this.#residents.get(name);
    if (!r) {
      const known = [...this.#residents.keys()].join(", ") || "none";
      throw new ResidentError(name, "not_found", `No resident "${name}" (residents: ${known})`);
    }
    return r;
  }

  /** The resident's reply to a task: settle it and report it to the parent at L3. */
  #answered(r: Resident, reply: Reply): void {
    const task = r.open.get(reply.inputId);
    if (!task) return; // refused synchronously by send(), or already handed back / dropped
    this.#settle(r, task, "answered", reply);
    this.#report(
      r,
      `[resident report] "${r.name}" finished task ${task.id} (${reply.status}).\n` +
        `Task: ${clip(task.text, 500)}\nResult: ${reply.text}`,
      { taskId: task.id, status: reply.status },
    );
  }

  #report(r: Resident, text: string, meta: Record<string, unknown>): void {
    this.#options.parent.injectInterrupt(RESIDENT_SOURCE, text, {
      priority: RESIDENT_REPORT_LEVEL,
      sender: r.name,
      channel: RESIDENT_CHANNEL,
      meta: { resident: r.name, ...meta },
      onReply: (ack) => note(r, `parent handled a report (${ack.status}): ${clip(ack.text)}`),
    });
  }

  async #end(r: Resident, residual: ResidualPolicy, reclaim: boolean): Promise<EndResult> {
    this.#residents.delete(r.name);
    const open = [...r.open.values()];
    r.open.clear(); // from here on the resident's own replies to these are ignored
    r.agent.takePending(open.map((t) => t.id));
    await r.agent.close();
    const committed = reclaim ? (await r.graph.reclaim()).relations : 0;
    const how = reclaim ? "reclaimed" : "destroyed";
    for (const task of open) {
      if (residual === "keep") this.#handBack(r, task);
      else {
        this.#options.logger.info("Resident task dropped", {
          resident: r.name,
          taskId: task.id,
          text: clip(task.text),
        });
        this.#settle(r, task, "dropped", {
          inputId: task.id,
          channel: RESIDENT_CHANNEL,
          text: `Dropped: resident "${r.name}" was ${how} with residual "drop" before it finished.`,
          status: "stopped",
        });
      }
    }
    this.#options.logger.info(`Resident ${how}`, { resident: r.name, residual, committed });
    const ids = open.map((t) => t.id);
    return {
      name: r.name,
      residual,
      handedBack: residual === "keep" ? ids : [],
      dropped: residual === "drop" ? ids : [],
      committed,
    };
  }

  /** Residual "keep": the task joins the parent's queue; the parent's reply is its one reply. */
  #handBack(r: Resident, task: ResidentTask): void {
    this.#options.parent.injectInput(
      RESIDENT_SOURCE,
      `[task handed back by resident "${r.name}", ended before finishing it] ${task.text}`,
      {
        sender: r.name,
        channel: RESIDENT_CHANNEL,
        meta: { resident: r.name, taskId: task.id, residual: "keep" },
        onReply: (reply) => this.#settle(r, task, "handed_back", reply),
      },
    );
  }

  #settle(r: Resident, task: ResidentTask, outcome: ResidentTask["outcome"], reply: Reply): void {
    if (task.outcome) {
      this.#options.logger.error("Resident task settled twice", {
        resident: r.name,
        taskId: task.id,
      });
      return;
    }
    task.outcome = outcome;
    task.reply = reply;
    r.open.delete(task.id);
    note(r, `task ${task.id} ${outcome} (${reply.status})`);
    this.#options.onTaskSettled?.(task);
  }
}
